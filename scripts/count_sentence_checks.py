"""Count the tests that compare a player's sentence whole (issue 27, docs/testing.md).

STYLE.md: a player's sentences are pinned in one words test per words module;
elsewhere a test asserts codes, types and fields. This counts, in ``tests/``,
the checks that hold a sentence as a literal: a comparison (``==``, ``!=``, or
with ``--in`` also ``in`` / ``not in``) with a string literal of three words or
more on one side (f-strings by their literal text), alone or in a list, tuple
or set. A file is a words test when its name holds ``words``. Literals that are
not sentences (a card's name, a progress bar, a duration) are counted too: the
figure is an upper bound, and ``--list`` shows each check to judge by eye.

    python3 scripts/count_sentence_checks.py [--in] [--list] [--files] [ROOT]
"""

from __future__ import annotations

import argparse
import ast
import collections
import pathlib


def words_in(node: ast.expr) -> int:
    """The words of a string literal (an f-string's placeholders count as one each)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return len(node.value.split())
    if isinstance(node, ast.JoinedStr):
        text = "".join(str(v.value) if isinstance(v, ast.Constant) else "X" for v in node.values)
        return len(text.split())
    return 0


def is_sentence(node: ast.expr) -> bool:
    """A literal of three words or more, or a list, tuple or set holding one."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return any(is_sentence(element) for element in node.elts)
    return words_in(node) >= 3


def sentence_checks(tree: ast.AST, with_in: bool) -> list[ast.Compare]:
    """The comparisons of ``tree`` that hold a sentence whole."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        op, left, right = node.ops[0], node.left, node.comparators[0]
        equal = isinstance(op, ast.Eq | ast.NotEq) and (is_sentence(left) or is_sentence(right))
        held = with_in and isinstance(op, ast.In | ast.NotIn) and is_sentence(left)
        if equal or held:
            found.append(node)
    return found


def main() -> None:
    """Print the counts in the words tests and elsewhere (and each check with --list)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", help="the repository (default: .)")
    parser.add_argument("--in", dest="with_in", action="store_true",
                        help="count `in` checks too")
    parser.add_argument("--list", action="store_true", help="print each check outside words")
    parser.add_argument("--files", action="store_true", help="print the count per file")
    args = parser.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    per_file: collections.Counter[str] = collections.Counter()
    root = pathlib.Path(args.root)
    for path in sorted((root / "tests").rglob("*.py")):
        words_test = "words" in path.name
        for check in sentence_checks(ast.parse(path.read_text()), args.with_in):
            counts["words tests" if words_test else "elsewhere"] += 1
            if not words_test:
                per_file[str(path.relative_to(root))] += 1
                if args.list:
                    print(f"{path.relative_to(root)}:{check.lineno}: {ast.unparse(check)[:120]}")
    if args.files:
        for name, count in per_file.most_common():
            print(f"{count:4} {name}")
    print(f"in the words tests: {counts['words tests']}, elsewhere: {counts['elsewhere']}")


if __name__ == "__main__":
    main()

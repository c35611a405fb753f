"""Pure rendering of the boxes drawn over the table: pickers, the round's score
table, the end of the game, and the quit question."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from prompt_toolkit.utils import get_cwidth

from uno_p2p.rules import Options
from uno_p2p.ui import words
from uno_p2p.ui.render import (
    Block,
    Line,
    Seats,
    card_style,
    pad,
    rules_label,
    width_of,
    wrap,
    wrap_line,
)
from uno_p2p.ui.session import RoundSummary
from uno_p2p.ui.theme import card_label

#: The widest a box over the table may be: it fits an 80-column terminal whole.
BOX_WIDTH = 80
#: Columns of cards per row in the score table (keeps it inside 80 columns).
HAND_WIDTH = 36
#: The keys of the table, for the help overlay (the bottom line shows those that work now).
HELP_KEYS = (
    ("←→ 1-9", "choose a card"), ("Enter", "play it"),
    ("Space", "mark cards to play together"), ("Esc", "clear the marks"),
    ("d", "draw a card"), ("p", "pass after drawing"),
    ("u", "say UNO (2 cards: with play)"), ("c", "catch a missed UNO"),
    ("x", "challenge a Wild Draw Four"), ("j", "jump in (jump_in rule)"),
    ("s", "sort: colour / as dealt"), ("↑↓ PgUp", "scroll news (End: newest)"),
    ("?", "this help"), ("q", "quit; Ctrl-C twice quits"),
)
#: Width of the left column of keys in the help.
HELP_COLUMN = 39
#: RULES.md "End of a round and of the game": the scoring option in words.
SCORING = {
    "points": "the round's winner scores the sum of the others' cards.",
    "losses": "each loser adds their own hand's points; the fewest points win.",
    "chips": "each loser pays the winner what their hand is worth.",
}


def boxed(title: str, body: Block, footer: str = "") -> Block:
    """``body`` in a frame with ``title`` on top and ``footer`` below, at most
    ``BOX_WIDTH`` columns wide: longer lines (a reason, a log's path) wrap, so that no
    box is ever cut at 80 columns or more (issue 25)."""
    room = BOX_WIDTH - 4
    body = [row for line in body
            for row in (wrap_line(line, room) if width_of(line) > room else [line])]
    footers = [] if not footer else [footer] if get_cwidth(footer) <= room else \
        wrap(footer, room)
    inner = max([width_of(line) for line in body] + [get_cwidth(title) + 2]
                + [get_cwidth(row) for row in footers])
    style = "class:dialog"
    top = [(style, "╭─"), ("class:dialog.title", f" {title} "),
           (style, "─" * max(0, inner - get_cwidth(title) - 1) + "╮")]
    rows: Block = [top]
    for line in body:
        rows.append([(style, "│ "), *pad([(f"{style} {s}".strip(), t) for s, t in line], inner,
                                         style), (style, " │")])
    if footer:
        rows.append([(style, "│ "), *pad([(style, "")], inner, style), (style, " │")])
    for row in footers:
        rows.append([(style, "│ "), *pad([(f"{style} class:marker", row)], inner, style),
                     (style, " │")])
    rows.append([(style, "╰" + "─" * (inner + 2) + "╯")])
    return rows


def choices(items: Sequence[tuple[str, str]]) -> Block:
    """``key  what`` rows of a picker."""
    return [[("class:marker", f" {key} "), ("", f" {what}")] for key, what in items]


def _scores_unit(options: Options) -> str:
    return {"points": "points", "losses": "points (fewest wins)", "chips": "chips"}[
        options.scoring]


def card_cells(cards: Sequence[int], width: int) -> Block:
    """Cards as small coloured tiles with their short names (as in the hand), wrapped to
    ``width`` columns so that a long hand is shown whole."""
    rows: Block = []
    row: Line = []
    used = 0
    for card in cards:
        label = f" {card_label(card)} "
        if row and used + len(label) + 1 > width:
            rows.append(row)
            row, used = [], 0
        row += [(card_style(card, False), label), ("", " ")]
        used += len(label) + 1
    if row:
        rows.append(row)
    return rows or [[("class:muted", "no cards left")]]


def round_table(summary: RoundSummary, seats: Seats, options: Options) -> Block:
    """Everyone's revealed hand (every card), its points, the change and the total."""
    name_w = max(get_cwidth(n) for n in seats.names)
    if summary.winner < 0:
        title: Line = [("class:marker", f"Round {summary.round} is void: nobody scores.")]
    else:
        title = [("class:marker", f"{seats.who(summary.winner)} won round {summary.round}.")]
    rows: Block = [title, [],
                   [("class:muted", f"{'':{name_w}}  {'hand':>5} {'change':>7} {'total':>6}"
                     "  cards left")]]
    lead = name_w + 23
    for seat, name in enumerate(seats.names):
        change = summary.changes[seat]
        style = "class:me" if seat == seats.me else ""
        head = f"{name:{name_w}}  {summary.hand_points[seat]:>5} {change:>+7} " \
            f"{summary.scores[seat]:>6}  "
        cells = card_cells(summary.hands[seat], HAND_WIDTH)
        rows.append([(style, head), *cells[0]])
        rows += [[("", " " * lead), *more] for more in cells[1:]]
    rows += [[], [("class:muted", f"Scores are {_scores_unit(options)}; "
                                  f"the game ends at {options.target}.")]]
    return rows


def help_rows(options: Options) -> Block:
    """The ``?`` overlay: every key, what the raised cards mean, the rules in force and
    the scoring, in at most 18 rows of 76 columns (it fits an 80 by 24 terminal)."""
    rows: Block = [[("class:marker", "Keys")]]
    half = -(-len(HELP_KEYS) // 2)
    for left, right in itertools.zip_longest(HELP_KEYS[:half], HELP_KEYS[half:]):
        line = _help_key(*left)
        if right is not None:
            line = [*pad(line, HELP_COLUMN), *_help_key(*right)]
        rows.append(line)
    rows += [[], [("class:marker", "Your hand "),
                  ("", "cards you can play now stand raised under the word \"play\"")],
             [("", "  (on a bar of their colour; • by the number on a small screen). Every card")],
             [("", "  shows its colour letter: R red, Y yellow, G green, B blue, W wild.")],
             [], [("class:marker", "Rules "), ("", rules_label(options))]]
    changes = "in force: " + ", ".join(options.describe())
    rows += [[("", f"  {row}")] for row in wrap(changes, 70)] if options.describe() else []
    rows += [[("class:marker", "Scoring "), ("", SCORING[options.scoring])],
             [("", f"  The game ends when someone reaches {options.target}.")]]
    return rows


def _help_key(key: str, what: str) -> Line:
    return [("class:marker", f" {key:>7} "), ("", f" {what}")]


def game_over(summary: RoundSummary, seats: Seats, options: Options, seed: str) -> Block:
    """The winner, the final scores in order, and how to play the same deal again."""
    winner = summary.game_winner
    if options.teams:
        head = words.TEAM_WINS.format(team=winner % options.teams + 1, who=seats.who(winner))
    elif winner == seats.me:
        head = words.YOU_WIN
    else:
        head = words.WINS_THE_GAME.format(name=seats.names[winner])
    order = sorted(range(len(seats.names)), key=lambda s: summary.scores[s],
                   reverse=options.scoring != "losses")
    rows: Block = [[("class:good", head)], [], [("class:muted", "Final scores:")]]
    for place, seat in enumerate(order, 1):
        style = "class:me" if seat == seats.me else ""
        rows.append([(style, f" {place:>2}. {seats.names[seat]:<16} {summary.scores[seat]:>6}")])
    rounds = f"{summary.round} round{'s' if summary.round != 1 else ''}"
    again = f" Seed {seed}: play the same game again with --seed {seed}" if seed else ""
    rows += [[], [("class:muted", f"{rounds}.{again}")]]
    return rows

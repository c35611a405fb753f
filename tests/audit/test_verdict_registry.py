"""The verdict vocabulary: source, registry, chapter and producers agree.

- every code literal raised in ``wire``, ``crypto``, ``table``, ``store``,
  ``audit`` and ``errors.py`` (found by walking the syntax tree, not by text
  search) is in ``uno_p2p.audit.codes.CODES``;
- docs/protocol/verdicts.md defines exactly the registry's codes and every
  status;
- every registered code (but base classes' defaults) is produced by a named
  test or reference log, and that producer really names it.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

from uno_p2p.audit.codes import CODES, STATUSES
from uno_p2p.audit.report import Status
from uno_p2p.crypto.channel import ChannelKey, Party, seal
from uno_p2p.errors import CryptoError, RemoteProtocolError
from uno_p2p.store.unolog import UnreadableLog, read_log
from uno_p2p.table.ledger import PROOF_CODES
from uno_p2p.wire.chain import verify_chain

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "uno_p2p"
CHAPTER = ROOT / "docs" / "protocol" / "verdicts.md"
EXPECTED = json.loads((ROOT / "tests" / "data" / "expected.json").read_text())
SCANNED = ("wire", "crypto", "table", "store", "audit")
CODE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
#: Calls whose positional code argument sits at a known place.
CODE_ARGUMENT = {"Finding": 1, "Abort": 1, "_accuse": 2, "Fault": 2}

#: code -> who produces it: ``log:<tests/data file>`` (its expected.json code) or
#: ``<test file>::<function or module-level name>`` (whose source names the code
#: or the error class that carries it).
PRODUCERS = {
    "bad_pake": "tests/net/test_handshake.py::test_spake2_refuses_a_point_outside_the_group",
    "sequencer_fork": "log:cheat-forked-sequencer.unolog",
    "bad_handover": "tests/table/test_handover_rules.py::test_only_the_next_seat_may_take_over",
    "bad_vote": "tests/table/test_handover_rules.py::test_a_handover_needs_a_majority_of_the_seats",
    "bad_remove": "tests/table/test_handover_rules.py::"
                  "test_only_the_sequencer_removes_and_only_a_seat_the_table_waits_for",
    "double_vote":
        "tests/table/test_handover_rules.py::test_a_seat_that_votes_for_two_sequencers_is_named",
    "wrong_table": "tests/wire/test_wire_chain.py::test_splicing_two_logs_is_refused",
    "bad_sequence": "tests/wire/test_wire_chain.py::test_a_log_must_start_at_entry_zero",
    "bad_prev_hash": "tests/wire/test_wire_chain.py::test_splicing_two_logs_is_refused",
    "bad_first_entry": "tests/wire/test_wire_chain.py::test_the_first_entry_must_be_the_sequencers",
    "bad_signature":
        "tests/crypto/test_identity.py::test_a_signature_verifies_only_for_its_message_and_key",
    "bad_countersignature":
        "tests/wire/test_wire_chain.py::test_a_forged_signature_by_another_key_is_refused",
    "replayed_message": "tests/wire/test_wire_chain.py::test_a_replayed_message_is_refused",
    "equivocation": "log:cheat-equivocation.unolog",
    "counter_gap": "tests/wire/test_wire_chain.py::test_a_skipped_author_counter_is_refused",
    "head_ahead": "log:cheat-dropped-turn.unolog",
    "head_mismatch": "tests/audit/test_tamper.py::"
                     "test_an_author_shown_another_history_makes_the_sequencer_the_culprit",
    "head_regressed":
        "tests/wire/test_wire_chain.py::test_an_author_head_that_is_not_this_log_is_refused",
    "malformed_entry": "tests/audit/test_fault_codes.py::"
                       "test_a_countersigned_record_that_is_no_entry_is_malformed_entry",
    "illegal_move": "log:cheat-card-not-held.unolog",
    "bad_share": "log:cheat-bad-share.unolog",
    "wrong_face": "log:cheat-wrong-face.unolog",
    "false_accusation": "log:cheat-false-accusation.unolog",
    "dishonest_shuffle": "log:cheat-uncommitted-seed.unolog",
    "bad_shuffle": "log:cheat-bad-shuffle.unolog",
    "bad_private_reveal": "log:cheat-bad-private-reveal.unolog",
    "missing_reveal": "log:cheat-refused-reveal.unolog",
    "unknown_card": "tests/audit/test_fault_codes.py::"
                    "test_a_point_that_is_no_card_is_unknown_card_naming_nobody",
    "duplicate_card": "tests/audit/test_fault_codes.py::"
                      "test_one_card_opened_twice_in_a_deck_is_duplicate_card_naming_nobody",
    "contradiction": "tests/audit/test_fault_codes.py::"
                     "test_a_revealed_face_against_a_proven_one_is_contradiction",
    "bad_deck":
        "tests/audit/test_fault_codes.py::test_a_deck_carrying_an_unshuffled_deck_is_bad_deck",
    "bad_private_share": "tests/table/test_hardening.py::"
                         "test_a_short_private_reveal_is_named_by_its_recipient_and_proven_by_the_audit",
    "unresponsive":
        "tests/table/test_adversaries.py::test_a_silent_peer_is_timed_out_then_named_unresponsive",
    "wild_draw_four":
        "tests/rules/test_challenge.py::test_wd4_strict_caught_play_stays_a_violation",
    "challenge": "tests/rules/test_challenge.py::"
                 "test_a_false_guilty_verdict_is_caught_at_the_round_end_naming_the_challenger",
    "draw_until_playable": "tests/rules/test_house_rules.py::test_draw_until_playable_claims",
    "forced_play":
        "tests/rules/test_scoring.py::test_false_claim_is_caught_by_the_round_end_reveal",
    "sealed_tampered": "tests/crypto/test_channel.py::test_any_tampering_is_detected",
    "sealed_malformed":
        "tests/wire/test_wire_private.py::test_a_sealed_body_that_opens_to_garbage_names_its_author",
    "bad_channel_key": "tests/crypto/test_channel.py::test_a_small_order_channel_key_is_refused",
    "invalid_point": "tests/crypto/test_group.py::test_bad_points_are_refused_naming_peer_and_item",
    "share_rejected":
        "tests/crypto/test_malicious.py::test_a_share_for_another_position_is_refused",
    "shuffle_rejected": "tests/crypto/test_malicious.py::test_a_short_shuffle_is_refused_at_once",
    "claim_mismatch":
        "tests/crypto/test_malicious.py::test_a_wrong_claimed_card_is_refused_naming_the_claimant",
    "bad_seed": "tests/audit/test_verdict_registry.py::test_codes_only_live_peers_raise",
    "wrong_channel_key": "tests/audit/test_verdict_registry.py::test_codes_only_live_peers_raise",
    "empty_log": "tests/audit/test_verdict_registry.py::test_codes_only_live_peers_raise",
    "unreadable_log": "tests/audit/test_verdict_registry.py::test_codes_only_live_peers_raise",
}
#: The forged-entry cases of test_fault_codes produce every other table code.
FORGED = "tests/audit/test_fault_codes.py::CASES"


def _code_arguments(node: ast.Call) -> list[ast.expr]:
    """The arguments of a call that can hold a fault code literal."""
    found: list[ast.expr] = [kw.value for kw in node.keywords if kw.arg == "code"]
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in CODE_ARGUMENT and len(node.args) > CODE_ARGUMENT[name]:
        found.append(node.args[CODE_ARGUMENT[name]])
    elif name == "fault":
        found.extend(node.args)  # fault(..., code, why): only the code is an identifier
    return found


def raised_codes() -> dict[str, str]:
    """Every code literal raised or assigned as a code in the scanned layers -> where."""
    paths = [path for layer in SCANNED for path in sorted((PACKAGE / layer).rglob("*.py"))]
    paths.append(PACKAGE / "errors.py")
    codes: dict[str, str] = {}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        candidates: list[ast.expr] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                candidates.extend(_code_arguments(node))
            elif isinstance(node, ast.ClassDef):
                candidates.extend(s.value for s in node.body if isinstance(s, ast.Assign)
                                  and any(getattr(t, "id", "") == "code" for t in s.targets))
            elif isinstance(node, ast.Tuple) and len(node.elts) == 3 and \
                    isinstance(node.elts[0], ast.Compare | ast.BoolOp):
                candidates.append(node.elts[1])  # (condition, code, why) check tables
        for value in candidates:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and \
                    CODE.match(value.value):
                codes.setdefault(value.value, f"{path.relative_to(ROOT)}:{value.lineno}")
    return codes


def test_the_scan_finds_the_codes_it_must() -> None:
    found = raised_codes()
    # One of each way of raising: keyword, class attribute, fault(), check table, Abort.
    for code in ("equivocation", "dishonest_shuffle", "bad_seats", "wrong_table",
                 "unresponsive", "bad_private_share", "missing_reveal"):
        assert code in found


def test_every_raised_code_is_registered() -> None:
    unknown = {code: where for code, where in raised_codes().items() if code not in CODES}
    assert not unknown, f"codes raised but not in uno_p2p/audit/codes.py: {unknown}"


def chapter_codes() -> list[str]:
    """The codes the verdict chapter defines: first cells of the tables of its §7."""
    text = CHAPTER.read_text(encoding="utf-8")
    section = text.split("\n## 7. ", 1)[1].split("\n## 8. ", 1)[0]
    return re.findall(r"^\| `([a-z0-9_]+)` \|", section, re.M)


def test_the_chapter_defines_exactly_the_registered_codes() -> None:
    defined = chapter_codes()
    assert len(defined) == len(set(defined)), "a code is defined twice"
    assert set(defined) == set(CODES)


def test_the_chapter_names_whom_the_registry_names() -> None:
    text = CHAPTER.read_text(encoding="utf-8")
    section = text.split("\n## 7. ", 1)[1].split("\n## 8. ", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9_]+)` \| ([a-z]+) \|", section, re.M)
    assert rows
    assert {code: named for code, named in rows} == {c.name: c.named for c in CODES.values()}


def test_the_proof_codes_are_the_chapters_stage_three() -> None:
    """One set of proof codes, read by the table and the audit: §7.3's table, no more."""
    text = CHAPTER.read_text(encoding="utf-8")
    section = text.split("\n### 7.3 ", 1)[1].split("\n### 7.4 ", 1)[0]
    assert set(re.findall(r"^\| `([a-z0-9_]+)` \|", section, re.M)) == PROOF_CODES
    assert {c.name for c in CODES.values() if c.stage == "proofs"} == PROOF_CODES


def test_the_chapter_and_the_audit_agree_on_the_statuses() -> None:
    text = CHAPTER.read_text(encoding="utf-8")
    assert {s.value for s in Status} | {"unreadable"} == set(STATUSES)
    for status in STATUSES:
        assert f"| `{status}` |" in text


def _source_of(path: Path, name: str) -> str:
    source = path.read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        names = [node.name] if isinstance(node, ast.FunctionDef) else \
            [getattr(t, "id", "") for t in getattr(node, "targets", [])] + \
            [getattr(getattr(node, "target", None), "id", "")]
        if name in names:
            return ast.get_source_segment(source, node) or ""
    raise AssertionError(f"{path}: no {name}")


@functools.cache
def _error_classes() -> dict[str, set[str]]:
    """code -> the error classes whose ``code`` attribute it is (a test may name those)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant) \
                            and isinstance(item.value.value, str):
                        found.setdefault(item.value.value, set()).add(node.name)
    return found


@pytest.mark.parametrize("code", sorted(c.name for c in CODES.values() if c.stage != "class"))
def test_every_code_is_produced_by_a_test_or_a_log(code: str) -> None:
    producer = PRODUCERS.get(code, FORGED)
    if producer.startswith("log:"):
        assert EXPECTED[producer[4:]]["code"] == code
        return
    file, name = producer.split("::")
    source = _source_of(ROOT / file, name)
    named = {f'"{code}"'} | _error_classes().get(code, set())
    assert any(word in source for word in named), f"{producer} does not produce {code}"


def test_codes_only_live_peers_raise(tmp_path: Path) -> None:
    with pytest.raises(CryptoError) as caught:
        ChannelKey(b"short")
    assert caught.value.code == "bad_seed"
    key, other = ChannelKey(bytes(range(32))), ChannelKey(bytes(range(1, 33)))
    party = Party(b"\x01" * 32, other.public)
    with pytest.raises(CryptoError) as caught:
        seal(key, party, Party(b"\x02" * 32, key.public), b"context", b"text")
    assert caught.value.code == "wrong_channel_key"
    with pytest.raises(RemoteProtocolError) as empty:
        verify_chain([])
    assert empty.value.code == "empty_log"
    path = tmp_path / "not-a-log.unolog"
    path.write_bytes(b"hello")
    with pytest.raises(UnreadableLog) as unreadable:
        read_log(path)
    assert unreadable.value.code == "unreadable_log"

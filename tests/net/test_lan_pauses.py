"""A paused laptop (issue 23): real ``uno-lan`` processes on 127.0.0.1, one of them
stopped with SIGSTOP and woken with SIGCONT, as a lid closed and opened.

- the host paused past the hand-over time-out (table.md §13.1): the others hand
  the sequencer on and play on; the old host, woken, follows the new sequencer
  as an ordinary peer (§13.4, net.md §6), its log file rewritten to the table's
  chain, and exits with the others; if their game ends before they reach it
  again, it logs nothing alone (table.md §6.3) and stops on its own;
- a joiner paused past the response time-out: the table removes it (§14) and
  plays on; the joiner, woken, is told so and stops, its log a part of the
  table's;
- a joiner paused briefly plays on when it wakes.

In every case every log agrees with every other where both reach, every audit
says ``ok`` (``unfinished`` for a seat that left before the end), and nobody is
named: no violation, no abort, no ``misbehaved`` on any screen. Games have three
players and a turn timer of 2 s, as in ``test_lan_faults``.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.net.processes import Uno, entry_bytes, host_port, logs, verdicts, wait_entries
from uno_p2p.net.node import GIVE_UP_S
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Handover
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS

GAME = ["--option", "turn_timer=2", "--bind", "127.0.0.1"]
#: Inside the first round (see ``test_lan_faults.FAULT_AT``).
PAUSE_AT = 30
#: The host's pause: past the hand-over time-out, the issue's 60 s (after 60 s the old
#: host's own log was spliced). Its 20 s pause, also past the hand-over time-out, showed
#: nothing the 60 s one does not (and cost a whole game to 150 of the suite's time).
HOST_PAUSE_S = max(60.0, HOST_LOST_AFTER_MS / 1000 + 5)
#: A joiner's pause past the response time-out: the table may not wait for it longer.
#: The pause ends sooner once the table has removed it: the point is made, and what is
#: left is to tell it so (a game to 500 once had to outlast the 10 s more asleep).
JOINER_LONG_PAUSE_S = RESPONSE_TIMEOUT_MS / 1000 + 10
#: A woken old host may lose a few links while the table tells it what happened;
#: one lost link per frame the new sequencer sends (issue 23: 763) is a loop.
LINK_LOSSES_ALLOWED = 12
#: The woken old host may use this many times a bot's CPU, plus the slack (start-up,
#: its time as the sequencer before the pause, the audit of its own log).
CPU_RATIO = 2
CPU_SLACK_S = 10.0
TARGET = 150
#: Seconds Yan and Zed think per move while the host is paused: their game after the
#: hand-over then usually outlasts the pause, and the woken host follows it (a round of
#: two took 63 moves in one run, 10 s at this pace, and a game to 150 about 10 rounds;
#: at 0.3 s the test took 287 s). Two bots thinking 0 s played a game to 500 in 36 to 40 s,
#: over before the host woke, which then stopped alone in every run at idle; and each of
#: their 23 to 28 rounds cost every peer its shuffle proofs. A game slow in wall time, not
#: in rounds.
FOLLOW_THINK = "0.15"
#: The joiner paused past the response time-out wakes once it is removed, and has only
#: to hear so before the end: the game must not end in its first round, before the pause
#: (its fault is timed by an entry count the test may notice a round late; a first round
#: once scored 231); two players left score about 30 a round (18 and 23 rounds after the
#: removal in two runs).
REMOVED_TARGET = 300
#: A sequencer that reaches no other seat stops after this (net.md §6).
ALONE_GIVE_UP_S = HOST_LOST_AFTER_MS / 1000 + GIVE_UP_S
NAMES = ("Ann", "Yan", "Zed")


class Table:
    """A host (Ann, autoplay) and two bot processes (Yan, Zed) on loopback."""

    def __init__(self, tmp_path: Path, target: int = TARGET, think: str = "0") -> None:
        self.xdg = tmp_path / "data"
        self.host = Uno(["host", "--autoplay", "--player", "Ann", "--players", "3", *GAME,
                         "--option", f"target={target}"], self.xdg, tmp_path / "Ann.out")
        port = host_port(self.host)
        self.bots = {name: Uno(["bot", "--think", think, "--address", f"127.0.0.1:{port}",
                                "--player", name], self.xdg, tmp_path / f"{name}.out")
                     for name in NAMES[1:]}
        self.every = {"Ann": self.host, **self.bots}

    def stop(self) -> None:
        for process in self.every.values():
            if process.process.poll() is None:
                process.process.send_signal(signal.SIGCONT)
            process.stop()

    def verdicts(self) -> dict[str, dict[str, Any]]:
        paths = {name: logs(self.xdg, name)[0] for name in NAMES}
        found = verdicts(paths.values(), self.xdg)
        return {name: found[path] for name, path in paths.items()}

    def why(self) -> str:
        return "\n".join(f"--- {name}\n{p.text()[-2500:]}" for name, p in self.every.items())


def pause(process: Uno, seconds: float, until: Callable[[], bool] = lambda: False) -> None:
    """SIGSTOP, ``seconds`` (or less, once ``until()`` holds), SIGCONT: the process sees
    nothing, the others see it gone."""
    process.process.send_signal(signal.SIGSTOP)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until():
            time.sleep(0.1)
    finally:
        process.process.send_signal(signal.SIGCONT)


def agree_where_they_overlap(table: Table, before_hand_over: bool = False) -> None:
    """Every two logs hold the same entries as far as both go (with ``before_hand_over``:
    as far as both go before the first hand-over either holds)."""
    saved = {name: entry_bytes(logs(table.xdg, name)[0]) for name in NAMES}
    if before_hand_over:
        handed = min(first_hand_over(logs(table.xdg, name)[0]) for name in NAMES)
        saved = {name: entries[:handed] for name, entries in saved.items()}
    for name, entries in saved.items():
        for other, theirs in saved.items():
            both = min(len(entries), len(theirs))
            assert entries[:both] == theirs[:both], f"{name}'s log and {other}'s differ"


def first_hand_over(path: Path) -> int:
    """The number of the first hand-over entry in the log at ``path`` (its length if none)."""
    entries = read_log(path).entries
    return next((e.seq for e in entries if isinstance(e.body, Handover)), len(entries))


def nobody_named(table: Table, verdicts: dict[str, dict[str, Any]]) -> None:
    for name, verdict in verdicts.items():
        assert verdict["violation"] is None, (name, verdict["violation"])
        assert verdict["status"] in ("ok", "unfinished"), (name, verdict)
    for name, process in table.every.items():
        text = process.text()
        assert "misbehaved" not in text, f"{name}:\n{text[-3000:]}"
        assert "Traceback" not in text, f"{name}:\n{text[-3000:]}"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_host_paused_past_the_hand_over_follows_the_new_sequencer(tmp_path: Path) -> None:
    table = Table(tmp_path, think=FOLLOW_THINK)
    try:
        wait_entries((table.xdg, "Zed"), PAUSE_AT)
        pause(table.host, HOST_PAUSE_S)
        cpu = {}
        for name, bot in table.bots.items():
            code, cpu[name] = bot.wait_cpu(600)
            assert code == 0, f"{name}\n{table.why()}"
        # The old host exits with the others: it is a peer of the table, not its owner.
        # Either it followed the table to its end, or the others' game ended before it
        # caught up (alone, it stops after its give-up time, table.md §6.3, net.md §6;
        # removed and behind, it stops when the last member leaves).
        try:
            code, cpu["Ann"] = table.host.wait_cpu(ALONE_GIVE_UP_S + 30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the woken old host did not exit with the others\n{table.why()}")
    finally:
        table.stop()
    verdicts = table.verdicts()
    # Its exit code says which (net.md §6): 0 for a log that reaches the final scores,
    # 1 for one the table's end never reached, like a joiner that gives up.
    assert (code, verdicts["Ann"]["status"]) in ((0, "ok"), (1, "unfinished")), \
        (code, verdicts["Ann"], table.why())
    for name in ("Yan", "Zed"):
        assert verdicts[name]["status"] == "ok", (name, verdicts[name])
        assert len(verdicts[name]["handovers"]) == 1, verdicts[name]
        assert {r["name"] for r in verdicts[name]["removed"]} <= {"Ann"}
    # Its own log holds exactly the table's chain: no entry it logged alone spliced in.
    # One that never heard of the hand-over (it stops alone, unfinished) may end with
    # what it logged as the sequencer before its pause and never sent: the others
    # handed over from before it (table.md §13.3), so its log agrees up to there.
    agree_where_they_overlap(table, before_hand_over=verdicts["Ann"]["status"] != "ok")
    nobody_named(table, verdicts)
    # No loop spun while it followed (issue 23: 116 CPU-s against about 23 for each
    # other peer): it did about the work of the others.
    assert cpu["Ann"] <= CPU_RATIO * max(cpu["Yan"], cpu["Zed"]) + CPU_SLACK_S, cpu
    text = table.host.text()
    assert "unexpected_frame" not in text, text[-3000:]
    assert text.count("lost its link") <= LINK_LOSSES_ALLOWED, text[-3000:]


#: A brief pause, as in the issue (20 s), and one past the response time-out.
JOINER_PAUSES_S = (20.0, JOINER_LONG_PAUSE_S)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("seconds", JOINER_PAUSES_S, ids=["20s", "past-response-time-out"])
def test_a_paused_joiner_plays_on_or_is_removed_and_nobody_is_named(
        tmp_path: Path, seconds: float) -> None:
    table = Table(tmp_path, TARGET if seconds < 30 else REMOVED_TARGET)
    try:
        wait_entries((table.xdg, "Zed"), PAUSE_AT)
        pause(table.bots["Zed"], seconds, until=lambda: "Zed vanished and was removed" in
              table.host.text() or table.host.process.poll() is not None)
        assert table.host.wait(600) == 0, table.why()
        assert table.bots["Yan"].wait(120) == 0, table.why()
        # Zed, woken, plays on to the end or is told it was removed, and stops.
        table.bots["Zed"].wait(120)
    finally:
        table.stop()
    # The pause came in play: the host missed Zed while the game went on (§14.1).
    assert "Zed is out of reach; the game goes on" in table.host.text(), table.why()
    verdicts = table.verdicts()
    for name in ("Ann", "Yan"):
        assert verdicts[name]["status"] == "ok", (name, verdicts[name])
    assert verdicts["Zed"]["status"] in ("ok", "unfinished"), verdicts["Zed"]
    removed = [r["name"] for r in verdicts["Ann"]["removed"]]
    assert removed in ([], ["Zed"]), removed
    if removed:  # told so when it wakes (table.md §14)
        assert "Zed vanished and was removed" in table.bots["Zed"].text()
    else:  # it played on to the end
        assert verdicts["Zed"]["status"] == "ok", verdicts["Zed"]
    agree_where_they_overlap(table)
    nobody_named(table, verdicts)

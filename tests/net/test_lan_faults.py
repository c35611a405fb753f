"""Faults between real processes on loopback (issue 11): each named, nothing lost.

- a joiner killed with SIGKILL mid-round comes back with ``join --resume``;
- a joiner whose link to the host is cut for 10 s plays on through the other
  joiner meanwhile (net.md §5.3), and reconnects by itself;
- the host killed: the joiners hand the sequencer on over their own links and
  finish the game (table.md §13); with one joiner alone (no majority) it stops
  with a plain message, its log auditable;
- a joiner killed after such a hand-over comes back with ``join --resume`` at
  the new sequencer, whose address its seat file kept (net.md §8);
- a joiner resumed when the whole table is gone stops after its give-up time,
  its seat file kept (net.md §6).

Games have 2 to 4 players and a turn timer of 2 s, so a missing player's turns
time out (the cut link's game 20 s: ``CUT_TURN_TIMER`` says why). Each fault is
timed by an entry count early in round 1 (``FAULT_AT``): with three players the
deal is done at entry 22, and a round needs at least
seven plays of its winner, with the others' turns between. But a test may
notice the count late (a think-0 first round once ran 22 entries past it
first; a fault timed later once missed its game: a first round scored 169 and
ended a game to 120 first). So where a fault must come in round 1, the bots
think a little and the test checks that it did (the host's words, or the round
its removal voided): a late fault fails the test instead of passing unseen. A
game's target then need only be as long as what the test watches after its
fault; where that is a timer, bots that think make the game last in wall time,
not in rounds (each round costs every peer the proofs of its shuffles).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.net.processes import (
    Proxy,
    Uno,
    audit,
    entry_bytes,
    host_port,
    logs,
    verdicts,
    wait_entries,
)
from uno_p2p.cli.lan import GAME_OVER, ROUND_OVER
from uno_p2p.net.node import HOST_GONE
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Handover
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Join

TURN_TIMER = 2
GAME = ["--bind", "127.0.0.1"]
#: Inside the first round: lobby, keys and shuffles take 22 entries for three.
FAULT_AT = 30
#: Seconds a bot thinks per move where the test checks that its fault came in round 1:
#: that round then lasts seconds past ``FAULT_AT``, however late a starved test notices
#: that its log got there (a think-0 first round once ran 22 entries past it first).
IN_ROUND_1_THINK = "0.1"
#: What the host says when round 1 is scored (a void round is said otherwise).
ROUND_1_OVER = ROUND_OVER.partition(" Scores")[0].format(round=1)


def _host(tmp_path: Path, xdg: Path, target: int, *extra: str,
          turn_timer: int = TURN_TIMER) -> tuple[Uno, int]:
    host = Uno(["host", "--autoplay", "--player", "Ann", *GAME, "--option", f"target={target}",
                "--option", f"turn_timer={turn_timer}", *extra], xdg, tmp_path / "host.out")
    return host, host_port(host)


def _all_agree(xdg: Path) -> None:
    games = logs(xdg)
    first = entry_bytes(games[0])
    for other in games[1:]:
        assert entry_bytes(other) == first, f"{other.name} differs"
    # One audit per distinct file (on a loaded machine three audits of a long game
    # outlasted the test's bound).
    for verdict in verdicts(games, xdg).values():
        assert verdict["status"] == "ok", verdict


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_killed_joiner_resumes_and_the_game_goes_on(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    # While Zed is away the table waits for its shares and its round-end reveal, so
    # round 1 cannot end without it: the test checks that Zed was killed in round 1, and
    # the game then goes on with Zed back whatever its target (a round to 123 happened at
    # target 100, before the kill; that now fails the test instead of passing unseen).
    # At 150 a first round seldom ends the game (once in three runs at 100, with 145), so
    # Zed back usually shuffles a new round too.
    host, port = _host(tmp_path, xdg, 150, "--players", "3", "--bots", "1",
                       "--bot-think", IN_ROUND_1_THINK, "--bot-output", str(tmp_path / "bots"))
    zed = Uno(["bot", "--think", IN_ROUND_1_THINK, "--address", f"127.0.0.1:{port}",
               "--player", "Zed"], xdg, tmp_path / "zed.out")
    back: Uno | None = None
    try:
        wait_entries((xdg, "Zed"), FAULT_AT)
        # A stranger's garbage on the side: refused by address; the table plays on.
        with socket.create_connection(("127.0.0.1", port)) as rogue:
            rogue.sendall(b"\x00\x00\x00\x04junk")
            time.sleep(0.2)
        zed.kill9()
        host.wait_for(r"Zed is out of reach", 30)
        host.wait_for(r"refused \(bad_handshake\)", 30)
        time.sleep(1.0)
        back = Uno(["join", "--resume", "--player", "Zed"], xdg, tmp_path / "zed-back.out")
        back.wait_for(r"Resuming Zed", 30)
        assert back.wait(400) == 0, back.text()[-3000:]
        assert host.wait(200) == 0, host.text()[-3000:]
    finally:
        for process in (host, zed, back):
            if process is not None:
                process.stop()
    said = host.text()
    assert "Zed is back" in said
    # Killed in round 1, which could not end without it.
    assert 0 <= said.find("Zed is out of reach") < said.find(ROUND_1_OVER), said[-3000:]
    assert "Audit: OK" in back.text()
    _all_agree(xdg)


#: The game with a cut link: the cut comes in round 1, and the game must outlast the idle
#: time-out, the 10 s of cut and Zed's redial in wall time (a link idle 6 s is lost, a
#: redial waits up to 8 s: net/link.py, net/meshcore.py).
#: Bots thinking 0 played a game to 400 for that: 21 rounds in one run, each costing every
#: peer its shuffle proofs (72 CPU-s). Bots that think make a game slow in wall time, not
#: in rounds (the host's seat thinks 0): at 0.2 s a first round once ended 5 s in, with 137
#: points, so 0.3 s; and 300, not 200, so that two such rounds in a row cannot end the
#: game before Zed is back (the test would fail, not pass unseen, but fail).
CUT_TARGET = 300
CUT_THINK = "0.3"
#: The cut is silent: Zed learns of it only when the link has been idle 6 s, and what
#: it sends meanwhile is lost in the link. Its one message in flight then reaches the
#: host through Bot 1 when Zed relays it, 5 s after sending it (``R``, table.md §6.2).
#: A turn timer under that times the move out first, and Zed, never told it was
#: dropped (a ``D`` is not forwarded, net.md §5.3), holds it in flight, signs nothing
#: new and waits for its link to the host, while the table waits for its shares of
#: the next card drawn: the table stands still through the cut (seen once, at 2 s).
#: The protocol promises to play on through Bot 1 only where the relay comes first.
CUT_TURN_TIMER = 20


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_link_cut_for_10_s_reconnects_by_itself(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    # Zed plays on through Bot 1 during the cut, at the bots' pace: the game must outlast
    # the idle time-out and the 10 s of cut, and Zed's link must come back before the end.
    host, port = _host(tmp_path, xdg, CUT_TARGET, "--players", "3", "--bots", "1",
                       "--bot-think", CUT_THINK, "--bot-output", str(tmp_path / "bots"),
                       turn_timer=CUT_TURN_TIMER)
    proxy = Proxy(port)
    zed = Uno(["bot", "--think", CUT_THINK, "--address", f"127.0.0.1:{proxy.port}",
               "--player", "Zed"], xdg, tmp_path / "zed.out")
    try:
        zed_log = wait_entries((xdg, "Zed"), FAULT_AT)
        proxy.cut.set()
        assert ROUND_1_OVER not in host.text(), "the cut came after round 1"
        host.wait_for(r"Zed \([0-9a-f-]+\) lost its link \((idle|closed)\)", 20)
        at_cut = len(entry_bytes(zed_log))
        time.sleep(10)
        # Zed's own link to the host is down, its link to the other joiner is not:
        # the entries come that way.
        assert len(entry_bytes(zed_log)) > at_cut, zed.text()[-3000:]
        proxy.cut.clear()
        assert zed.wait(400) == 0, zed.text()[-3000:]
        assert host.wait(200) == 0, host.text()[-3000:]
    finally:
        proxy.close()
        for process in (host, zed):
            process.stop()
    assert "lost the link to the host" in zed.text()
    said = host.text()
    assert "Zed is out of reach" in said
    # Zed's link was back before the game's end.
    assert 0 <= said.find("Zed is back") < said.find(GAME_OVER.partition(":")[0]), said[-3000:]
    assert "Audit: OK" in zed.text()
    _all_agree(xdg)


#: After the hand-over two seats play on, from nothing: the host's removal voids round 1,
#: and the leader of two gains some 14 points a round (22 rounds to 300 in one run). The
#: test checks that the kill came in play in round 1 (Ann removed in it, the round void),
#: so a first round that scores the target before the kill fails it: with two copies of
#: the suite beside each other (load 8-10) the kill once came after a first round had
#: scored 231 of 150, in the game's final reveal, which passed unseen then. Bots that
#: think a little (``IN_ROUND_1_THINK``) keep the kill in the first round (entries 30 to
#: 33 in two runs).
HANDED_OVER_TARGET = 100
#: A joiner killed and resumed before the host is killed: meanwhile its turns time out and
#: its hand grows, and the first round can end, once with 150 points for its winner (CI
#: once waited 90 s for a hand-over in a game that round 1 had already ended). The test
#: checks that the host was killed in round 1 (that round void), and round 2 cannot end
#: while the joiner is away again, so the target need only make a game that goes on.
RESUMED_TARGET = 100


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_host_killed_the_joiners_hand_over_and_finish(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    host, port = _host(tmp_path, xdg, HANDED_OVER_TARGET, "--players", "3")
    bots = [Uno(["bot", "--think", IN_ROUND_1_THINK, "--address", f"127.0.0.1:{port}",
                 "--player", name], xdg, tmp_path / f"{name}.out") for name in ("Yan", "Zed")]
    try:
        wait_entries((xdg, "Zed"), FAULT_AT)
        host.kill9()
        for bot in bots:
            assert bot.wait(600) == 0, bot.text()[-3000:]
    finally:
        for process in (host, *bots):
            process.stop()
    paths = {name: logs(xdg, name)[0] for name in ("Ann", "Yan", "Zed")}
    found = verdicts(paths.values(), xdg)
    seated = {name: found[paths[name]] for name in ("Yan", "Zed")}
    for bot in bots:
        text = bot.text()
        # On failure, what the bot printed last and what the audit found say which
        # peer stopped and why (a response time-out, the host-lost wait, the vote).
        why = f"{text[-3000:]}\n{seated}"
        assert HOST_GONE.partition(":")[0] not in text, why
        assert "Traceback" not in text, why
        assert "Audit: OK" in text, why
    yan, zed = (entry_bytes(logs(xdg, name)[0]) for name in ("Yan", "Zed"))
    assert yan == zed
    for verdict in seated.values():
        assert verdict["status"] == "ok", verdict
        assert len(verdict["handovers"]) == 1
        # The kill came in play in round 1: the removal voided that round, and the
        # game was played to its end after it.
        assert [(r["name"], r["round"]) for r in verdict["removed"]] == [("Ann", 1)]
        assert verdict["rounds"][0]["round"] == 1
        assert verdict["rounds"][0]["winner"] is None, verdict["rounds"]
        assert max(verdict["scores"]) >= HANDED_OVER_TARGET
    assert found[paths["Ann"]]["status"] == "unfinished"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_losing_the_host_of_two_stops_the_joiner_plainly(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    # Two members: one left is no majority (table.md §13.2), so no hand-over.
    host, port = _host(tmp_path, xdg, 500, "--players", "2")
    bot = Uno(["bot", "--think", "0", "--address", f"127.0.0.1:{port}", "--player", "Zed",
               "--give-up", "3"], xdg, tmp_path / "Zed.out")
    try:
        wait_entries((xdg, "Zed"), FAULT_AT)
        host.kill9()
        assert bot.wait(120) == 1, bot.text()[-3000:]
    finally:
        for process in (host, bot):
            process.stop()
    text = bot.text()
    assert HOST_GONE.partition("{seq}")[0] in text
    assert "Traceback" not in text
    assert "Audit: UNFINISHED" in text
    saved = [entry_bytes(p) for p in logs(xdg)]
    shortest = min(saved, key=len)
    assert all(s[:len(shortest)] == shortest for s in saved)  # one history, cut at the end
    for path in logs(xdg):
        verdict = json.loads(audit(path, xdg).stdout)
        assert verdict["status"] == "unfinished"
        assert verdict["violation"] is None


#: How long a resumed joiner that reaches nobody may take to stop, beyond ``--give-up 2``:
#: the interpreter's start, the log read and the peer rebuilt (measured: about 3 s).
RESUME_STOPS_S = 30


@pytest.mark.timeout(120)
def test_a_resumed_joiner_that_reaches_nobody_stops_after_its_give_up_time(
        tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    host, port = _host(tmp_path, xdg, 500, "--players", "2")
    zed = Uno(["bot", "--think", "0", "--address", f"127.0.0.1:{port}", "--player", "Zed"],
              xdg, tmp_path / "zed.out")
    back: Uno | None = None
    try:
        log = wait_entries((xdg, "Zed"), FAULT_AT)
        host.kill9()  # the whole table is gone: nobody will ever answer
        zed.kill9()
        seat = log.with_suffix(".seat")
        saved = seat.read_bytes()
        started = time.monotonic()
        back = Uno(["join", "--resume", "--player", "Zed", "--give-up", "2"], xdg,
                   tmp_path / "zed-back.out")
        code = back.wait(RESUME_STOPS_S)
        took = time.monotonic() - started
    finally:
        for process in (host, zed, back):
            if process is not None:
                process.stop()
    text = back.text()
    assert code == 1, text[-3000:]
    assert took >= 2, "it tried for its give-up time first"
    assert "Traceback" not in text
    assert f"uno-lan: nobody at the table answered in 2 s since Zed came back: the game " \
        f"may have ended or moved on; the seat is kept for another --resume, and its log " \
        f"is at {log} (uno-lan audit {log} checks it)." in text
    assert seat.read_bytes() == saved, "the seat file is left as it was, for a later --resume"


def _names(entries: Sequence[Entry]) -> dict[bytes, str]:
    return {e.author.key: e.message.body.name for e in entries if isinstance(e.message.body, Join)}


def _new_sequencer(xdg: Path, names: tuple[str, ...], seats: Sequence[Uno],
                   timeout: float = 90.0) -> str:
    """The name of whoever took over in a joiner's log, once a hand-over is logged."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in (p for name in names for p in logs(xdg, name)):
            with contextlib.suppress(Exception):
                entries = read_log(path).entries
                for entry in entries:
                    if isinstance(entry.message.body, Handover):
                        return _names(entries)[entry.message.body.new.key]
        time.sleep(0.5)
    raise AssertionError(f"no hand-over logged within {timeout} s\n{_where(xdg, names, seats)}")


def _where(xdg: Path, names: tuple[str, ...], seats: Sequence[Uno]) -> str:
    """Each log's length and last entries, and each seat's last words: what a failed
    wait on a table of real processes needs to be understood afterwards."""
    lines = []
    for path in (p for name in names for p in logs(xdg, name)):
        with contextlib.suppress(Exception):
            entries = read_log(path).entries
            last = ", ".join(type(e.message.body).__name__ for e in entries[-8:])
            lines.append(f"{path.name}: {len(entries)} entries, last: {last}")
    for seat in seats:
        alive = "running" if seat.process.poll() is None else f"exit {seat.process.returncode}"
        lines.append(f"--- {seat.out.name} ({alive}):\n{seat.text()[-1500:]}")
    return "\n".join(lines)


def _kill_and_resume(victim: Uno, name: str, xdg: Path, out: Path) -> Uno:
    """SIGKILL a joiner and ``join --resume`` it; it is back once its log grows again."""
    log = logs(xdg, name)[0]
    wait_entries((xdg, name), len(entry_bytes(log)) + 3)
    victim.kill9()
    at_kill = len(entry_bytes(log))
    time.sleep(1.0)
    back = Uno(["join", "--resume", "--player", name], xdg, out)
    back.wait_for(f"Resuming {name}", 30)
    wait_entries((xdg, name), at_kill + 3, timeout=60)
    return back


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_joiner_killed_after_a_hand_over_resumes_at_the_new_sequencer(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    # Four seats: after the host is gone and one joiner is away, two of the three left
    # are still a majority, and the table is still worth coming back to.
    host, port = _host(tmp_path, xdg, RESUMED_TARGET, "--players", "4")
    names = ("Xia", "Yan", "Zed")
    bots = {name: Uno(["bot", "--think", IN_ROUND_1_THINK, "--address", f"127.0.0.1:{port}",
                       "--player", name], xdg, tmp_path / f"{name}.out") for name in names}
    first: Uno | None = None
    back: Uno | None = None
    try:
        log = wait_entries((xdg, "Zed"), FAULT_AT)
        # The last to join sits last: never the next seat after the host's, so never
        # the new sequencer (table.md §13.1).
        victim = list(_names(read_log(log).entries).values())[-1]
        # Killed and resumed while the host is alive: it learns the members' addresses
        # again, and must keep them for its next resume.
        first = _kill_and_resume(bots[victim], victim, xdg, tmp_path / "first.out")
        assert host.process.poll() is None, f"the game ended before its host was killed:\n" \
            f"{_where(xdg, names, [host, *bots.values(), first])}"
        host.kill9()
        sequencer = _new_sequencer(xdg, names, [host, *bots.values(), first])
        assert sequencer != victim
        # Killed again after the hand-over: the host's address is dead now.
        back = _kill_and_resume(first, victim, xdg, tmp_path / "back.out")
        assert back.wait(600) == 0, back.text()[-3000:]
        for name in names:
            if name != victim:
                assert bots[name].wait(200) == 0, bots[name].text()[-3000:]
    finally:
        for process in (host, *bots.values(), first, back):
            if process is not None:
                process.stop()
    assert "Audit: OK" in back.text(), back.text()[-3000:]
    assert f"linked to {sequencer}, who keeps the table going," in back.text(), \
        back.text()[-3000:]
    survivors = [logs(xdg, name)[0] for name in names]
    first_log = entry_bytes(survivors[0])
    for path, verdict in verdicts(survivors, xdg).items():
        assert entry_bytes(path) == first_log, f"{path.name} differs"
        assert verdict["status"] == "ok", verdict
        assert len(verdict["handovers"]) == 1
        # The host was killed in play in round 1: its removal voided that round.
        assert [(r["name"], r["round"]) for r in verdict["removed"]] == [("Ann", 1)]
        assert verdict["rounds"][0]["winner"] is None, verdict["rounds"]

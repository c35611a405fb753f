"""A peer's watch on the sequencer (``SequencerWatch``, table.md §6.1-§6.2), through
the part's own API: the ``clock`` it holds back and for how long, what it gives
back, which relayed messages it passes on, and the censorship it names."""

from __future__ import annotations

from tests.audit.test_fault_codes import BOB, CY, FIRST_MOVE, HOST, LOG, forge
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.actions import TimeOut
from uno_p2p.table.bodies import Clock, Move
from uno_p2p.table.frames import FRAME_RELAY, frame
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.replay import replay
from uno_p2p.table.watch import Held, SequencerWatch, Watched
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.limits import CLOCK_DOUBT_MS, CLOCK_TOLERANCE_MS, RELAY_AFTER_MS
from uno_p2p.wire.lobby import Ready

TABLE = bytes(16)
SEQ = Identity(b"\x01" * 32)
ME = Identity(b"\x02" * 32)
HEAD = Head.genesis(TABLE)
STATE = replay(LOG[:FIRST_MOVE]).state


def _seen(now_ms: int, *, stopped: bool = False, hosting: bool = False) -> Watched:
    return Watched(STATE, SEQ.peer, ME.peer, now_ms, hosting, stopped)


def _clock(seq: int, table_ms: int) -> Entry:
    return Entry.countersign(SEQ, seq, bytes(32),
                             Message.sign(SEQ, TABLE, seq, HEAD, Clock(table_ms)))


def _ahead() -> tuple[SequencerWatch, Entry]:
    """A watch that logged our message sent at 1,000 ms (our clock), then a clock of
    table time 0 that came at 2,000 ms; and a clock that says 60 s passed while 1 s
    passed here: 59 s more than the two bounds allow, past ``CLOCK_TOLERANCE_MS``."""
    watch = SequencerWatch()
    ours = Message.sign(ME, TABLE, 0, HEAD, Ready(True))
    watch.sending(ours, 1_000)
    watch.logged(Entry.countersign(SEQ, 1, bytes(32), ours))
    assert watch.hold(_clock(2, 0), 2_000, _seen(2_000)) is None
    return watch, _clock(3, 60_000)


def test_a_clock_within_the_tolerance_is_taken() -> None:
    watch, _ = _ahead()
    fair = _clock(3, 1_000 + CLOCK_TOLERANCE_MS)  # at most the tolerance ahead
    assert watch.hold(fair, 3_000, _seen(3_000)) is None
    assert watch.doubted is None


def test_a_clock_that_gains_on_ours_is_held_and_said_once() -> None:
    watch, ahead = _ahead()
    held = watch.hold(ahead, 3_000, _seen(3_000))
    assert isinstance(held, Held)
    assert held.said is not None
    assert "clock runs ahead of this machine's" in held.said.what
    assert watch.doubted is not None
    assert watch.doubted.entry == ahead
    assert watch.hold(ahead, 3_500, _seen(3_500)) == Held(), "held again, said once"
    assert watch.hold(_clock(4, 60_001), 3_500, _seen(3_500)) is None, \
        "only the doubted entry is held here; the peer applies nothing after it meanwhile"


def test_the_doubted_clock_is_given_back_after_clock_doubt_ms_and_measured_afresh() -> None:
    watch, ahead = _ahead()
    watch.hold(ahead, 3_000, _seen(3_000))
    assert watch.deadline(_seen(3_000)) == 3_000 + CLOCK_DOUBT_MS
    assert watch.trust_due(_seen(3_000 + CLOCK_DOUBT_MS - 1)) is None
    assert watch.deadline(_seen(3_000, stopped=True)) is None
    assert watch.trust_due(_seen(3_000 + CLOCK_DOUBT_MS, stopped=True)) is None, \
        "a stopped peer takes nothing"
    assert watch.trust_due(_seen(3_000 + CLOCK_DOUBT_MS)) == ahead
    assert (watch.doubted, watch.deadline(_seen(20_000))) == (None, None)
    assert watch.trust_due(_seen(20_000)) is None, "given back once"
    # The bounds were forgotten: the same clock is now taken.
    assert watch.hold(ahead, 20_000, _seen(20_000)) is None


def test_an_entry_at_or_after_the_doubted_place_ends_the_doubt() -> None:
    watch, ahead = _ahead()
    watch.hold(ahead, 3_000, _seen(3_000))
    watch.logged(_clock(2, 0))
    assert watch.doubted is not None, "an entry before it"
    watch.logged(_clock(3, 0))
    assert watch.doubted is None


def test_a_new_term_watches_afresh_and_keeps_the_doubt_to_its_place() -> None:
    watch, ahead = _ahead()
    watch.hold(ahead, 3_000, _seen(3_000))
    old = watch.clock, watch.censorship
    watch.new_term()
    assert watch.clock is not old[0]
    assert watch.censorship is not old[1]
    assert (watch.clock.lower, watch.clock.upper, watch.clock.sent) == (None, None, {})
    assert watch.doubted is not None


def test_our_unlogged_message_is_shown_to_every_other_seat() -> None:
    message = Message.sign(ME, TABLE, 0, HEAD, Ready(True))
    relay = frame(FRAME_RELAY, message.encode())
    watch = SequencerWatch()
    shown = watch.show(message, Watched(STATE, SEQ.peer, HOST, 0))
    assert [(out.to, out.data) for out in shown] == [((BOB, CY), relay)]
    alone = Watched(replay(LOG[:1]).state, SEQ.peer, HOST, 0)
    assert watch.show(message, alone) == [], "nobody else seated"


def _ledger() -> Ledger:
    """Bob's log up to the first move, which Cy has signed but is not logged yet."""
    ledger = Ledger(LOG[0].message.table_id, HOST, BOB.key,
                    version=LOG[0].message.version)
    for entry in LOG[:FIRST_MOVE]:
        ledger.accept(entry)
    return ledger


def test_a_relayed_message_is_kept_and_passed_on_to_the_sequencer_once() -> None:
    ledger, cys = _ledger(), LOG[FIRST_MOVE].message
    seen = Watched(ledger.state, HOST, BOB, 1_000)
    watch = SequencerWatch()
    assert [(o.to, o.data) for o in watch.hear_relay(cys, ledger, seen)] == \
        [((HOST,), frame(FRAME_RELAY, cys.encode()))]
    assert watch.hear_relay(cys, ledger, seen) == [], "once"
    assert watch.relayed_ms(ledger.chain.next_counter) == (1_000,)
    hosting = SequencerWatch()
    assert hosting.hear_relay(cys, ledger, Watched(ledger.state, HOST, BOB, 1_000,
                                                   hosting=True)) == []
    assert hosting.censorship.relayed[CY.key].message == cys, "kept by the sequencer too"
    ledger.accept(LOG[FIRST_MOVE])
    assert watch.relayed_ms(ledger.chain.next_counter) == (), "logged: owed no more"


def test_a_time_out_of_a_member_whose_message_we_were_shown_in_time_is_censorship() -> None:
    ledger, cys = _ledger(), LOG[FIRST_MOVE].message
    timed_out = forge(LOG, FIRST_MOVE, 0, Move(TimeOut(2)))[-1]
    counter = ledger.chain.next_counter(timed_out.author)
    for came, named in ((1_000, True), (1_000 + 1, False)):
        watch = SequencerWatch()
        watch.hear_relay(cys, ledger, Watched(ledger.state, HOST, BOB, came))
        censored = watch.censored(timed_out, ledger.state, counter, 1_000 + RELAY_AFTER_MS)
        if not named:
            assert censored is None, "shown less than RELAY_AFTER_MS before: proves nothing"
            continue
        assert censored is not None
        assert censored.evidence == (cys, timed_out)
        assert "did not answer" in censored.reason
        assert censored.reason.endswith(f"shown to us at entry {FIRST_MOVE}")
        assert watch.relayed_ms(ledger.chain.next_counter) == (), "evidence used once"

"""Who is in reach, who dials whom, and when the sequencer counts as gone, on the mesh's
sans-IO core and the injected clock (net.md §5.3, §6; table.md §13.1, §14.1).

``MeshCore`` is driven with plain values and its actions are checked. Times are
the node's clock in ms (``now_ms``): fifteen seconds pass here in no time, which
no test could do if the core read a clock of its own.
"""

from __future__ import annotations

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.net.meshcore import (
    LINKED,
    AskAround,
    Back,
    Backoff,
    Dial,
    GiveUp,
    Lost,
    MeshCore,
    Rejoin,
    Resync,
    SequencerGone,
    Standing,
)
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import pack
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS

ANN, BOB, CY, DI = (Identity(bytes([i]) * 32).peer for i in (1, 2, 3, 4))
T0 = 1_700_000_000_000
#: net.md §6: a joiner gives up 30 s after the hand-over time-out.
GIVE_UP_MS = 30_000


def standing(me: PeerId, phase: TablePhase = TablePhase.PLAYING, *, sequencer: PeerId = ANN,
             counted_lost: frozenset[bytes] = frozenset(), stopped: bool = False,
             finished: bool = False) -> Standing:
    """A table of four that joined in the order Ann, Bob, Cy, Di (Ann the sequencer)."""
    return Standing(me=me, members=(ANN, BOB, CY, DI), sequencer=sequencer, phase=phase,
                    counted_lost=counted_lost, stopped=stopped, finished=finished)


def test_a_member_out_of_reach_is_lost_and_back_when_in_reach() -> None:
    """net.md §5.3 "In reach": a link, or a linked member whose last ``k`` lists it."""
    core, table = MeshCore(dials=False), standing(ANN)
    for member in (BOB, CY, DI):
        core.link_up(member.key, table)
    core.hear(BOB.key, LINKED + pack([CY.key]), table, T0)
    assert Lost(CY) not in core.link_down(CY.key, table)  # Bob still reaches Cy
    lost = core.link_down(BOB.key, table)
    assert [a for a in lost if isinstance(a, Lost)] == [Lost(BOB), Lost(CY)]
    assert core.judge(table) == []  # told once
    _, back = core.link_up(CY.key, table)
    assert [a for a in back if isinstance(a, Back | Lost)] == [Back(CY)]


def test_a_member_the_sequencer_counts_lost_is_back_once_in_reach() -> None:
    """The sequencer may hold a member lost that the mesh never reported (a hand-over
    made it gone, table.md §14.1): once in reach it is told back."""
    core = MeshCore(dials=False)
    _, actions = core.link_up(DI.key, standing(BOB, sequencer=BOB, counted_lost=frozenset(
        {DI.key})))
    assert Back(DI) in actions


def test_a_new_sequencer_learns_afresh_who_is_out_of_reach() -> None:
    """table.md §13: after a hand-over, what the old sequencer was told is no news to
    the new one."""
    core = MeshCore(dials=False)
    _, first = core.link_up(CY.key, standing(BOB))
    assert Lost(DI) in first
    assert core.judge(standing(BOB)) == []
    assert core.judge(standing(BOB, sequencer=BOB)) == [Lost(ANN), Lost(DI)]


def test_nobody_is_judged_outside_a_live_game_nor_by_a_finished_node() -> None:
    core = MeshCore(dials=False)
    assert core.judge(standing(ANN, TablePhase.LOBBY)) == []
    assert core.judge(standing(ANN, TablePhase.ENDED)) == []
    assert core.judge(standing(ANN, finished=True)) == []
    assert core.judge(None) == []


def test_the_sequencer_out_of_reach_is_gone_after_the_hand_over_time_out() -> None:
    """net.md §5.3, §6: out of reach by every path for ``HOST_LOST_AFTER_MS`` (15 s) on
    the node's clock, the sequencer is gone, once per absence; 30 s later still out of
    reach, the node gives up (no hand-over could be made)."""
    core, table = MeshCore(dials=True, give_up_ms=GIVE_UP_MS), standing(CY)
    core.link_up(BOB.key, table)
    assert core.tick(table, T0) == [AskAround()]  # the absence starts now
    assert not [a for a in core.tick(table, T0 + HOST_LOST_AFTER_MS - 1)
                if isinstance(a, SequencerGone)]
    assert SequencerGone(ANN) in core.tick(table, T0 + HOST_LOST_AFTER_MS)
    assert not [a for a in core.tick(table, T0 + HOST_LOST_AFTER_MS + GIVE_UP_MS - 1)
                if isinstance(a, SequencerGone | GiveUp)]
    assert GiveUp() in core.tick(table, T0 + HOST_LOST_AFTER_MS + GIVE_UP_MS)


def test_the_sequencer_in_reach_through_a_member_is_not_gone_and_its_count_restarts() -> None:
    core, table = MeshCore(dials=False), standing(CY)
    core.link_up(BOB.key, table)
    core.tick(table, T0)
    core.hear(BOB.key, LINKED + pack([ANN.key]), table, T0 + 10_000)  # Bob reaches Ann
    assert not any(isinstance(a, SequencerGone) for a in core.tick(table, T0 + 16_000))
    core.link_down(BOB.key, table)
    core.link_up(DI.key, table)  # Di's ``k`` has not come: Ann out of reach again
    core.tick(table, T0 + 17_000)
    assert not any(isinstance(a, SequencerGone) for a in core.tick(table, T0 + 31_999))
    assert SequencerGone(ANN) in core.tick(table, T0 + 32_000)


def test_a_lobby_whose_host_is_gone_holds_no_vote_and_gives_up() -> None:
    """Only a started game is worth a hand-over: a joiner in the lobby gives up."""
    core, table = MeshCore(dials=False, give_up_ms=GIVE_UP_MS), standing(BOB, TablePhase.LOBBY)
    core.tick(table, T0)
    assert core.tick(table, T0 + HOST_LOST_AFTER_MS) == []
    assert core.tick(table, T0 + HOST_LOST_AFTER_MS + GIVE_UP_MS) == [GiveUp()]


def test_the_sequencer_never_holds_itself_gone() -> None:
    core, table = MeshCore(dials=False, give_up_ms=GIVE_UP_MS), standing(ANN)
    assert core.tick(table, T0) == [Lost(BOB), Lost(CY), Lost(DI)]
    assert not [a for a in core.tick(table, T0 + 10 * HOST_LOST_AFTER_MS)
                if isinstance(a, SequencerGone)]


def test_a_sequencer_that_reaches_nobody_gives_up_when_the_others_would_have() -> None:
    """net.md §6, table.md §6.3: the sequencer with no other member in reach holds its
    time-outs; once the others would have handed the table on and given up (the
    hand-over time-out plus the give-up time), nobody comes back: the node gives up.
    One member in reach, even through another, restarts the count."""
    core, table = MeshCore(dials=False, give_up_ms=GIVE_UP_MS), standing(ANN)
    alone = HOST_LOST_AFTER_MS + GIVE_UP_MS
    core.tick(table, T0)
    assert GiveUp() not in core.tick(table, T0 + alone - 1)
    core.link_up(BOB.key, table)
    assert GiveUp() not in core.tick(table, T0 + alone)
    core.link_down(BOB.key, table)
    core.tick(table, T0 + alone + 1)
    assert GiveUp() not in core.tick(table, T0 + 2 * alone)
    assert GiveUp() in core.tick(table, T0 + 2 * alone + 1)
    # A joiner's count is the sequencer's absence, not this one.
    joiner = MeshCore(dials=True, give_up_ms=GIVE_UP_MS)
    joiner.link_up(ANN.key, standing(BOB))
    joiner.tick(standing(BOB), T0)
    assert GiveUp() not in joiner.tick(standing(BOB), T0 + 10 * alone)


def test_the_later_member_dials_the_earlier_and_everyone_has_its_own_link_to_the_host() -> None:
    """net.md §5.3 "Who dials whom": by joining order; the host's link is the node's own."""
    di = MeshCore(dials=True)
    assert di.judge(standing(DI, TablePhase.LOBBY)) == [Dial(BOB), Dial(CY)]
    assert di.judge(standing(DI, TablePhase.LOBBY)) == []  # once: a dialer keeps its link
    assert MeshCore(dials=True).judge(standing(BOB, TablePhase.LOBBY)) == []
    assert MeshCore(dials=False).judge(standing(ANN, TablePhase.LOBBY)) == []


def test_cut_off_from_the_sequencer_a_joiner_asks_the_members_it_reaches() -> None:
    """net.md §5.3: the broken link may have lost the last entries, and a table that
    waits on us for them sends no later entry that would show the gap."""
    core, table = MeshCore(dials=False), standing(BOB)
    core.link_up(ANN.key, table)
    core.link_up(CY.key, table)
    assert AskAround() not in core.tick(table, T0)  # linked to the sequencer
    core.link_down(ANN.key, table)
    assert AskAround() in core.tick(table, T0 + 1)
    assert AskAround() not in core.tick(table, T0 + GAP_FILL_AFTER_MS)  # not before 1 s
    assert AskAround() in core.tick(table, T0 + 1 + GAP_FILL_AFTER_MS)
    core.link_down(CY.key, table)
    assert AskAround() not in core.tick(table, T0 + 10 * GAP_FILL_AFTER_MS)  # nobody to ask


def test_a_node_that_was_cut_off_rejoins_and_a_new_link_to_the_sequencer_resyncs() -> None:
    """net.md §5.3 "Catching up": no link at all, then one: ask every member (rejoin); a
    new link to the sequencer: ask it (resync); to another member: nothing to ask."""
    core, table = MeshCore(dials=False), standing(BOB)
    first, _ = core.link_up(CY.key, table)
    assert not first  # its very first link: nothing was missed
    core.link_down(CY.key, table)
    cut_off, _ = core.link_up(DI.key, table)
    assert cut_off
    assert core.catch_up(DI.key, cut_off, table) == [Rejoin()]
    again, _ = core.link_up(ANN.key, table)
    assert core.catch_up(ANN.key, again, table) == [Resync()]
    assert core.catch_up(CY.key, False, table) == []
    assert core.catch_up(ANN.key, True, standing(BOB, stopped=True)) == []


def test_a_link_that_keeps_failing_is_dialed_later_and_later() -> None:
    """net.md §6: after a link that failed within 10 s, wait 0.5 s, doubling up to 8 s;
    after one that worked 10 s or more, dial again at once."""
    backoff = Backoff()
    assert [backoff.after(0.1) for _ in range(7)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert backoff.after(10.0) == 0.0
    assert backoff.after(9.9) == 0.5

"""Heavy work named by the core and done ahead (net.md §7.1) changes nothing in the log.

A shell checks each frame's proofs of shuffle and re-executions before
``receive`` and computes the peer's heavy duties itself. The in-memory
network does the same in line (``Network(offload=True)``), so the outcome can
be compared byte for byte with the peers doing everything themselves: the
same seeds give the same log, and a cheat is named with the same code, the
same culprit, by the same peers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from tests.table import adversaries as adv
from uno_p2p.crypto import shares
from uno_p2p.crypto.audit import REEXECUTED, ReexecutionStatement
from uno_p2p.crypto.proofs import verify_dleq
from uno_p2p.crypto.shares import VERIFIED_SHARES, ShareStatement
from uno_p2p.crypto.shuffle import ShuffleMessage
from uno_p2p.crypto.shuffle_proof import VERIFIED, ShuffleStatement, verified_key
from uno_p2p.net import verify
from uno_p2p.net.verify import check_own as check_own_statements
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import RevealSecrets, Shares, ShuffleDeck
from uno_p2p.table.duties import PROVEN_TURNS, ProvenTurns, waiting_for
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE
from uno_p2p.table.game import table_key
from uno_p2p.table.ledger import apply_entry
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.offload import (
    ASKED,
    DutyDesk,
    DutyJob,
    HeadStarts,
    Statement,
    body_statements,
    few_shares,
    frame_turn_ahead,
    head_start,
    heavy_duty,
    next_round_turn,
    next_shuffler_after,
    reveal_statements,
    shuffle_statement,
)
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.replay import replay
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState
from uno_p2p.wire.envelope import Entry, Message

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_offload")]


@pytest.fixture(autouse=True)
def empty_memos() -> Iterator[None]:
    """Every game starts with nothing checked, as a fresh process."""
    for memo in (VERIFIED, REEXECUTED, VERIFIED_SHARES):
        memo.clear()
    yield
    for memo in (VERIFIED, REEXECUTED, VERIFIED_SHARES):
        memo.clear()


def play(offload: bool, custom: dict[int, type[TablePeer]] | None = None,
         players: int = 3, target: int = 20) -> Network:
    for memo in (VERIFIED, REEXECUTED, VERIFIED_SHARES):
        memo.clear()
    setup = TableSetup(players, preset("official", [f"target={target}"]), b"offload",
                       offload=offload)
    net = seat_table(setup, custom=custom)
    net.run(until=game_over)
    return net


@pytest.fixture(scope="module")
def two_seats() -> Network:
    """One whole game of two seats to 10, played in line, for the tests that only read
    its log and its peers' secrets (each computes what it checks itself)."""
    return play(offload=False, players=2, target=10)


@pytest.fixture(scope="module")
def three_seats() -> Network:
    """As ``two_seats``, with three seats."""
    return play(offload=False, players=3, target=10)


def log_bytes(net: Network) -> list[bytes]:
    return [entry.encode() for entry in net.entries()]


def faults(net: Network) -> list[tuple[bytes, str, bytes | None]]:
    return [(key, e.code, None if e.peer is None else e.peer.key)
            for key, e in net.all_events() if isinstance(e, PeerMisbehaved)]


def test_the_same_seeds_give_the_same_log_with_the_work_done_ahead() -> None:
    inline, ahead = play(offload=False), play(offload=True)
    assert inline.checked_ahead == 0
    # Every proof of shuffle and every reveal's re-execution was checked ahead.
    shuffles = sum(isinstance(e.body, ShuffleDeck) for e in ahead.entries())
    reveals = sum(isinstance(e.body, RevealSecrets) for e in ahead.entries())
    assert shuffles >= 6
    assert reveals == 3
    assert ahead.checked_ahead >= shuffles
    assert log_bytes(ahead) == log_bytes(inline)
    assert all(p.stopped is None for p in ahead.peers.values())
    assert len({tuple(p.ledger.digests) for p in ahead.peers.values()}) == 1
    result = replay(ahead.entries())
    assert result.violation is None
    assert result.audit == ""  # every shuffle re-executed clean


@pytest.mark.parametrize("cheat", [adv.StacksTheDeck, adv.DishonestShuffler])
def test_a_cheat_checked_ahead_is_named_exactly_as_in_line(cheat: type[TablePeer]) -> None:
    """A statement that fails ahead is not recorded: the ledger checks it again and
    names the same culprit with the same code (bad_shuffle on arrival, or
    dishonest_shuffle at the cheater's own reveal)."""
    inline = play(offload=False, custom={2: cheat})
    ahead = play(offload=True, custom={2: cheat})
    named = faults(inline)
    assert named, "the cheat is named"
    assert faults(ahead) == named
    assert log_bytes(ahead) == log_bytes(inline)


def _dealt(net: Network) -> bool:
    game = net.host.state.engine
    return game is not None and game.round >= 1 and game.phase == Phase.PLAYING


def test_a_turn_made_ahead_is_the_turn_sent_and_the_log_is_unchanged() -> None:
    """issue 28: a seat proves its shuffle turn on the deck that has arrived while that
    deck's proof is checked (here before ``receive``, as a node's duty worker does
    beside its check worker); the accepted state that asks for the turn finds it, so
    no turn is proven twice, and the log is the same bytes as without."""
    setup = TableSetup(3, preset("official", ["target=20"]), b"offload")
    plain = seat_table(setup)
    plain.run(until=_dealt)
    net = seat_table(setup)
    made, used, ahead = PROVEN_TURNS.made, PROVEN_TURNS.used, 0
    for _ in range(100_000):
        if _dealt(net):
            break
        if net.queue:
            _, to, data = net.queue[0]
            peer = net.peers[to]
            turn = frame_turn_ahead(peer.state, data, peer.secrets, sequencer=peer.is_host)
            if turn is not None:
                turn.run()
                ahead += 1
        net.step()
    shuffles = sum(isinstance(e.body, ShuffleDeck) for e in net.entries())
    assert shuffles == 6  # the dealer draw's and the round's joint shuffles, 3 turns each
    assert ahead == 4  # every turn but each deck's first follows another seat's
    assert PROVEN_TURNS.used - used == ahead
    assert PROVEN_TURNS.made - made == shuffles  # none made twice
    assert log_bytes(net) == log_bytes(plain)


def _first_shuffle(net: Network) -> tuple[int, ShuffleDeck, bytes]:
    entry = next(e for e in net.entries() if isinstance(e.body, ShuffleDeck))
    assert isinstance(entry.body, ShuffleDeck)
    return entry.seq, entry.body, entry.author.key



def _first_shuffle_duty(net: Network) -> tuple[TableState, int, TablePeer, ShuffleDeck]:
    """The table just before the game's first shuffle, the shuffler's seat and peer,
    and the body it logged."""
    seq, body, author = _first_shuffle(net)
    before = net.host.ledger.state_at(seq)
    assert before is not None
    seat = before.seat_of(author)
    assert seat is not None
    return before, seat, net.peers[author], body

def test_a_statement_is_keyed_as_the_ledger_keys_it_and_a_forgery_never_verifies(
        two_seats: Network) -> None:
    net = two_seats
    seq, body, author = _first_shuffle(net)
    before = net.host.ledger.state_at(seq)
    assert before is not None
    statement = shuffle_statement(before, author, body)
    assert statement is not None
    key = statement.check()
    assert key is not None
    assert key == statement.key()
    deck = before.decks[body.shuffle]
    message = ShuffleMessage.from_wire(list(body.ciphertexts), peer=None)
    assert key == verified_key(deck.ciphertexts, message.ciphertexts, body.proof,
                               table_key(before), statement.context())
    # One flipped byte of the proof, another shuffler, a swapped card: none verifies.
    proof = bytearray(body.proof)
    proof[-1] ^= 1
    swapped = (body.ciphertexts[1], body.ciphertexts[0], *body.ciphertexts[2:])
    for forged in (replace(statement, proof=bytes(proof)),
                   replace(statement, shuffler=bytes(32)),
                   replace(statement, shuffled=swapped),
                   replace(statement, proof=b"")):
        assert isinstance(forged, ShuffleStatement)
        assert forged.check() is None


def test_a_reveal_names_every_shuffle_of_its_seat_and_a_wrong_seed_fails(
        two_seats: Network) -> None:
    net = two_seats
    entry = next(e for e in net.entries() if isinstance(e.body, RevealSecrets))
    assert isinstance(entry.body, RevealSecrets)
    before = net.host.ledger.state_at(entry.seq)
    assert before is not None
    statements = reveal_statements(before, entry.author.key, entry.body)
    seat = before.seat_of(entry.author.key)
    made = sum(d.done.count(seat) for d in before.decks[before.void_decks:])
    assert len(statements) == made >= 2
    assert body_statements(before, entry.author.key, entry.body) == statements
    for statement in statements:
        assert isinstance(statement, ReexecutionStatement)
        assert statement.check() == statement.key()
        assert replace(statement, shuffle_master=bytes(32)).check() is None


def test_what_the_ledger_refuses_before_a_proof_costs_no_check(two_seats: Network) -> None:
    """net.md §7.1 item 1: the worker checks only what the ledger would check. A member
    can send the sequencer any message; one it refuses before the proof (a turn out of
    turn, shares nobody owes, a reveal made already) must not cost a proof of shuffle
    (90 ms), a re-execution of every shuffle of the seat, or a share proof per item of
    a batch the size of a frame."""
    net = two_seats
    entries = net.entries()
    history = net.host.ledger
    seq, turn, shuffler = _first_shuffle(net)
    before = history.state_at(seq)
    assert before is not None
    other = other_seat(before, shuffler)
    assert len(body_statements(before, shuffler, turn)) == 1
    assert body_statements(before, other, turn) == (), "not its turn"
    with pytest.raises(Misbehaviour) as refused:
        apply_entry(before, replace_author(entries[seq], net.peers[other]))
    assert refused.value.code == "out_of_turn"

    deal, batch, before, shares = _shares_and_state(net, more_than=3)
    owed = len(shares)
    assert owed == len(batch.items)
    # A batch holds at most 216 items (wire.md §5.4, kind 66): every item again, owed once.
    flood = Shares(batch.items * (216 // len(batch.items)))
    assert len(body_statements(before, deal.author.key, flood)) == owed
    assert body_statements(before, other_seat(before, deal.author.key), batch) == ()

    reveal = next(e for e in entries if isinstance(e.body, RevealSecrets))
    after = history.state_at(reveal.seq + 1)
    assert after is not None
    assert body_statements(after, reveal.author.key, reveal.body) == (), "revealed already"


def test_a_drawn_card_s_shares_are_few_and_a_deal_s_or_a_proof_of_shuffle_are_not(
        two_seats: Network) -> None:
    """net.md §7.1 item 1: the node checks a few share proofs on its loop (at most 4)."""
    net = two_seats
    _, _, _, shares = _shares_and_state(net, more_than=4)
    assert all(isinstance(s, ShareStatement) for s in shares)
    assert [few_shares(shares[:n]) for n in (1, 4, 5)] == [True, True, False]
    seq, turn, shuffler = _first_shuffle(net)
    at_turn = net.host.ledger.state_at(seq)
    assert at_turn is not None
    proof = body_statements(at_turn, shuffler, turn)
    assert few_shares((*shares[:1], *proof)) is False
    assert few_shares(proof) is False


def _shares_and_state(net: Network, more_than: int
                      ) -> tuple[Entry, Shares, TableState, tuple[Statement, ...]]:
    """The game's first batch of more than ``more_than`` shares (its entry and body), the
    state it met, and the statements the ledger checks for it there."""
    entry = next(e for e in net.entries()
                 if isinstance(e.body, Shares) and len(e.body.items) > more_than)
    assert isinstance(entry.body, Shares)
    before = net.host.ledger.state_at(entry.seq)
    assert before is not None
    return entry, entry.body, before, body_statements(before, entry.author.key, entry.body)


def other_seat(ts: TableState, key: bytes) -> bytes:
    return next(s.key for s in ts.seats if s.key != key)


def replace_author(entry: Entry, peer: TablePeer) -> Entry:
    """``entry``'s body, signed by ``peer`` and placed by nobody in particular: what
    ``apply_entry`` judges is the body and its author."""
    message = Message.sign(peer.identity, entry.message.table_id, entry.message.counter,
                           entry.message.head, entry.body)
    return Entry(entry.seq, entry.prev_hash, message, entry.countersignature)


def test_a_batch_of_shares_checked_ahead_is_not_checked_again(
        monkeypatch: pytest.MonkeyPatch, three_seats: Network) -> None:
    net = three_seats
    entry, batch, before, statements = _shares_and_state(net, more_than=1)
    assert len(statements) == len(batch.items)
    checks: list[object] = []

    def counted(*args: Any, **kwargs: Any) -> None:
        checks.append(args)
        verify_dleq(*args, **kwargs)

    monkeypatch.setattr(shares, "verify_dleq", counted)
    VERIFIED_SHARES.clear()
    apply_entry(before, entry)
    assert len(checks) == len(statements), "inline, the ledger checks every share"
    for statement in statements:
        assert isinstance(statement, ShareStatement)
        key = statement.check()
        assert key == statement.key()
        assert key is not None
        VERIFIED_SHARES.add(key)
        proof = bytearray(statement.proof)
        proof[0] ^= 1
        assert replace(statement, proof=bytes(proof)).check() is None
        assert replace(statement, public=statement.c1).check() is None  # another key
    checks.clear()
    apply_entry(before, entry)
    assert checks == [], "checked ahead, the ledger finds every share in the memo"


def test_a_duty_job_names_the_checks_of_the_body_it_made(two_seats: Network) -> None:
    """net.md §7.1 item 3: the shell runs a seat's heavy duty "with the checks of the
    seat's own statements": the job's statements for its body are exactly those the
    ledger will check for it (a proven shuffle: its proof of shuffle), and they hold;
    a duty of nothing has nothing to check. The body is the one the seat logged, byte
    for byte."""
    net = two_seats
    before, seat, peer, body = _first_shuffle_duty(net)
    job = DutyJob(before, peer.secrets, seat, peer.channel_seed)
    made = job.run()
    assert made == body
    statements = job.statements(made)
    assert len(statements) == 1
    assert statements == body_statements(before, peer.peer_id.key, body)
    assert isinstance(statements[0], ShuffleStatement)
    assert statements[0].check() == statements[0].key()
    assert job.statements(None) == ()


def test_a_seat_that_owes_its_reveal_has_heavy_work_and_none_once_it_revealed(
        two_seats: Network) -> None:
    """net.md §7.1 item 3: a seat's reveal is heavy work (cheap to make, but the
    sequencer re-executes every shuffle of the seat when it arrives), so it goes to
    the shell while the seat owes it; once logged, the seat owes nothing more."""
    net = two_seats
    entries = net.entries()
    reveals = [e.seq for e in entries if isinstance(e.body, RevealSecrets)]
    assert len(reveals) == 2, "both seats revealed at the game's end"
    history = net.host.ledger
    opened = history.state_at(reveals[0])
    assert opened is not None
    assert opened.phase == TablePhase.REVEALING
    assert opened.reveals_expected == {0, 1}
    first = opened.seat_of(entries[reveals[0]].author.key)
    assert first is not None
    assert [heavy_duty(opened, s) for s in (0, 1)] == [True, True], "both owe it"
    halfway = history.state_at(reveals[0] + 1)
    assert halfway is not None
    assert halfway.phase == TablePhase.REVEALING
    assert heavy_duty(halfway, first) is False, "revealed: nothing more to do"
    assert heavy_duty(halfway, 1 - first) is True, "the other seat still owes it"


def test_a_draw_s_share_is_light_work_and_a_deal_or_a_turn_is_not(two_seats: Network) -> None:
    """net.md §7.1 item 3: a seat's few shares (one card drawn, RULES.md "Drawing") are
    made beside its shuffle turns, not behind them; a hand's worth (seven cards dealt)
    and a proven turn are the heavy work the duty worker keeps."""
    net = two_seats
    history = net.host.ledger
    light: dict[str, set[bool]] = {"one card": set(), "a hand": set()}
    for entry in net.entries():
        if not isinstance(entry.body, Shares):
            continue
        before = history.state_at(entry.seq)
        assert before is not None
        seat = before.seat_of(entry.author.key)
        assert seat is not None
        peer = net.peers[entry.author.key]
        job = DutyJob(before, peer.secrets, seat, peer.channel_seed)
        assert job.run() == entry.body, "the job of the state that logged this body"
        cards = len(entry.body.items)
        if cards == 1 or cards >= 7:
            light["one card" if cards == 1 else "a hand"].add(job.light)
    assert light == {"one card": {True}, "a hand": {False}}
    before, seat, peer, _ = _first_shuffle_duty(net)
    assert DutyJob(before, peer.secrets, seat, peer.channel_seed).light is False


def test_a_heavy_duty_is_asked_of_the_shell_once_per_state(two_seats: Network) -> None:
    """net.md §7.1 item 3 (``DutyDesk``): each state's heavy duty is handed to the shell
    once; asking again in the same state waits for that job instead of handing out a
    second, and the body the shell sends back is used in that state only."""
    net = two_seats
    before, seat, peer, body = _first_shuffle_duty(net)
    assert heavy_duty(before, seat)
    desk = DutyDesk()
    desk.offload = True
    assert desk.next(before, peer.secrets, seat, peer.channel_seed) is ASKED
    job = desk.take()
    assert job is not None
    assert desk.next(before, peer.secrets, seat, peer.channel_seed) is ASKED
    assert desk.take() is None, "asked once for this state"
    desk.done(job, job.run(), before)
    assert desk.next(before, peer.secrets, seat, peer.channel_seed) == body


def _turns_sent(sent: list[tuple[bytes, Message]]) -> list[Message]:
    return [m for _, m in sent if isinstance(m.body, ShuffleDeck)]


def _watching(net_of: dict[str, Network], sent: list[tuple[bytes, Message]],
              accepted: list[int]) -> Any:
    """A tamper hook that keeps every message a seat sends the sequencer, and the number
    of entries its own log had accepted when it sent a shuffle turn."""
    def watch(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        net = net_of.get("net")  # None while the table is seated: to the host alone
        if data[:1] == FRAME_MESSAGE and (net is None or recipient == net.host.peer_id.key):
            message = Message.decode(data[1:])
            sent.append((sender, message))
            if isinstance(message.body, ShuffleDeck):
                accepted.append(net_of["net"].peers[sender].state.seq)
        return [data]
    return watch


def test_a_joiner_sends_its_turn_before_the_turn_it_follows_is_checked() -> None:
    """issue 28 (deck.md §6.3, "What may overlap"): as a node does it (the turn made
    ahead beside the check, ``Network(offload=True)``), a joiner whose turn follows
    another seat's sends it while its own log has not accepted that turn (its proof
    not checked yet), signed at the head it would name once it has; the log is the
    same bytes as without."""
    setup = TableSetup(3, preset("official", ["target=20"]), b"offload")
    plain = seat_table(setup)
    plain.run(until=_dealt)
    net_of: dict[str, Network] = {}
    sent: list[tuple[bytes, Message]] = []
    accepted: list[int] = []
    net = seat_table(replace(setup, offload=True), _watching(net_of, sent, accepted))
    net_of["net"] = net
    net.run(until=_dealt)
    turns = _turns_sent(sent)
    # The host (seat 0) shuffles first and logs its turn; seats 1 and 2 follow, twice.
    assert len(turns) == 4
    assert net.sent_ahead == 4
    assert [m.head.seen for m in turns] == [seq + 1 for seq in accepted]
    assert log_bytes(net) == log_bytes(plain)


def test_a_joiners_turn_goes_to_the_next_shuffler_too_which_makes_its_turn_on_it() -> None:
    """issue 28 (deck.md §6.3, "A head start"): seat 1's turn also goes straight to
    seat 2, which shuffles next, and seat 2 makes its turn on it while the sequencer
    checks it. The turns before a joiner's go to no one else: the host's own turn is
    logged at once, and a turn followed by the host's needs no head start. No turn is
    made twice, and the log is the same bytes as without."""
    setup = TableSetup(3, preset("official", ["target=20"]), b"offload")
    plain = seat_table(setup)
    plain.run(until=_dealt)
    messages: list[tuple[bytes, bytes]] = []

    def watch(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        if data[:1] == FRAME_MESSAGE:
            messages.append((sender, recipient))
        return [data]

    made, used = PROVEN_TURNS.made, PROVEN_TURNS.used
    net = seat_table(replace(setup, offload=True), watch)
    net.run(until=_dealt)
    seats = net.host.state.seats
    direct = [(s, r) for s, r in messages if r != seats[0].key]
    assert direct == [(seats[1].key, seats[2].key)] * 2  # the draw's deck, the round's
    assert net.head_starts == 2
    assert PROVEN_TURNS.made - made == 6  # 2 decks of 3 turns, none made twice
    assert PROVEN_TURNS.used - used == 4  # every turn that follows a seat's
    assert log_bytes(net) == log_bytes(plain)


def test_the_next_rounds_first_turn_is_made_while_the_round_is_played() -> None:
    """issue 28 (deck.md §6.3, "The next round's first turn"): seat 0 shuffles a round's
    deck first, on an input known in advance, so it makes that turn while the round
    before is played; the turn it then sends is the one made then, and the log is the
    same bytes as without. Nothing is made while the table still owes work."""
    setup = TableSetup(2, preset("official", ["target=500"]), b"next round")

    def second_round_dealt(net: Network) -> bool:
        game = net.host.state.engine
        return game is not None and game.round >= 2 and game.phase == Phase.PLAYING

    plain = seat_table(setup)
    plain.run(until=second_round_dealt, max_steps=200_000)
    used = PROVEN_TURNS.used
    net = seat_table(replace(setup, offload=True))
    seen: list[tuple[int, bool, bool, int, bool]] = []

    def watch(n: Network) -> bool:
        host = n.host
        joiner = next(p for p in n.peers.values() if not p.is_host)
        turn = next_round_turn(host.state, host.secrets)
        game = host.state.engine
        if turn is not None and game is not None:
            seen.append((turn.round_number, not waiting_for(host.state),
                         game.phase == Phase.PLAYING, min(len(h) for h in game.hands),
                         next_round_turn(joiner.state, joiner.secrets) is None))
        return second_round_dealt(n)

    net.run(until=watch, max_steps=200_000)
    assert net.next_rounds >= 1
    assert {s[0] for s in seen} >= {2}, "round 2's first turn while round 1 was played"
    # Only while a player decides, a hand holds one card or none, nobody owes work, and
    # only at seat 0.
    assert all(idle and playing and fewest <= 1 and not_joiner
               for _, idle, playing, fewest, not_joiner in seen)
    # Every turn that follows another seat's was found made (sent ahead), and so was seat
    # 0's first turn of round 2, made while round 1 was played.
    turns: dict[int, int] = {}
    for entry in net.entries():
        if isinstance(entry.body, ShuffleDeck):
            turns[entry.body.shuffle] = turns.get(entry.body.shuffle, 0) + 1
    assert PROVEN_TURNS.used - used == sum(n - 1 for n in turns.values()) + 1
    assert log_bytes(net) == log_bytes(plain)
    joiner = next(p for p in net.peers.values() if not p.is_host)
    assert next_round_turn(joiner.state, joiner.secrets) is None, "only seat 0's"


def test_a_head_start_is_taken_only_from_its_author_for_the_next_turn_once() -> None:
    """What a member can make a seat spend through head starts (net.md §6.1): only the
    shuffler's own turn, from its own link, for the place right before this seat's,
    once per place."""
    setup = TableSetup(4, preset("official", ["target=20"]), b"offload")
    sent: list[tuple[bytes, bytes, bytes]] = []

    def keep(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        sent.append((sender, recipient, data))
        return [data]

    net = seat_table(replace(setup, offload=True), keep)
    net.run(until=lambda n: any(d[:1] == FRAME_MESSAGE and r != n.host.peer_id.key
                                for _, r, d in sent))
    author, recipient, data = next((s, r, d) for s, r, d in sent
                                   if d[:1] == FRAME_MESSAGE and r != net.host.peer_id.key)
    peers = net.peers
    ts = peers[recipient].state
    turn = head_start(ts, data, peers[recipient].secrets, author)
    assert turn is not None
    seat = ts.seat_of(recipient)
    deck = ts.decks[turn.deck]
    assert (*deck.done, *deck.shufflers).index(seat) == turn.turn
    # Another member's link, another seat, a frame that is no turn: nothing.
    other = next(k for k in peers if k not in (author, recipient))
    assert head_start(ts, data, peers[recipient].secrets, other) is None
    assert head_start(peers[other].state, data, peers[other].secrets, author) is None
    assert head_start(ts, FRAME_ENTRY + data[1:], peers[recipient].secrets, author) is None
    assert head_start(ts, data[:40], peers[recipient].secrets, author) is None
    # A message of the author's that is no turn, and a deck the table does not hold.
    other_message = next(d for s, _, d in sent if s == author and d[:1] == FRAME_MESSAGE
                         and not isinstance(Message.decode(d[1:]).body, ShuffleDeck))
    assert head_start(ts, other_message, peers[recipient].secrets, author) is None
    assert next_shuffler_after(ts, author, len(ts.decks)) is None
    assert next_shuffler_after(ts, author, turn.deck) == seat
    # Once per place: a second copy (or another turn for the same place) is refused;
    # the last KEEP places are remembered, the oldest forgotten first.
    taken = HeadStarts()
    assert taken.first(turn)
    assert not taken.first(turn)
    for number in range(1, HeadStarts.KEEP + 1):
        assert taken.first(replace(turn, deck=turn.deck + number))
    assert taken.first(turn), "the oldest place is forgotten"
    assert not taken.first(replace(turn, deck=turn.deck + HeadStarts.KEEP)), "the newest kept"
    assert not taken.first(replace(turn, deck=turn.deck + 2)), "and the ones before it"
    # Once the turn is accepted, its head start has no place left.
    net.run(until=lambda n: n.peers[recipient].state.decks[turn.deck].done[-1:] ==
            (ts.seat_of(author),))
    later = peers[recipient].state
    assert head_start(later, data, peers[recipient].secrets, author) is None


def test_a_bad_turn_is_convicted_after_the_next_turn_went_ahead_and_no_share_left() -> None:
    """issue 28: the host logs its own first turn with a broken proof, unchecked. Seat 1,
    next, sends its turn before checking that proof; the check then fails and seat 1
    (and seat 2) name the host with ``bad_shuffle``, exactly as when nothing is sent
    ahead, and no seat ever gives a share: no card of the deck can open."""
    runs = {}
    for offload in (False, True):
        setup = TableSetup(3, preset("official", ["target=20"]), b"offload", offload=offload)
        net_of: dict[str, Network] = {}
        sent: list[tuple[bytes, Message]] = []
        accepted: list[int] = []
        net = seat_table(setup, _watching(net_of, sent, accepted),
                         custom={0: adv.LogsBadShuffle})
        net_of["net"] = net
        joiners = [p for p in net.peers.values() if not p.is_host]

        def stopped(_: Network, joiners: list[TablePeer] = joiners) -> bool:
            return all(p.stopped is not None for p in joiners)

        net.run(until=stopped, max_steps=20_000)
        runs[offload] = net
        host = net.host.peer_id
        assert [(p.stopped.code, p.stopped.peer) for p in joiners if p.stopped] == \
            [("bad_shuffle", host.fingerprint)] * 2
        assert not any(isinstance(m.body, Shares) for _, m in sent)
        assert not any(p.state.decks[0].ready for p in joiners)
        if offload:
            turns = _turns_sent(sent)
            assert len(turns) == 1, "seat 1's turn went ahead of its check"
            assert net.sent_ahead == 1
            assert turns[0].head.seen == accepted[0] + 1
    assert faults(runs[True]) == faults(runs[False])
    assert [(k, c, p) for k, c, p in faults(runs[True]) if c == "bad_shuffle"] == [
        (p.peer_id.key, "bad_shuffle", runs[True].host.peer_id.key)
        for p in runs[True].peers.values() if not p.is_host]


def test_a_turn_its_maker_made_is_not_checked_by_it_and_any_other_turn_is(
        monkeypatch: pytest.MonkeyPatch, three_seats: Network) -> None:
    """issue 28 (net.md §7.1 item 3): a node records its own proven turn without
    checking it when this process's honest prover made it (``PROVEN_TURNS.made_here``:
    the proof's completeness), with the memo key the ledger will look for; the same
    turn in a process that did not make it is checked, and a turn whose proof was
    altered after it was made is checked and fails."""
    net = three_seats
    shuffles = [e for e in net.entries() if isinstance(e.body, ShuffleDeck)]
    second = shuffles[1]  # seat 1's turn of deck 0
    after = net.host.ledger.state_at(second.seq)
    assert after is not None
    follower = net.peers[second.author.key]
    checks: list[ShuffleStatement] = []
    real = ShuffleStatement.check

    def counted(statement: ShuffleStatement) -> bytes | None:
        checks.append(statement)
        return real(statement)

    monkeypatch.setattr(ShuffleStatement, "check", counted)
    job = DutyJob(after, follower.secrets, 1, follower.channel_seed)
    body = job.run()
    assert body == second.body, "the turn made here is the one logged"
    statements = job.statements(body)
    turn = [s for s in statements if isinstance(s, ShuffleStatement)]
    assert len(turn) == 1
    assert PROVEN_TURNS.made_here(turn[0].key())
    keys = check_own_statements(statements)
    assert [k for _, k in keys] == [s.key() for s in statements]
    assert checks == [], "the maker checked its own turn"

    monkeypatch.setattr(verify, "PROVEN_TURNS", ProvenTurns())  # another process
    keys = check_own_statements(statements)
    assert [k for _, k in keys] == [s.key() for s in statements]
    assert checks == turn

    checks.clear()
    monkeypatch.setattr(verify, "PROVEN_TURNS", PROVEN_TURNS)
    altered = replace(turn[0], proof=turn[0].proof[:-1] + bytes([turn[0].proof[-1] ^ 1]))
    assert check_own_statements([altered]) == []
    assert checks == [altered]


def test_a_leave_signed_while_a_turn_sent_ahead_is_in_flight_is_logged() -> None:
    """A joiner of two sends its turn ahead of the entry before it (signed at the head
    after that entry, deck.md §6.3), then leaves before it has accepted that entry: its
    reveal is signed at the in-flight turn's head, not at its log's (an author's view
    never goes back, wire.md §4.1). Signed at the log's head it was dropped as
    ``head_regressed``, and the host, alone, waited for the player who had gone."""
    net = seat_table(TableSetup(2, preset("official"), b"leave-ahead"))
    joiner = next(p for p in net.peers.values() if not p.is_host)
    key = joiner.peer_id.key

    def joiner_turn_next(net: Network) -> bool:
        if not net.queue or net.queue[0][1] != key:
            return False
        turn = frame_turn_ahead(joiner.state, net.queue[0][2], joiner.secrets,
                                sequencer=False)
        return turn is not None and turn.entry is not None

    net.run(until=joiner_turn_next)
    turn = frame_turn_ahead(joiner.state, net.queue[0][2], joiner.secrets, sequencer=False)
    assert turn is not None
    assert turn.entry is not None
    turn.run()
    assert joiner.send_turn_ahead(turn.entry), "the turn goes out ahead"
    assert joiner.leaving_stops_the_game()
    joiner.leave("left the table")
    net.flush(joiner)
    net.run(until=lambda n: n.host.state.phase in (TablePhase.REVEALING, TablePhase.ENDED),
            max_steps=200)
    logged = [e for e in net.entries() if e.author.key == key]
    assert isinstance(logged[-2].body, ShuffleDeck)
    assert isinstance(logged[-1].body, RevealSecrets), "the leave is logged"
    assert logged[-1].message.head.seen == logged[-2].message.head.seen

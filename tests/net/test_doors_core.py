"""The doors' decisions without sockets, on an injected clock (net.md §4, §5.2, §6.1):
the rules whose timing a socket test cannot wait for (a lock-out doubling over
minutes, memory bounded over a thousand addresses)."""

from __future__ import annotations

from uno_p2p.net.doors import (
    GUESS_WINDOW_S,
    LOCK_MAX_S,
    MAX_SOURCES,
    SOURCE_GUESSES,
    SYNC_BURST,
    SYNC_EVERY_S,
    TABLE_GUESSES,
    CodeGuesses,
    HandshakeSlots,
    Strangers,
    SyncAllowance,
    source_of,
)


def spend(guesses: CodeGuesses, source: str, now: float) -> int:
    """Guesses ``source`` gets at ``now`` before it is refused."""
    got = 0
    while guesses.guess(source, now) is not None:
        got += 1
    return got


def test_an_address_is_locked_out_for_a_window_then_twice_as_long_each_time() -> None:
    guesses = CodeGuesses()
    assert spend(guesses, "10.0.0.9", 0.0) == SOURCE_GUESSES
    assert guesses.refusal("10.0.0.9", GUESS_WINDOW_S - 1) is not None
    assert spend(guesses, "10.0.0.9", GUESS_WINDOW_S + 1) == SOURCE_GUESSES
    # the second lock-out lasts two windows
    assert guesses.refusal("10.0.0.9", GUESS_WINDOW_S + 1 + 2 * GUESS_WINDOW_S - 1) is not None
    assert guesses.refusal("10.0.0.9", GUESS_WINDOW_S + 1 + 2 * GUESS_WINDOW_S + 1) is None


def test_a_lock_out_never_lasts_more_than_an_hour() -> None:
    guesses, now = CodeGuesses(), 0.0
    for _ in range(12):
        spend(guesses, "10.0.0.9", now)
        while guesses.refusal("10.0.0.9", now) is not None:
            now += 10.0
    spend(guesses, "10.0.0.9", now)
    assert guesses.refusal("10.0.0.9", now + LOCK_MAX_S + 1) is None


def test_the_table_takes_five_guesses_a_window_from_any_number_of_addresses() -> None:
    guesses = CodeGuesses()
    got = sum(spend(guesses, f"10.0.{n}.1", 0.0) for n in range(100))
    assert got == TABLE_GUESSES
    assert sum(spend(guesses, f"10.1.{n}.1", GUESS_WINDOW_S + 1) for n in range(100)) == \
        TABLE_GUESSES


def test_an_address_that_proved_the_code_is_never_locked_out() -> None:
    guesses = CodeGuesses()
    attempt = guesses.guess("10.0.0.3", 0.0)
    assert attempt is not None
    guesses.proved(attempt)
    spend(guesses, "10.0.0.2", 1.0)
    spend(guesses, "10.0.0.4", 1.0)
    assert guesses.refusal("10.0.0.5", 1.0) is not None
    assert guesses.refusal("10.0.0.3", 1.0) is None
    assert guesses.guess("10.0.0.3", 1.0) is not None  # never refused, never counted
    assert guesses.table_guesses(1.0) == TABLE_GUESSES


def test_a_thousand_addresses_cost_a_bounded_memory() -> None:
    guesses = CodeGuesses()
    for n in range(3 * MAX_SOURCES):
        guesses.guess(f"10.{n // 256}.{n % 256}.1", GUESS_WINDOW_S * 2 * n)
    assert len(guesses) <= MAX_SOURCES


def test_slots_per_address_and_the_greediest_evicted() -> None:
    slots = HandshakeSlots(per_source=2, most=4)
    first = slots.take("a", 0.0).slot
    assert slots.take("a", 1.0).slot is not None
    assert slots.take("a", 2.0).slot is None  # its share
    assert slots.take("b", 3.0).slot is not None
    assert slots.take("c", 4.0).slot is not None
    full = slots.take("d", 5.0)  # the node is full: "a" holds most, its oldest goes
    assert full.slot is not None
    assert full.evict == first
    assert len(slots) == 4


def test_sync_requests_burst_then_one_a_second() -> None:
    allowance = SyncAllowance()
    assert sum(allowance.allows(b"k", 0.0) for _ in range(10)) == SYNC_BURST
    assert allowance.allows(b"k", SYNC_EVERY_S)
    assert not allowance.allows(b"k", SYNC_EVERY_S)
    assert allowance.allows(b"other", SYNC_EVERY_S)


def test_the_idlest_stranger_is_closed_first() -> None:
    strangers = Strangers(most=2)
    assert strangers.linked(b"s1", 0.0, frozenset()) == []
    assert strangers.linked(b"s2", 1.0, frozenset()) == []
    strangers.heard(b"s1", 2.0)
    assert strangers.linked(b"s3", 3.0, frozenset()) == [b"s2"]
    assert strangers.linked(b"s4", 4.0, frozenset({b"s1"})) == []  # s1 joined


def test_an_ipv6_machine_counts_as_its_prefix() -> None:
    assert source_of(("fe80::1:2:3:4%eth0", 1, 0, 2)) == source_of(("fe80::9", 1, 0, 2)) \
        == "fe80::/64"
    assert source_of(("::ffff:10.0.0.7", 1, 0, 0)) == "10.0.0.7"
    assert source_of(("10.0.0.7", 1)) == "10.0.0.7"

"""The group layer: what a peer's bytes must be to get in, and the hashes' framing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.cards import CARD_COUNT, UnknownCard, card_of, card_point, card_points
from uno_p2p.crypto.context import VerifiedStatements
from uno_p2p.crypto.group import (
    IDENTITY,
    OPS,
    VALID_POINTS,
    G,
    InvalidPoint,
    InvalidScalar,
    L,
    Point,
    Scalar,
    base_mul,
    frame,
    hash_to_scalar,
)
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

#: The point of order 2, (0, -1): y = p - 1.
ORDER_TWO = bytes.fromhex("ec" + "ff" * 30 + "7f")
#: A point of order 8 (from libsodium's small-order list).
ORDER_EIGHT = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
#: y = p + 1: a non-canonical encoding (of y = 1, the identity's y).
NON_CANONICAL = bytes.fromhex("ee" + "ff" * 30 + "7f")


def test_a_valid_point_comes_in() -> None:
    point = base_mul(Scalar(12345))
    assert Point.from_wire(point.data, peer="p", item="x") == point


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (IDENTITY.data, "identity (small order)"),
        (ORDER_TWO, "order 2"),
        (ORDER_EIGHT, "order 8"),
        (NON_CANONICAL, "non-canonical"),
        (bytes(32), "order 4 (y = 0)"),
    ],
)
def test_bad_points_are_refused_naming_peer_and_item(raw: bytes, why: str) -> None:
    with pytest.raises(InvalidPoint) as caught:
        Point.from_wire(raw, peer="mallory", item="share for position 3")
    assert caught.value.peer == "mallory", why
    assert caught.value.item == "share for position 3"


def test_a_point_with_a_torsion_component_is_refused() -> None:
    """libsodium's add checks nothing: P + T is on the curve but off the subgroup."""
    from nacl.bindings import crypto_core_ed25519_add

    mixed = crypto_core_ed25519_add(base_mul(Scalar(7)).data, ORDER_TWO)
    with pytest.raises(InvalidPoint):
        Point.from_wire(mixed, peer="mallory", item="c1")


def test_points_off_the_curve_are_refused() -> None:
    # y = 2 gives x^2 = 3 / (4d + 1), which is not a square mod p.
    off_curve = (2).to_bytes(32, "little")
    with pytest.raises(InvalidPoint):
        Point.from_wire(off_curve, peer="m", item="c2")


def test_a_point_is_checked_once_per_process_and_a_bad_one_every_time() -> None:
    """deck.md §1: every point a peer sends is checked; the memo (group.VALID_POINTS) only
    spares checking the same valid bytes again, and never lets a bad one through."""
    VALID_POINTS.clear()
    valid = base_mul(Scalar(424242)).data
    mixed_in = bytes.fromhex("ee" + "ff" * 30 + "7f")
    OPS.reset()
    for _ in range(3):
        assert Point.from_wire(valid, peer="p", item="x").data == valid
        with pytest.raises(InvalidPoint):
            Point.from_wire(mixed_in, peer="mallory", item="c1")
    assert OPS.validations == 1 + 3, "the valid point once, the bad one each time"
    VALID_POINTS.enabled = False
    try:
        Point.from_wire(valid, peer="p", item="x")
    finally:
        VALID_POINTS.enabled = True
    assert OPS.validations == 5, "switched off (the benchmarks), every decode checks"


def test_the_point_memo_is_bounded_oldest_first() -> None:
    memo = VerifiedStatements(size=3)
    points = [base_mul(Scalar(n)).data for n in range(1, 6)]
    for raw in points:
        memo.add(raw)
    assert [raw in memo for raw in points] == [False, False, True, True, True]
    memo.clear()
    assert not any(raw in memo for raw in points)


def test_the_point_memo_takes_writes_from_several_threads_at_once() -> None:
    """The network shell decodes on its loop and in two worker threads; the memo has no
    lock (the pure layer takes none): racing writers never raise, and it stays bounded."""
    import sys
    import threading

    memo = VerifiedStatements(size=8)
    keys = [bytes([n % 256, n // 256]) * 16 for n in range(4 * 2_000)]
    failures: list[BaseException] = []

    def write(part: list[bytes]) -> None:
        try:
            for raw in part:
                memo.add(raw)
        except BaseException as error:  # reported below
            failures.append(error)

    writers = [threading.Thread(target=write, args=(keys[i::4],)) for i in range(4)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython can: races show
    try:
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(30)
    finally:
        sys.setswitchinterval(switch)
    assert failures == []
    assert sum(raw in memo for raw in keys) <= 8 + len(writers)


@pytest.mark.parametrize("raw", [b"", bytes(31), bytes(33), "00" * 32, 5, None, [bytes(32)]])
def test_wrong_shapes_are_invalid_messages(raw: object) -> None:
    with pytest.raises(InvalidMessage):
        Point.from_wire(raw, peer="m", item="p")
    with pytest.raises(InvalidMessage):
        Scalar.from_wire(raw, peer="m", item="s")


#: Every point of small order (libsodium's list: orders 1, 2, 4, 8), canonical encodings.
SMALL_ORDER = [
    IDENTITY.data, ORDER_TWO, ORDER_EIGHT, bytes(32),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    bytes(31) + b"\x80",  # (0, 1) with the sign bit set: x = 0 "negative", non-canonical
]
P = 2**255 - 19


@st.composite
def candidate_points(draw: st.DrawFn) -> tuple[bytes, bool]:
    """32 bytes a peer might send, and whether the group layer must let them in.

    Every kind reaches a different check: subgroup points (in), the same plus a
    torsion point (off the subgroup), small-order points, non-canonical y (p <= y <
    2^255), and random bytes (mostly off the curve; decided by the subgroup test).
    """
    from nacl.bindings import crypto_core_ed25519_add

    kind = draw(st.sampled_from(["subgroup", "torsion", "small", "non_canonical", "random"]))
    k = draw(st.integers(1, L - 1))
    if kind == "subgroup":
        return base_mul(Scalar(k)).data, True
    if kind == "torsion":
        return crypto_core_ed25519_add(base_mul(Scalar(k)).data,
                                       draw(st.sampled_from(SMALL_ORDER[1:3]))), False
    if kind == "small":
        return draw(st.sampled_from(SMALL_ORDER)), False
    if kind == "non_canonical":
        y = draw(st.integers(P, 2**255 - 1))
        sign = draw(st.sampled_from([0, 1 << 255]))
        return (y | sign).to_bytes(32, "little"), False
    raw = draw(st.binary(min_size=32, max_size=32))
    return raw, None  # type: ignore[return-value]


@settings(max_examples=150, deadline=None)
@given(candidate_points())
def test_only_canonical_subgroup_points_come_in(candidate: tuple[bytes, bool | None]) -> None:
    raw, good = candidate
    refused: InvalidPoint | None = None
    try:
        point = Point.from_wire(raw, peer="fuzz", item="p")
    except InvalidPoint as error:
        refused = error
    if refused is not None:
        assert good is not True, "a valid subgroup point was refused"
        assert (refused.peer, refused.item) == ("fuzz", "p")
        return
    assert good is not False, f"{raw.hex()} came in"
    assert point.data == raw  # canonical: the bytes are the point's own encoding
    assert point * Scalar(L - 1) == IDENTITY - point  # L·P = O, so (L-1)·P = -P
    assert point != IDENTITY


def test_scalars_must_be_canonical() -> None:
    assert Scalar.from_wire((L - 1).to_bytes(32, "little"), peer="p", item="s").value == L - 1
    for bad in (L, L + 1, 2**256 - 1):
        with pytest.raises(InvalidScalar) as caught:
            Scalar.from_wire(bad.to_bytes(32, "little"), peer="eve", item="proof response")
        assert caught.value.peer == "eve"
        assert isinstance(caught.value, CryptoError)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, L - 1), st.integers(0, L - 1))
def test_scalar_arithmetic_matches_the_group(a: int, b: int) -> None:
    sa, sb = Scalar(a), Scalar(b)
    assert base_mul(sa + sb) == base_mul(sa) + base_mul(sb)
    assert base_mul(sa * sb) == base_mul(sa) * sb
    assert base_mul(sa - sb) == base_mul(sa) - base_mul(sb)


def test_zero_times_anything_is_the_identity() -> None:
    assert base_mul(Scalar(0)) == IDENTITY
    assert G * Scalar(0) == IDENTITY
    assert IDENTITY * Scalar(5) == IDENTITY


def test_framing_is_unambiguous() -> None:
    assert frame("x", b"ab", b"c") != frame("x", b"a", b"bc")
    assert frame("x", 1) != frame("x", b"\x00" * 7 + b"\x01", b"")
    assert hash_to_scalar("a", b"") != hash_to_scalar("b", b"")


def test_scalars_never_print_their_value() -> None:
    assert "12345" not in repr(Scalar(12345))


def test_card_points_are_distinct_valid_and_map_back() -> None:
    points = card_points()
    assert len(points) == CARD_COUNT
    assert len({point.data for point in points}) == CARD_COUNT
    for card, point in enumerate(points):
        assert Point.from_wire(point.data, peer=None, item="card") == point
        assert card_of(point) == card
    assert card_point(107) == points[107]


def test_a_point_that_is_no_card_is_an_error_not_a_guess() -> None:
    with pytest.raises(UnknownCard):
        card_of(G, item="card at position 4")


@pytest.mark.parametrize("bad", [-1, 108, True, "3"])
def test_card_ids_are_checked(bad: object) -> None:
    with pytest.raises(LocalProtocolError):
        card_point(bad)  # type: ignore[arg-type]


def test_a_scalar_out_of_range_is_refused_saying_why() -> None:
    with pytest.raises(LocalProtocolError) as caught:
        Scalar(L)
    assert "modulo L" in str(caught.value)


def test_the_operation_counters_start_again_from_zero() -> None:
    OPS.reset()
    assert OPS.snapshot() == {"mul": 0, "base_mul": 0, "add": 0, "validate": 0}
    _ = G + G
    _ = G + G
    assert OPS.snapshot()["add"] == 2
    OPS.reset()
    _ = G + G
    assert OPS.snapshot() == {"mul": 0, "base_mul": 0, "add": 1, "validate": 0}

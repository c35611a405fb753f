"""Pure rendering: from a seat's view to prompt-toolkit formatted text.

Nothing here touches a terminal, so tests render a view and read the text.
A *line* is a list of ``(style, text)`` fragments; a *block* a list of lines;
``to_text`` joins a block into the formatted text a ``Window`` shows. Only
what the view knows is drawn: opponents' cards are backs and counts.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from uno_p2p.rules import PRESETS, Options, Phase, Rank, Slot, State, preset
from uno_p2p.rules.cards import colour_of, rank_of
from uno_p2p.rules.state import required
from uno_p2p.ui.theme import COLOUR_CLASSES, card_label, colour_class, colour_word

Line = list[tuple[str, str]]
Block = list[Line]

TILE = 6          # a hand card's width
TILE_GAP = 1
BIG_W, BIG_H = 13, 5
BACKS_SHOWN = 12  # card backs drawn per opponent before "+"
#: The word on the raised edge of a card that can be played now, in colour or not.
PLAYABLE = "play"


@dataclass(frozen=True, slots=True)
class Seats:
    """Who is who: every name by seat, and the reader's own seat."""

    names: tuple[str, ...]
    me: int

    def who(self, seat: int) -> str:
        return "You" if seat == self.me else self.names[seat]


# -- small helpers ----------------------------------------------------------------------------
def width_of(line: Line) -> int:
    """Terminal columns a line takes."""
    return sum(get_cwidth(text) for _, text in line)


def pad(line: Line, width: int, style: str = "") -> Line:
    """``line`` padded (or cut) to exactly ``width`` columns."""
    out: Line = []
    used = 0
    for frag_style, text in line:
        room = width - used
        if room <= 0:
            break
        if get_cwidth(text) > room:
            text = _cut(text, room)
        out.append((frag_style, text))
        used += get_cwidth(text)
    if used < width:
        out.append((style, " " * (width - used)))
    return out


def _cut(text: str, room: int) -> str:
    out = ""
    for char in text:
        if get_cwidth(out + char) > room - 1:
            return out + "…"
        out += char
    return out


def side_by_side(parts: Sequence[tuple[Block, int]], gap: int = 2) -> Block:
    """Blocks placed left to right, each padded to its width."""
    height = max((len(block) for block, _ in parts), default=0)
    rows: Block = []
    for i in range(height):
        row: Line = []
        for n, (block, width) in enumerate(parts):
            if n:
                row.append(("", " " * gap))
            row.extend(pad(block[i] if i < len(block) else [], width))
        rows.append(row)
    return rows


def to_text(block: Block) -> StyleAndTextTuples:
    """A block as formatted text, one line per row."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(block):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def plain_text(block: Block) -> str:
    """The characters of a block without styles (tests, logs)."""
    return "\n".join("".join(text for _, text in line) for line in block)


def card_style(card: int, plain: bool) -> str:
    return "" if plain else f"class:card.{colour_class(card)}"


def tile(card: int, plain: bool, width: int = TILE) -> Line:
    """One card as a coloured tile; Wild letters painted in the four colours."""
    label = card_label(card, plain).center(width)
    if plain or card < 100:
        return [(card_style(card, plain) or "reverse", label)]
    return [(f"class:card.wild class:ink.{COLOUR_CLASSES[i % 4]}", ch)
            for i, ch in enumerate(label)]


# -- the table --------------------------------------------------------------------------------
def header(view: State, seats: Seats, width: int) -> Block:
    """Title bar: round, rules in force, target, and the reader's score."""
    options = view.options
    rules = rules_label(options)
    left = f" uno-lan · round {max(view.round, 1)} · {rules}"
    unit = "chips" if options.scoring == "chips" else "pts"
    right = f"first to {options.target} · you {view.scores[seats.me]} {unit} "
    room = max(0, width - get_cwidth(right))
    return [[*pad([("class:header", left)], room, "class:header"), ("class:header", right)]]


def rules_label(options: Options) -> str:
    """The nearest preset's name plus what differs from it: ``house + target=200``."""
    best, changes = "official", options.describe()
    for name in PRESETS:
        base = preset(name)
        diff = [f"{n}={str(getattr(options, n)).lower()}" for n in options.NAMES
                if getattr(options, n) != getattr(base, n)]
        if len(diff) < len(changes):
            best, changes = name, diff
    return f"{best} rules" + (f" + {', '.join(changes)}" if changes else "")


def play_order(view: State, me: int) -> list[int]:
    """Everyone else, in seating order clockwise from the reader."""
    order = view.order
    start = order.index(me)
    return [order[(start + i) % len(order)] for i in range(1, len(order))]


def player_line(view: State, seats: Seats, seat: int, name_width: int) -> Line:
    """``▶ Bot 2   ▮▮▮▮▮ 5   UNO!   120 pts  dealer``."""
    turn = seat == view.decider()
    count = len(view.hands[seat])
    line: Line = [("class:turn", "▶ " if turn else "  "),
                  ("class:turn" if turn else "", seats.names[seat].ljust(name_width)), ("", " ")]
    shown = "▮" * min(count, BACKS_SHOWN) + ("+" if count > BACKS_SHOWN else "")
    line += [*pad([("class:muted", shown)], BACKS_SHOWN + 1), ("", f"{count:>3} ")]
    if view.exposed == seat:
        line.append(("class:catchable", " no UNO! "))
    elif count == 1 and view.uno_said[seat]:
        line.append(("class:uno", " UNO!    "))
    else:
        line.append(("", " " * 9))
    unit = "chips" if view.options.scoring == "chips" else "pts"
    line.append(("", f" {view.scores[seat]:>5} {unit}"))
    if view.options.teams:
        line.append(("class:muted", f"  team {view.team_of(seat) + 1}"))
    if seat == view.dealer:
        line.append(("class:muted", "  dealer"))
    return line


def opponents(view: State, seats: Seats) -> Block:
    """One line per other player, in the order play goes round the table."""
    others = play_order(view, seats.me)
    width = min(16, max(get_cwidth(seats.names[s]) for s in others))
    return [player_line(view, seats, seat, width) for seat in others]


def big_card(card: int | None, plain: bool, named: int | None = None) -> Block:
    """The top of the discard pile, 13 by 5, its label in the middle.

    A black card also shows ``named``, the colour its player named, in that colour.
    """
    if card is None:  # no starter turned yet
        return [[("class:muted", "·" * BIG_W)] for _ in range(BIG_H)]
    label = card_label(card, plain)
    named_text = f"→ {colour_word(named)}" if card >= 100 and named is not None else ""
    if plain:
        inner = BIG_W - 2
        corner = named_text or label
        return [[("", "+" + "-" * inner + "+")], [("", "|" + label.ljust(inner) + "|")],
                [("", "|" + label.center(inner) + "|")],
                [("", "|" + corner.rjust(inner) + "|")], [("", "+" + "-" * inner + "+")]]
    rows = [f" {label}".ljust(BIG_W), " " * BIG_W, label.center(BIG_W), " " * BIG_W,
            f"{label} ".rjust(BIG_W)]
    style = card_style(card, plain)
    if card < 100:
        return [[(style, row)] for row in rows]
    block = [tile(card, plain, BIG_W) if i == 2 else [(style, row)] for i, row in enumerate(rows)]
    if named is not None and named_text:
        ink = f"{style} class:ink.{COLOUR_CLASSES[named]}"
        block[4] = [(ink, named_text.center(BIG_W))]
    return block


def draw_pile(view: State, plain: bool) -> Block:
    """The face-down draw pile with its size."""
    style = "" if plain else "class:card.back"
    size = len(view.draw_pile)
    rows = ["", "UNO", "", f"{size}", "cards" if size != 1 else "card"]
    if plain:
        rows = ["+-------+", "|  UNO  |", "|       |", f"|{size:^7}|", "+-------+"]
        return [[("", row)] for row in rows]
    return [[(style, row.center(9))] for row in rows]


def situation(view: State, seats: Seats, seconds_left: int | None) -> Block:
    """Colour to match, direction, whose turn, pending penalty, timer."""
    lines: Block = []
    if view.colour is not None:
        ink = f"class:ink.{COLOUR_CLASSES[view.colour]}"
        lines.append([("", "Colour to match: "), (ink, f"■ {colour_word(view.colour)}")])
    else:
        lines.append([("class:muted", "Colour to match: not chosen yet")])
    way = "clockwise ↓" if view.direction == 1 else "counter-clockwise ↑"
    lines.append([("", f"Play goes {way}")])
    lines.append(_turn_line(view, seats))
    if view.pending:
        lines.append([("class:uno", pending_line(view, seats))])
    if seconds_left is not None:
        lines.append([("class:uno" if seconds_left <= 5 else "", f"{seconds_left} s left")])
    return lines


def pending_line(view: State, seats: Seats) -> str:
    """``Bot 2 must draw 4 or challenge it``: "answer" only where an option allows one."""
    options = view.options
    who = seats.who(required(view.current, "player with the turn"))  # a penalty waits for one
    text = f"{who} must draw {view.pending}"
    if view.pending_rank == Rank.WILD_DRAW_FOUR:
        answers = ["stack a Wild Draw Four"] if options.stack_draw_four else []
        if not options.no_challenge and view.challenge is not None:
            answers.append("challenge it")
    else:
        answers = [what for on, what in (
            (options.stack_draw_two, "stack a Draw Two"),
            (options.stack_four_on_two, "a Wild Draw Four"),
            (options.deflect_draw_two, "deflect it with a Skip or Reverse")) if on]
    return text + (f" or {' or '.join(answers)}" if answers else "")


def _turn_line(view: State, seats: Seats) -> Line:
    phase = view.phase
    if phase in (Phase.DEALER_SELECTION, Phase.STARTER, Phase.RESEAT):
        return [("class:muted", "Dealing…")]
    if phase == Phase.ROUND_OVER:
        return [("class:turn", "The round is over")]
    if phase == Phase.GAME_OVER:
        return [("class:turn", "The game is over")]
    seat = view.decider()
    if seat is None:  # not in a phase left here (TIMED_PHASES): said for the type checker
        return [("class:muted", "Dealing…")]
    if phase == Phase.CHALLENGE:
        return [("class:turn", f"{seats.who(seat)}: challenge verdict")]
    if phase == Phase.STARTER_COLOUR:
        return [("class:turn", f"{seats.who(seat)}: name the starter's colour")]
    if seat == seats.me:
        return [("class:turn class:good", "Your turn")]
    return [("class:turn", f"{seats.names[seat]}'s turn")]


def centre(view: State, seats: Seats, plain: bool, width: int,
           seconds_left: int | None = None) -> Block:
    """Draw pile, discard top, and the situation, side by side."""
    info = situation(view, seats, seconds_left)
    room = max(10, width - 9 - BIG_W - 6)
    top = big_card(view.top_card, plain, view.colour)
    return side_by_side([(draw_pile(view, plain), 9), (top, BIG_W), (info, room)], gap=3)


def card_order(face: int | None) -> tuple[int, int, int]:
    """Sort key of a hand: red, yellow, green, blue, then black cards; by number within.

    Unknown faces go last; Skip, Reverse and Draw Two come after the 9.
    """
    if face is None:
        return (6, 0, 0)
    colour = colour_of(face)
    return (colour if colour >= 0 else 4, int(rank_of(face)), face)


def playable_slots(actions: Sequence[object]) -> frozenset[Slot]:
    """Slots of every card the legal actions let the reader play now."""
    slots: set[Slot] = set()
    for action in actions:
        slots.update(getattr(action, "slots", ()))
    return frozenset(slots)


def hand_rows(cards: int, width: int) -> int:
    """How many rows of tiles ``cards`` cards take at ``width`` columns."""
    per_row = max(1, (width - 1) // (TILE + TILE_GAP))
    return max(1, -(-cards // per_row))


def hand(view: State, seats: Seats, cursor: int, marked: Collection[Slot],
         playable: Collection[Slot], width: int, plain: bool, compact: bool = False,
         order: Sequence[Slot] | None = None) -> Block:
    """The reader's cards as tiles, wrapped to ``width``; playable ones raised.

    Three lines per row of cards: the raised edge of playable cards, the
    labels, and the numbers (cursor and marks shown there). ``compact`` (a
    short terminal) drops the edge and marks playable cards with a dot.
    ``order`` is the order shown (the controller's sorting); default as held.
    """
    slots = list(order) if order is not None else list(view.hands[seats.me])
    faces = [view.known.get(s) for s in slots]
    per_row = max(1, (width - 1) // (TILE + TILE_GAP))
    rows: Block = []
    for start in range(0, len(slots), per_row):
        edge: Line = [("", " ")]
        labels: Line = [("", " ")]
        marks: Line = [("", " ")]
        for i in range(start, min(len(slots), start + per_row)):
            slot, face = slots[i], faces[i]
            edge += _edge(face, slot in playable, plain)
            labels += tile(face, plain) if face is not None else [("class:muted", "?".center(TILE))]
            marks.append(_mark(i, i == cursor, slot in marked, compact and slot in playable))
            for line in (edge, labels, marks):
                line.append(("", " " * TILE_GAP))
        rows += [labels, marks] if compact else [edge, labels, marks]
    return rows or [[("class:muted", " (no cards)")]]


def _edge(face: int | None, playable: bool, plain: bool) -> Line:
    if not playable or face is None:
        return [("", " " * TILE)]
    # The word, not only the colour, says the card is playable (issue 25: a coloured bar
    # alone asked the player to see colours); plain mode shows the same word uncoloured.
    word = PLAYABLE.center(TILE)
    if plain:
        return [("", word)]
    if face >= 100:  # a rainbow edge: black would vanish on a dark terminal
        cuts = (0, 2, 3, 4, TILE)
        return [(f"class:card.{name}", word[start:end])
                for name, start, end in zip(COLOUR_CLASSES, cuts, cuts[1:], strict=False)]
    return [(card_style(face, plain), word)]


def _mark(index: int, cursor: bool, marked: bool, dot: bool = False) -> tuple[str, str]:
    number = ("•" if dot else "") + str(index + 1)
    if cursor:
        return ("class:cursor", f"▲{number}{'✓' if marked else ''}".center(TILE))
    if marked:
        return ("class:marker", f"✓{number}".center(TILE))
    return ("class:muted", number.center(TILE))


def me_line(view: State, seats: Seats, plain: bool, playable: bool = False) -> Line:
    """The reader's own line above the hand: turn, cards, UNO, score, the card drawn,
    and (``playable``) what the raised cards mean."""
    me = seats.me
    turn = me == view.decider()
    count = len(view.hands[me])
    unit = "chips" if view.options.scoring == "chips" else "pts"
    line: Line = [("class:turn", "▶ " if turn else "  "), ("class:me", seats.names[me]),
                  ("", f" · {count} card{'s' if count != 1 else ''} · {view.scores[me]} {unit}")]
    if view.options.teams:
        line.append(("", f" · team {view.team_of(me) + 1}"))
    if me == view.dealer:
        line.append(("", " · dealer"))
    if view.exposed == me:
        line.append(("class:catchable", " no UNO! press u "))
    elif count == 1 and view.uno_said[me]:
        line.append(("class:uno", " UNO!"))
    if view.drawn is not None and view.current == me:
        face = view.known.get(view.drawn)
        if face is not None:
            line += [("class:marker", "   you drew "), *tile(face, plain)]
    if playable:
        line.append(("class:muted", "   raised cards are playable now"))
    return line


def news(lines: Sequence[str], height: int, width: int, back: int = 0) -> Block:
    """The news ending ``back`` lines before the newest, wrapped at words to ``width``.

    Returns up to ``height`` screen rows (the newest at the bottom); a line
    about the reader is bold, and its continuation rows are indented.
    """
    end = len(lines) - max(0, back)
    rows: Block = []
    for text in reversed(list(lines)[:max(0, end)]):
        style = "class:news.mine" if text.startswith("You") else ""
        wrapped = wrap(text, max(8, width))
        rows[:0] = [[(style, row)] for row in wrapped]
        if len(rows) >= height:
            break
    return rows[-height:] if height > 0 else []


def wrap_line(line: Line, width: int, indent: str = "  ") -> Block:
    """A styled ``line`` broken at spaces into rows of at most ``width`` columns, each
    fragment keeping its style; rows after the first start with ``indent``. A word longer
    than a row (a log's path) is split, after a ``/`` where there is one."""
    rows: Block = []
    row: Line = []
    used, words = 0, 0  # columns taken, and words placed, on the row being filled

    def next_row() -> None:
        nonlocal row, used, words
        rows.append(_trimmed(row))
        row, used, words = [("", indent)], get_cwidth(indent), 0

    for style, text in line:
        for word in re.findall(r"\S+|\s+", text):
            if word.isspace():
                if words and used + get_cwidth(word) <= width:
                    row.append((style, word))
                    used += get_cwidth(word)
                continue
            if words and used + get_cwidth(word) > width:
                next_row()
            while used + get_cwidth(word) > width:
                head = _split_word(word, width - used)
                row.append((style, head))
                word = word[len(head):]
                next_row()
            row.append((style, word))
            used, words = used + get_cwidth(word), words + 1
    rows.append(_trimmed(row))
    return rows


def _trimmed(row: Line) -> Line:
    """A wrapped row without the spaces it ended on."""
    while row and row[-1][1].isspace():
        row = row[:-1]
    return row


def _split_word(word: str, room: int) -> str:
    """The most of ``word`` that fits ``room`` columns, ending after a ``/`` if one is
    in the second half (a path breaks between its folders)."""
    head = ""
    for char in word:
        if get_cwidth(head + char) > max(1, room):
            break
        head += char
    slash = head.rfind("/") + 1
    return head[:slash] if slash > len(head) // 2 else head


def wrap(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` broken at spaces into rows of at most ``width`` columns; rows after
    the first start with ``indent``; a word longer than a row is split."""
    rows: list[str] = []
    row = ""
    for word in text.split():
        sep = " " if row.strip() else ""
        if row.strip() and get_cwidth(row + sep + word) > width:
            rows.append(row)
            row, sep = indent, ""
        row += sep + word
        while get_cwidth(row) > width:
            rows.append(row[:width])
            row = indent + row[width:]
    rows.append(row)
    return rows


#: Help entries left out first when the line is too narrow (the rest are actions).
OPTIONAL_HELP = ("←→", "Space")


def key_help(keys: Sequence[tuple[str, str]], width: int) -> Block:
    """``key what`` pairs on one reversed line; navigation hints go first if it is too long."""
    keys = list(keys)
    while sum(len(k) + len(w) + 3 for k, w in keys) > width and \
            any(k in OPTIONAL_HELP for k, _ in keys):
        keys.remove(next(pair for pair in keys if pair[0] in OPTIONAL_HELP))
    line: Line = []
    for key, what in keys:
        line += [("class:help.key", f" {key}"), ("class:help", f" {what} ")]
    return [pad(line, width, "class:help")]

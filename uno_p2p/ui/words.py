"""Moves in plain words: what the log pane of the table says ("Bot 2 played Red 7").

A ``Narrator`` turns one applied action and the events it caused into short
sentences for one seat, the reader. It only ever names a card face the reader
may know: faces are looked up in the reader's own view (``State.known`` after
the action), so a bot's drawn card stays "a card" while the reader's own draw
says which card it was. The reader is "You"; everyone else by name.

The status line's sentences live here too (what a key did or why it did nothing,
``ui/controller.py``), the lobby's (``ui/lobby.py``, ``ui/lobby_app.py``) and a network
table's status (``ui/status.py``), so that
each is pinned once, in ``tests/ui/test_words.py``; other tests assert through these
names.
"""

from __future__ import annotations

from collections.abc import Sequence

from uno_p2p.rules import (
    EVERYONE,
    Action,
    CardsDrawn,
    Challenge,
    ChallengeResolved,
    ChooseColour,
    ClaimViolated,
    DealerChosen,
    Draw,
    Event,
    GameOver,
    Pass,
    Phase,
    Play,
    Reseat,
    Reveal,
    RevealRequested,
    RoundOver,
    ShuffleRequested,
    Slot,
    State,
    TimeOut,
    UnoCaught,
    UnoSaid,
    long_name,
    short_name,
)
from uno_p2p.rules.cards import COLOUR_NAMES, Rank, rank_of
from uno_p2p.rules.state import required

YOU = "You"
#: A seat's decision timed out (RULES.md turn_timer), as the log pane says it.
RAN_OUT = "{who} ran out of time."
#: The quit box's question (issue 25: it says what leaving does to the others).
LEAVE_QUESTION = "Leave this game?"
OTHERS_PLAY_ON = "The others play on without you."
GAME_ENDS = "This ends the game for everyone."


#: The status line (``ui/controller.py``): what a key did, or why it did nothing, in one
#: sentence. The engine's own refusals come through ``engine_sentence``.
WELCOME = "Welcome! ←/→ choose a card, Enter plays it, d draws, ? shows every key."
NEXT_ROUND_YOUR_TURN = "The next round has begun: your turn."
NO_LONGER_POSSIBLE = "Too late: that play is no longer possible."
NAME_THE_STARTER = "The starter is a Wild: name the colour to match."
TYPE_A_MESSAGE = "Type your message; Enter sends it, Esc cancels."
KEY_DOES_NOTHING = "The key {key} does nothing here: press ? for the list of keys."
HAND_SORTED = "Your hand is sorted by colour and number."
HAND_AS_DEALT = "Your hand is in the order you got the cards."
NOT_YOUR_TURN = "It is not your turn."
DRAWN_ALREADY = "You have drawn already: play that card (Enter) or pass (p)."
ONLY_AFTER_DRAWING = "You can pass only right after drawing a card: press d to draw."
UNO_ARMED = "You will say UNO with your next play."
UNO_DISARMED = "You will not say UNO with your next play."
UNO_WHEN = "Say UNO when you are down to one card (or with the play before)."
NOBODY_TO_CATCH = ("Nobody can be caught now: catch a player left with one card who has not "
                   "said UNO.")
NOTHING_TO_CHALLENGE = "There is no Wild Draw Four played on you to challenge."
JUMP_IN_WITH = "You can jump in with {cards}: select it, then press j."
JUMP_NOT_ON_YOUR_TURN = "Jumping in is for when it is not your turn: press Enter to play."
CANNOT_PLAY = "You cannot play {cards} now."
BLUFF = ("A bluff: you hold {colour}. If challenged you draw 4 instead. Name a colour to play "
         "it, Esc to think again.")
NO_CHAT = "This table has no chat."
#: Why the turn left the human when no news line says who took it.
TURN_MOVED_ON = "the turn moved on."
#: The engine speaks of players in the third person; "You" reads better in the second.
_SECOND_PERSON = {"You holds ": "You hold ", "You does ": "You do ", "You has ": "You have ",
                  "You's ": "your ", "You is ": "You are ", "You was ": "You were "}


#: The lobby (``ui/lobby.py``, ``ui/lobby_app.py``): what the table waits for, what a key
#: did there, and the tables found on the network.
LINK_TO_HOST_LOST = "The link to {host} is lost: reconnecting… (q leaves the table)"
NEED_PLAYERS = "Waiting for players: at least {count} are needed."
WAITING_FOR_READY = "Waiting for {names} to be ready."
ALL_READY_PRESS_S = "Everyone is ready: press s to start."
ALL_READY_WAITING = "Everyone is ready: waiting for {host} to start."
ASKS_FOR_A_CODE = "This table asks for a join code."
TELL_THE_CODE = "  (tell it to the players you invite)"
PRESS_R = "Press r when you are ready."
READY = "You are ready."
NOT_READY = "You are not ready."
ONLY_THE_HOST = "Only the host can do that."
LEAVE_THE_TABLE = "Leave this table? y: leave, n: stay."
RULES_PROMPT = "Rules (a preset and/or name=value):"
NOT_ENOUGH_TO_START = "At least {count} players are needed: add a bot (b) or wait for players."
NOT_ALL_READY = "Not everyone is ready yet: wait for them, or kick (k)."
STARTING = "Starting the game…"
CANNOT_KICK_YOURSELF = "You cannot kick yourself: q leaves (and closes the table)."
ASKED_TO_LEAVE = "{name} was asked to leave."
TABLE_FULL = "The table is full."
A_BOT_SITS_DOWN = "A bot sits down."
PRESETS_ARE = " Presets: {presets}."
RULES_CHANGED = "The rules are changed."
LOOKING = "Looking for tables on this network…"
TABLES_FOUND = "{count} table{s} found: ↑↓ choose, Enter joins."
NONE_FOUND_YET = ("None found yet. Ask the host to run uno-lan host on the same network "
                  "(Wi-Fi or cable); tables appear here as they are announced.")
OTHER_VERSION = ("{table} runs another version of uno-lan (protocol {version}): choose another "
                 "table.")
ALREADY_PLAYING = "{table} is already playing: choose another table."
TABLE_IS_FULL = "{table} is full: choose another table."
CODE_PROMPT = "Join code for {table}:"
TYPE_THE_CODE = "Type the join code the host gave you, or Esc to choose again."


#: A network table's status (``ui/status.py``): who is there, the waits, the stop, chat.
PLAYERS = "Players: "
PRESENT = "● {name}"
A_BOT = " (bot)"
MISSING = "○ {name} missing"
TURN_TIMER = "Turn timer: {left} s left"
GAME_STOPPED = "The game stopped. {said}."
STILL_PROVABLE = "The log can still prove {what}."
LOG_KEPT_IN = "The log is kept in {log}; check it with"
AUDIT_COMMAND = "uno-lan audit {log}"
ANYONE_CAN_CHECK = "Anyone can check the log: uno-lan audit {log}"
CHAT_LINE = "{who}: {text}"
CHAT_YOU = "you"
SAY_SOMETHING = "type something to say first"
CHAT_TOO_LONG = "a message is at most {most} characters"
NO_CONTROL_CHARACTERS = "a message cannot hold control characters"


def tables_found(count: int) -> str:
    """The picker's status line: ``2 tables found: ...``, or still looking."""
    return TABLES_FOUND.format(count=count, s="s" if count != 1 else "") if count else LOOKING


def names_and(names: Sequence[str]) -> str:
    """``Ann``, ``you and Bob``, ``Ann, Bob and Cy``."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def one_sentence(text: str) -> str:
    """A refusal's text as one sentence: a capital first, a full stop last."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def turn_over(why: str) -> str:
    """``Your turn is over: Bot 2 jumped in with Red 7.``: ``why`` is the news line that
    took the turn (RULES.md jump_in, turn_timer), or ``TURN_MOVED_ON``."""
    return f"Your turn is over: {_lower_first(why)}"


def too_late(why: str) -> str:
    """A key pressed after the turn was taken: ``Too late: you ran out of time.``"""
    return f"Too late: {_lower_first(why)}"


def engine_sentence(text: str) -> str:
    """One tidy sentence from an engine refusal (``IllegalAction``) about the human."""
    text = text.strip()
    for third, second in _SECOND_PERSON.items():
        text = text.replace(third, second)
    return one_sentence(text)


def _lower_first(text: str) -> str:
    """``Bot 2 jumped in`` stays; ``You ran out`` becomes ``you ran out`` mid-sentence."""
    return "you" + text[3:] if text.startswith(f"{YOU} ") else text


#: The box of a challenge's verdict (``ui/overlays.py``, RULES.md "Challenging").
THEIR_HAND = "{name}'s hand: {cards}"
HAD_THE_COLOUR = "{name} had {colour} card when they played the Wild Draw Four."
HAD_NO_COLOUR = "{name} had no {colour} card when they played the Wild Draw Four."
GUILTY = "Guilty: {name} draws {count} instead, and you play on."
NOT_GUILTY = "Not guilty: you draw {count}."

#: The head of the game-over box (``ui/dialogs.py``).
TEAM_WINS = "Team {team} wins the game with {who}!"
YOU_WIN = "You win the game!"
WINS_THE_GAME = "{name} wins the game."


def quit_lines(stops_the_game: bool | None) -> tuple[str, ...]:
    """The quit box's lines: what leaving does (table.md §8); None offline, where
    the bots simply stop."""
    if stops_the_game is None:
        return (LEAVE_QUESTION,)
    return (LEAVE_QUESTION, GAME_ENDS if stops_the_game else OTHERS_PLAY_ON)


def removed_line(name: str, left: bool, me: bool) -> str:
    """A seat that left or vanished was removed (table.md §8, §14): what it means."""
    if me:
        return "You left the table; the others play on."
    why = f"{name} left the table" if left else f"{name} did not come back and was removed"
    return f"{why}: the round is void and the others play on."


def reconnecting_line(name: str | None) -> str:
    """A player's link is down (``None``: this player's own)."""
    return "You are reconnecting…" if name is None else f"{name} is reconnecting…"


def back_line(name: str | None) -> str:
    """A player's link is back (``None``: this player's own)."""
    return "You are back." if name is None else f"{name} is back."


def count_cards(count: int) -> str:
    """``a card`` / ``3 cards``."""
    return "a card" if count == 1 else f"{count} cards"


def cards_phrase(cards: Sequence[int]) -> str:
    """``Red 7``, ``two Red Skips``, or ``Blue 3 + Blue 4`` (a sum jump-in)."""
    if len(cards) == 1:
        return long_name(cards[0])
    if len(set(map(long_name, cards))) == 1:
        return f"two {long_name(cards[0])}s"
    return " + ".join(long_name(c) for c in cards)


class Narrator:
    """Sentences about a game for the player at ``reader`` (see the module docstring)."""

    def __init__(self, names: Sequence[str], reader: int) -> None:
        self.names = tuple(names)
        self.reader = reader

    # -- names ----------------------------------------------------------------------------
    def who(self, seat: int) -> str:
        """``You`` for the reader, else the player's name."""
        return YOU if seat == self.reader else self.names[seat]

    def whose(self, seat: int) -> str:
        """``your`` / ``Bot 2's``."""
        return "your" if seat == self.reader else f"{self.names[seat]}'s"

    def whom(self, seat: int) -> str:
        """``you`` / ``Bot 2`` (an object)."""
        return "you" if seat == self.reader else self.names[seat]

    def be(self, seat: int) -> str:
        """``are`` for the reader, ``is`` for anyone else."""
        return "are" if seat == self.reader else "is"

    def was(self, seat: int) -> str:
        return f"{self.who(seat)} {'were' if seat == self.reader else 'was'}"

    # -- one applied action -----------------------------------------------------------------
    def describe(self, before: State, action: Action, events: Sequence[Event],
                 after: State) -> list[str]:
        """What ``action`` (applied to ``before``) and its ``events`` mean, in order.

        ``after`` is the reader's view once the action is applied: the only
        source of faces the reader may know.
        """
        lines = self.action_lines(before, action)
        if isinstance(action, Play):
            lines += self.skip_lines(action, after)
        for event in events:
            line = self.event_line(before, event, after)
            if line:
                lines.append(line)
        if isinstance(action, Draw) and not any(isinstance(e, CardsDrawn) for e in events):
            lines.append(f"{self.who(action.seat)} could not draw: there are no cards left.")
        return lines

    def action_lines(self, before: State, action: Action) -> list[str]:
        """The sentence for the action itself (draws are told by their events)."""
        if isinstance(action, Play):
            return [self.play_line(before, action)]
        if isinstance(action, Pass):
            return [f"{self.who(action.seat)} passed, keeping the card drawn."]
        if isinstance(action, Challenge):
            challenged = required(before.challenge, "Wild Draw Four to challenge")[1]
            return [f"{self.who(action.seat)} challenged {self.whose(challenged)} "
                    "Wild Draw Four."]
        if isinstance(action, ChooseColour):
            return [f"{self.who(action.seat)} named {COLOUR_NAMES[action.colour]} "
                    "for the Wild starter."]
        if isinstance(action, TimeOut):
            return [RAN_OUT.format(who=self.who(action.seat))]
        if isinstance(action, Reseat):
            return ["Everyone changed seats."]
        if isinstance(action, Reveal):
            return self.reveal_lines(before, action)
        return []

    def play_line(self, before: State, play: Play) -> str:
        who = self.who(play.seat)
        verb = "played" if play.seat == before.current else "jumped in with"
        text = f"{who} {verb} {cards_phrase(play.cards)}"
        if play.colour >= 0:
            text += f", naming {COLOUR_NAMES[play.colour]}"
        rank = rank_of(play.cards[-1])
        if play.power == "peek":
            text += f", and looked at {self.whose(play.target)} hand"
        elif play.power == "swap":
            text += f", and swapped {count_cards(len(play.give))} with {self.whom(play.target)}"
        elif play.target >= 0 and rank == Rank.SEVEN:
            text += f", and swapped hands with {self.whom(play.target)}"
        elif before.options.seven_zero and rank == Rank.ZERO:
            text += ": every hand passes on"
        elif rank == Rank.REVERSE and len(play.cards) == 1 and len(before.players) > 2:
            text += ": play changes direction"
        return text + "."

    def skip_lines(self, play: Play, after: State) -> list[str]:
        """Who a Skip (or a two-player Reverse) passes over: "You are skipped."

        The engine has no event for it (RULES.md "Skip": the next player loses
        their turn), so the skipped seats are those play went past: between
        the player and whoever plays next, in the new direction.
        """
        if rank_of(play.cards[-1]) not in (Rank.SKIP, Rank.REVERSE) \
                or after.phase != Phase.PLAYING or play.seat not in after.order:
            return []
        skipped = []
        if after.current == play.seat:  # two players: the other one is skipped
            skipped = [s for s in after.order if s != play.seat and len(after.order) == 2]
        else:
            seat = after.next_seat(play.seat)
            for _ in range(len(after.order)):
                if seat in (after.current, play.seat):
                    break
                skipped.append(seat)
                seat = after.next_seat(seat)
        return [f"{self.who(s)} {self.be(s)} skipped." for s in skipped]

    def reveal_lines(self, before: State, reveal: Reveal) -> list[str]:
        faces = dict(reveal.faces)
        if before.phase == Phase.DEALER_SELECTION:
            turned = ", ".join(f"{self.who(seat)} {long_name(faces[slot])}"
                               for seat, slot in before.contenders if slot in faces)
            return [f"To choose the dealer: {turned}."]
        if before.phase == Phase.STARTER:
            (card,) = faces.values()
            return [f"The starter card is {long_name(card)}."]
        return []

    # -- one event ----------------------------------------------------------------------------
    def event_line(self, before: State, event: Event, after: State) -> str | None:
        """The sentence for one event, or None for events that only ask for work."""
        if isinstance(event, CardsDrawn):
            return self.drawn_line(event, after)
        if isinstance(event, UnoSaid):
            return f"{self.who(event.seat)}: UNO!"
        if isinstance(event, UnoCaught):
            if event.target == self.reader:
                return f"You were caught without UNO by {self.names[event.seat]}: +2."
            return f"{self.who(event.seat)} caught {self.names[event.target]} without UNO: +2."
        if isinstance(event, ChallengeResolved):
            colour = "?" if before.challenge is None else COLOUR_NAMES[before.challenge[2]]
            if event.guilty:
                return f"{self.was(event.challenged)} guilty: the hand held {colour}, " \
                    "so the penalty goes back to them."
            return f"{self.was(event.challenged)} not guilty: the hand held no {colour}, " \
                "so the challenger draws the penalty and 2 more."
        if isinstance(event, DealerChosen):
            return f"Round {event.round}: {self.who(event.seat)} "\
                f"{'deal' if event.seat == self.reader else 'deals'}."
        if isinstance(event, ShuffleRequested):
            return self.shuffle_line(event)
        if isinstance(event, RevealRequested):
            return self.private_reveal_line(before, event, after)
        if isinstance(event, ClaimViolated):
            return event.message + "."
        if isinstance(event, RoundOver):
            return self.round_line(before, event)
        if isinstance(event, GameOver):
            if event.team >= 0:
                return f"Team {event.team + 1} won the game with {self.who(event.winner)}!"
            return f"{self.who(event.winner)} won the game!"
        return None

    def drawn_line(self, event: CardsDrawn, after: State) -> str | None:
        who, count = self.who(event.seat), len(event.slots)
        reason = event.reason
        if reason == "deal" or (reason == "caught" and event.seat != self.reader):
            return None  # the deal is one line (DealerChosen); a catch says its +2
        if reason == "caught":
            return f"You drew {self.drawn_cards(event, after)} for it."
        drew = f"{who} drew {self.drawn_cards(event, after)}"
        if reason == "draw":
            return drew + "."
        if reason == "starter":
            return f"{drew} for the starter Draw Two and {self.be(event.seat)} skipped."
        if reason == "false_uno":
            return f"{who} said UNO without one card left: +{count} ({drew[len(who) + 1:]})."
        if reason == "turn_timer":
            return f"{drew} for the time-out."
        if reason in ("penalty", "challenge"):
            lost = "lose your" if event.seat == self.reader else "loses their"
            return f"{drew} as a penalty and {lost} turn."
        return drew + "."

    def drawn_cards(self, event: CardsDrawn, after: State) -> str:
        """``Yellow 7 and Yellow 3`` for the reader's own cards, else ``2 cards``."""
        faces = [after.known.get(s) for s in event.slots] if event.seat == self.reader else []
        if not faces or any(f is None for f in faces):
            return count_cards(len(event.slots))
        names = [long_name(f) for f in faces if f is not None]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def shuffle_line(self, event: ShuffleRequested) -> str | None:
        if event.sources and event.faces:
            return "The discard pile was shuffled into a new draw pile."
        if event.sources:
            return "The Wild Draw Four starter went back into the deck, shuffled again."
        return None

    def private_reveal_line(self, before: State, event: RevealRequested,
                            after: State) -> str | None:
        if event.to == EVERYONE or event.to != self.reader:
            return None
        if event.reason == "peek":
            return f"You see {self.whose(_holder(before, event.slots))} hand: "\
                f"{_faces(after, event.slots)}."
        if event.reason == "challenge":
            return f"The challenged hand: {_faces(after, event.slots)}."
        return None

    def round_line(self, before: State, event: RoundOver) -> str:
        if event.winner < 0:
            return f"Round {event.round} is void: nobody scores."
        line = f"{self.who(event.winner)} won round {event.round}"
        gain = event.changes[event.winner]
        if before.options.scoring != "losses" and gain > 0:
            line += f" (+{gain} points)"
        return line + "."


def _holder(state: State, slots: Sequence[Slot]) -> int:
    for seat, hand in enumerate(state.hands):
        if slots and slots[0] in hand:
            return seat
    return -1


def _faces(view: State, slots: Sequence[Slot]) -> str:
    faces = [view.known.get(slot) for slot in slots]
    return " ".join(short_name(f) if f is not None else "?" for f in faces) or "no cards"

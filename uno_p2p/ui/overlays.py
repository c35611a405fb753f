"""What the controller shows: the key help line and the box over the table.

Pure functions of the controller's state (mode, seats, the table's view and
legal actions), kept apart so that the controller stays about keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from uno_p2p.rules import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    Draw,
    Pass,
    Play,
    SayUno,
    short_name,
)
from uno_p2p.rules.cards import COLOUR_NAMES
from uno_p2p.rules.state import required
from uno_p2p.ui import words
from uno_p2p.ui.dialogs import boxed, choices, game_over, help_rows, round_table
from uno_p2p.ui.modes import COLOUR_KEYS, Mode
from uno_p2p.ui.render import Block
from uno_p2p.ui.status import stopped_rows, verdict_rows
from uno_p2p.ui.words import quit_lines

if TYPE_CHECKING:
    from uno_p2p.ui.controller import Controller

T = TypeVar("T")


def key_help(controller: Controller) -> list[tuple[str, str]]:
    """The key help line: only what works now."""
    if controller.mode != Mode.TABLE:
        return {
            Mode.COLOUR: [("r/y/g/b", "colour"), ("Esc", "back")],
            Mode.POWER: [("c", "colour only"), ("p", "peek"), ("s", "swap"), ("Esc", "back")],
            Mode.TARGET: [("1-9", "player"), ("Esc", "back")],
            Mode.VERDICT: [("Enter", "go on")],
            Mode.ROUND: [("Enter", "go on"), ("q", "quit")],
            Mode.OVER: [("q", "quit")] if controller.network is not None
            else [("n", "new game"), ("q", "quit")],
            Mode.QUIT: [("y", "quit"), ("n", "go on playing")],
            Mode.HELP: [("Esc", "back to the game")],
            Mode.CHAT: [("Enter", "send"), ("Esc", "cancel")],
            Mode.STOPPED: [("q", "quit")],
        }[controller.mode]
    legal = controller.table.legal_actions()
    view = controller.table.view()
    mine = view.current == controller.seats.me
    keys = [("←→", "select")]
    plays = _of(legal, Play)
    if plays and mine:
        keys.append(("Enter", "play"))
    if plays and not mine:
        keys.append(("j", "jump in"))
    if any(len(getattr(a, "slots", ())) > 1 for a in plays):
        keys.append(("Space", "mark"))
    for kind, key, what in ((Draw, "d", "draw"), (Pass, "p", "pass"), (SayUno, "u", "UNO!"),
                            (CatchUno, "c", "catch"), (Challenge, "x", "challenge")):
        if _of(legal, kind):
            keys.append((key, what))
    if mine and len(view.hands[controller.seats.me]) == 2 and not _of(legal, SayUno):
        keys.append(("u", "UNO with play" + (" ✓" if controller.uno_armed else "")))
    if controller.network is not None:
        keys.append(("t", "chat"))
    keys += [("?", "help"), ("q", "quit")]
    return keys

def dialog(controller: Controller) -> Block | None:
    """The box drawn over the table, if any."""
    view = controller.table.view()
    summaries = controller.table.summaries
    if controller.mode == Mode.QUIT:
        status = controller.network
        lines = quit_lines(None if status is None else status.leaving_stops)
        return boxed("Quit?", [[("", line)] for line in lines],
                     "y or Ctrl-C: quit    n: go on playing")
    if controller.mode == Mode.HELP:
        return boxed("Help", help_rows(view.options), "Esc: back to the game")
    status = controller.network
    if controller.mode == Mode.STOPPED and status is not None and status.stopped is not None:
        return boxed("Game stopped", stopped_rows(status.stopped), "q: quit")
    if controller.mode == Mode.ROUND and summaries:
        last = "Enter: the final scores" if summaries[-1].game_winner >= 0 else \
            "Enter: next round"
        return boxed("Round over", round_table(summaries[-1], controller.seats, view.options),
                     last)
    if controller.mode == Mode.OVER and summaries:
        status = controller.network
        if status is not None:  # a network game: the audit's verdict, where the log is
            rows = game_over(summaries[-1], controller.seats, view.options, "")
            return boxed("Game over", rows + verdict_rows(status), "q: quit")
        return boxed("Game over", game_over(summaries[-1], controller.seats, view.options,
                                            controller.seed), "n: new game    q: quit")
    if controller.mode == Mode.COLOUR:
        rows = choices([(k, COLOUR_NAMES[c]) for k, c in COLOUR_KEYS.items() if k.isalpha()])
        return boxed("Name a colour", rows, "Esc: back")
    if controller.mode == Mode.POWER:
        rows = choices([("c", "just name the colour"), ("p", "look at a player's hand"),
                        ("s", "swap 3 cards with a player")])
        return boxed("Wild power", rows, "Esc: back")
    if controller.mode == Mode.TARGET:
        rows = choices([(str(i), f"{controller.seats.names[s]} ({len(view.hands[s])} cards)")
                        for i, s in enumerate(controller.target_choices(), 1)])
        return boxed("Choose a player", rows, "Esc: back")
    if controller.mode == Mode.VERDICT:
        return boxed("Your challenge", _verdict_rows(controller), "Enter: go on")
    return None

def _verdict_rows(controller: Controller) -> Block:
    view = controller.table.view()
    _, challenged, colour = required(view.challenge, "Wild Draw Four in a challenge")
    hand = view.hands[challenged]
    shown = " ".join(short_name(view.known[s]) if s in view.known else "?" for s in hand)
    verdict = controller.first(ChallengeVerdict)
    guilty = isinstance(verdict, ChallengeVerdict) and verdict.guilty
    word = COLOUR_NAMES[colour]
    name = controller.seats.names[challenged]
    # RULES.md "Challenging": guilty, the challenged draws the penalty instead;
    # not guilty, the challenger draws the penalty and 2 more.
    verdict_line = (words.GUILTY.format(name=name, count=view.pending) if guilty
                    else words.NOT_GUILTY.format(count=view.pending + 2))
    had = words.HAD_THE_COLOUR if guilty else words.HAD_NO_COLOUR
    return [[("", words.THEIR_HAND.format(name=name, cards=shown))],
            [("", had.format(name=name, colour=word))],
            [("class:uno", verdict_line)]]


def _of(actions: Sequence[Action], kind: type[T]) -> list[T]:
    return [a for a in actions if isinstance(a, kind)]

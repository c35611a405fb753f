"""Colours and card labels of the terminal table.

Cards have their colour as background (red, yellow, green, blue; black for
the Wild cards, whose letters are painted in the four colours), with a
foreground chosen for contrast so that they read on dark and light terminals
alike. Playable cards stand raised (render.hand), so they stand out.

Every label also spells its colour (``R7``, ``Y+2``), so nobody depends on
telling red from green, and with ``NO_COLOR`` set (https://no-color.org,
which prompt-toolkit honours by dropping colours) the game stays playable in
plain text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from prompt_toolkit.styles import Style

from uno_p2p.rules import short_name
from uno_p2p.rules.cards import COLOUR_NAMES, colour_of

#: Style class names by colour index; 4 is the black of the Wild cards.
COLOUR_CLASSES = ("red", "yellow", "green", "blue", "wild")

STYLE = Style.from_dict({
    "card.red": "bg:#c8102e #ffffff bold",
    "card.yellow": "bg:#f2c500 #000000 bold",
    "card.green": "bg:#00973a #ffffff bold",
    "card.blue": "bg:#0057b8 #ffffff bold",
    "card.wild": "bg:#1c1c1c #ffffff bold",
    "card.muted": "bg:#5f5f5f #c0c0c0",
    "card.back": "bg:#8b0000 #f2c500 bold",
    "ink.red": "#ff4b5c bold",
    "ink.yellow": "#f2c500 bold",
    "ink.green": "#2ecc71 bold",
    "ink.blue": "#4da3ff bold",
    "header": "reverse bold",
    "turn": "bold",
    "me": "bold",
    "marker": "bold",
    "cursor": "reverse bold",
    # Red means a warning or an error (UNO!, a penalty, a stop); what is good news for
    # the player (ready, your turn, a win) is green, never red (issue 25).
    "uno": "#ff4b5c bold",
    "good": "#2ecc71 bold",
    "catchable": "bg:#ff4b5c #000000 bold",
    "muted": "#8a8a8a",
    "help": "reverse",
    "help.key": "reverse bold",
    "status": "bold",
    "news.mine": "bold",
    "dialog": "bg:#303030 #ffffff",
    "dialog.title": "bg:#303030 #ffffff bold underline",
})


def plain_mode(environ: Mapping[str, str] | None = None) -> bool:
    """True when colours are off (``NO_COLOR`` set to anything non-empty)."""
    env = os.environ if environ is None else environ
    return bool(env.get("NO_COLOR"))


def colour_class(card: int) -> str:
    """``red`` .. ``blue``, or ``wild`` for a black card."""
    colour = colour_of(card)
    return COLOUR_CLASSES[colour] if colour >= 0 else "wild"


def card_label(card: int, plain: bool = False) -> str:
    """What a card tile says: its colour letter and face (``R7``, ``B-skip``, ``W+4``).

    The letter is there in colour too, so that red and green (and every
    colour) never depend on the background alone; it is the engine's short
    name, the one ``log show`` and the score table print.
    """
    return short_name(card)


def colour_word(colour: int) -> str:
    """``Red``..``Blue`` for a colour index."""
    return COLOUR_NAMES[colour] if 0 <= colour < 4 else "any"

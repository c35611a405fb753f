"""The controller's modes: what the keys mean at each moment (shared with the overlays)."""

from __future__ import annotations

from enum import Enum

#: Keys that name a colour in the colour picker.
COLOUR_KEYS = {"r": 0, "y": 1, "g": 2, "b": 3, "1": 0, "2": 1, "3": 2, "4": 3}


class Mode(Enum):
    TABLE = "table"
    COLOUR = "colour"      # name a colour (a black card, or the Wild starter)
    POWER = "power"        # wild_powers: colour only, peek or swap
    TARGET = "target"      # which player (seven_zero 7, peek, swap)
    VERDICT = "verdict"    # the challenged hand is shown: give the verdict
    ROUND = "round"        # the round's score table
    OVER = "over"          # the end of the game
    QUIT = "quit"          # "quit this game?"
    HELP = "help"          # the ? overlay: keys, rules in force, scoring
    CHAT = "chat"          # typing a chat message (network tables)
    STOPPED = "stopped"    # the network game stopped: who, why, what the log proves

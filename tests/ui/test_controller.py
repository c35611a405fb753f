"""Keys to actions: what a player presses and what the table then shows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.ui.fakes import FakeNetworkTable
from tests.ui.helpers import human_policy, play_out, stacked, table
from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    Action,
    CatchUno,
    Options,
    Pass,
    Phase,
    Play,
    State,
    apply,
    preset,
    short_name,
)
from uno_p2p.ui import words
from uno_p2p.ui.controller import Controller, Outcome
from uno_p2p.ui.modes import Mode
from uno_p2p.ui.render import plain_text
from uno_p2p.ui.session import LocalTable, Next, SelfPaced


def held(game: LocalTable, seed: str = "") -> Controller:
    """A controller showing the hand in the order received (tests name cards by position)."""
    controller = Controller(game, seed)
    controller.sorted_hand = False
    return controller


def press(controller: Controller, *keys: str) -> Outcome:
    outcome = Outcome.NONE
    for key in keys:
        outcome = controller.press(key, 10**6)
    return outcome


#: The human's own time-out in the news (ui/words.py, pinned in tests/ui/test_words.py).
RAN_OUT = words.RAN_OUT.format(who=words.YOU)


def refusal(game: LocalTable, action: Action) -> IllegalAction:
    """The engine's own refusal of ``action`` at the human's view (the rules, not the
    controller, say why; ui/words.py only puts it in the second person)."""
    with pytest.raises(IllegalAction) as refused:
        apply(game.view(), action)
    return refused.value


def first_card_play(game: LocalTable, colour: int = -1) -> Play:
    """The human's first card as dealt, played alone."""
    slot = game.view().hands[game.seat][0]
    return Play(game.seat, (slot,), (game.view().known[slot],), colour=colour)


def hand_names(game: LocalTable) -> list[str]:
    return [short_name(c) for c in game.view().hand_faces(game.seat) if c is not None]


def top_cards(game: LocalTable, count: int = 1) -> list[str]:
    """The top ``count`` cards of the discard pile, the newest last.

    What a move did is read from the game, not from the news: the news lines are
    ui/words.py's, pinned in tests/ui/test_words.py."""
    view = game.view()
    return [short_name(view.known[slot]) for slot, _ in view.discard[-count:]]


def mode(controller: Controller) -> Mode:
    """The controller's mode, read through a call (keys change it behind mypy's back)."""
    return controller.mode


def help_keys(controller: Controller) -> list[str]:
    return [key for key, _ in controller.key_help()]


def test_arrows_and_numbers_move_the_cursor() -> None:
    controller = held(stacked(["R7", "Y3", "G3"]))
    press(controller, "right", "right")
    assert controller.cursor == 2
    press(controller, "left", "left", "left")
    assert controller.cursor == 6  # wraps round the 7 cards
    press(controller, "3")
    assert controller.cursor == 2
    press(controller, "9")  # no 9th card: the cursor stays
    assert controller.cursor == 2


def test_enter_plays_the_selected_card() -> None:
    game = stacked(["Y3", "R7"])
    controller = held(game)
    press(controller, "2", "enter")
    assert game.state.top_card is not None
    assert short_name(game.state.top_card) == "R7"
    assert game.state.last_player == game.seat
    assert "R7" not in hand_names(game)
    assert controller.status == ""


def test_an_unplayable_card_gives_the_engines_reason_and_changes_nothing() -> None:
    game = stacked(["Y3", "R7"])
    controller = held(game)
    before = game.state
    refused = refusal(game, first_card_play(game))
    press(controller, "1", "enter")
    assert game.state is before
    assert refused.rule == "matching"
    assert controller.status == words.engine_sentence(str(refused))


def test_a_wild_asks_for_the_colour() -> None:
    game = stacked(["W", "R7"])
    controller = held(game)
    press(controller, "enter")
    assert mode(controller) == Mode.COLOUR
    dialog = controller.dialog()
    assert dialog is not None
    assert "Name a colour" in plain_text(dialog)
    assert help_keys(controller) == ["r/y/g/b", "Esc"]
    press(controller, "b")
    assert mode(controller) == Mode.TABLE
    assert game.state.colour == 3
    assert top_cards(game) == ["W"]
    assert game.state.last_player == game.seat


def test_escape_leaves_the_colour_picker_without_playing() -> None:
    game = stacked(["W+4", "G5"], starter="G1")
    controller = held(game)
    press(controller, "enter", "escape")
    assert mode(controller) == Mode.TABLE
    assert "W+4" in hand_names(game)


def test_draw_then_pass() -> None:
    game = stacked(["Y3", "Y4"])
    controller = held(game)
    assert "d" in help_keys(controller)
    assert "p" not in help_keys(controller)
    press(controller, "d")
    view = game.view()
    assert len(view.hands[game.seat]) == 8
    assert controller.cursor == 7  # on the card just drawn
    assert ("p", "pass") in controller.key_help()
    drawn = game.state.drawn
    assert drawn == view.hands[game.seat][-1]
    press(controller, "d")
    assert controller.status == words.DRAWN_ALREADY
    press(controller, "p")
    assert game.state.current != game.seat
    assert game.view().hands[game.seat] == view.hands[game.seat], "the drawn card is kept"


def test_keys_that_do_nothing_now_say_why() -> None:
    game = stacked(["Y3", "R7"])
    controller = held(game)
    for key, start in (("p", "You can pass only right after drawing"),
                       ("c", "Nobody can be caught now"),
                       ("x", "There is no Wild Draw Four"), ("u", "Say UNO when")):
        press(controller, key)
        assert controller.status.startswith(start), key
    assert "c" not in help_keys(controller)
    assert "x" not in help_keys(controller)


def test_seven_zero_asks_whom_to_swap_hands_with() -> None:
    game = stacked(["R7", "Y3"], options=preset("official", ["seven_zero=true"]))
    controller = held(game)
    mine = set(game.view().hands[game.seat]) - {game.view().hands[game.seat][0]}
    press(controller, "enter")
    assert mode(controller) == Mode.TARGET
    targets = controller.target_choices()
    assert len(targets) == 2
    assert "Choose a player" in plain_text(controller.dialog() or [])
    press(controller, "2")
    target = targets[1]
    assert set(game.state.hands[target]) == mine
    assert top_cards(game) == ["R7"]
    assert game.state.last_player == game.seat


def test_wild_powers_peek_shows_the_hand_in_the_news() -> None:
    game = stacked(["W", "Y3"], options=preset("official", ["wild_powers=true"]))
    controller = held(game)
    press(controller, "enter", "r")
    assert mode(controller) == Mode.POWER
    press(controller, "p")
    assert mode(controller) == Mode.TARGET
    press(controller, "1")
    assert not controller.candidates  # the play is made
    assert game.news[-2].startswith("You played Wild, naming Red, and looked at")
    assert game.news[-1].startswith("You see ")
    shown = game.news[-1].split(": ", 1)[1].rstrip(".").split()
    assert len(shown) == 7
    assert "?" not in shown


def test_wild_swap_gives_away_the_costliest_cards() -> None:
    game = stacked(["W", "R9", "Y1", "W+4", "R8"],
                   options=preset("official", ["wild_powers=true"]))
    controller = held(game)
    press(controller, "enter", "g", "s", "1")
    mine = hand_names(game)
    assert "W+4" in mine, "black cards are kept"
    assert "R9" not in mine
    assert "R8" not in mine
    assert len(mine) == 6


def test_uno_with_the_next_play() -> None:
    game = stacked(["R7", "R8"])
    controller = held(game)
    view = game.view()
    # Play down to two cards first: give away five by hand through the engine.
    hands = list(view.hands)
    hands[game.seat] = hands[game.seat][:2]
    game.driver.state = replace(game.driver.state, hands=tuple(hands))
    assert ("u", "UNO with play") in controller.key_help()
    press(controller, "u")
    assert controller.uno_armed
    press(controller, "enter")
    assert top_cards(game) == ["R7"]
    assert game.state.uno_said[game.seat]
    assert len(game.state.hands[game.seat]) == 1
    assert not controller.uno_armed


def test_double_play_with_marks_under_jump_in() -> None:
    game = stacked(["R7", "R7", "Y3"], options=preset("house"))
    controller = held(game)
    assert "Space" in help_keys(controller)
    press(controller, "space", "2", "space")
    assert len(controller.marked) == 2
    press(controller, "enter")
    assert top_cards(game, 2) == ["R7", "R7"]
    assert game.state.last_player == game.seat
    assert len(game.view().hands[game.seat]) == 5
    assert not controller.marked


def test_quit_asks_first() -> None:
    controller = held(stacked(["R7"]))
    assert press(controller, "q") == Outcome.NONE
    assert mode(controller) == Mode.QUIT
    assert controller.paused
    assert words.LEAVE_QUESTION in plain_text(controller.dialog() or [])
    assert press(controller, "n") == Outcome.NONE
    assert mode(controller) == Mode.TABLE
    assert press(controller, "q", "y") == Outcome.QUIT


def test_round_over_shows_the_score_table_then_continues() -> None:
    game = table("rounds", 3, preset("official", ["target=2000"]))
    controller = held(game, "rounds")
    game.add_listener(controller.sync)
    play_out(game, human_policy("me"), until=lambda g: bool(g.summaries))
    assert mode(controller) == Mode.ROUND
    assert controller.paused
    text = plain_text(controller.dialog() or [])
    summary = game.summaries[0]
    assert "won round 1" in text
    for name in game.names:
        assert name in text
    assert str(summary.changes[summary.winner]) in text
    press(controller, "enter")
    assert mode(controller) == Mode.TABLE


def test_game_over_offers_a_new_game() -> None:
    game = table("over", 2, preset("official", ["target=50"]))
    controller = held(game, "over")
    game.add_listener(controller.sync)
    play_out(game, human_policy("me"))
    assert game.state.phase == Phase.GAME_OVER
    assert mode(controller) in (Mode.OVER, Mode.ROUND)
    while mode(controller) == Mode.ROUND:
        press(controller, "enter")
    assert mode(controller) == Mode.OVER
    text = plain_text(controller.dialog() or [])
    assert "Final scores" in text
    assert "Seed over" in text
    assert press(controller, "n") == Outcome.NEW_GAME
    assert press(controller, "q") == Outcome.QUIT


def test_catch_key_catches_a_bot_that_forgot_uno() -> None:
    for attempt in range(30):
        game = table(f"catch{attempt}")
        controller = held(game)
        play_out(game, human_policy(f"catch{attempt}"),
                 until=lambda g: any(isinstance(a, CatchUno) for a in g.legal_actions())
                 or g.state.round > 2)
        if not any(isinstance(a, CatchUno) for a in game.legal_actions()):
            continue
        controller.sync()
        controller.mode = Mode.TABLE
        assert "c" in help_keys(controller)
        (catch,) = [a for a in game.legal_actions() if isinstance(a, CatchUno)]
        cards = len(game.state.hands[catch.target])
        press(controller, "c")
        assert len(game.state.hands[catch.target]) == cards + 2  # RULES.md: caught, +2
        return
    raise AssertionError("no bot forgot UNO in 30 games")


def test_jump_in_key_out_of_turn() -> None:
    game = stacked(["B2", "B9", "B8", "B7", "B6", "B5", "B4"], starter="B1",
                   options=preset("house"))
    controller = held(game)
    game.add_listener(controller.sync)
    press(controller, "1", "enter")
    for _ in range(30):
        jumps = [a for a in game.legal_actions() if isinstance(a, Play)]
        if jumps and game.state.current != game.seat:
            break
        if game.state.current == game.seat:
            press(controller, "d", "p")
        else:
            game.advance(10**6)
    else:
        raise AssertionError("no bot played a card the human holds")
    assert ("j", "jump in") in controller.key_help()
    (jump,) = {a.slots for a in jumps if len(a.slots) == 1}
    hand = game.view().hands[game.seat]
    press(controller, str(hand.index(jump[0]) + 1), "j")
    assert game.state.discard[-1][0] == jump[0]
    assert game.state.last_player == game.seat


def facing_a_wild_draw_four(options: Options | None = None) -> tuple[LocalTable, Controller]:
    """Two players: the human plays Red 7, and the bot (the dealer) can answer it only
    with its Wild Draw Four, which the human may now challenge."""
    game = stacked(["R7", "Y3", "G4"], players=2, options=options,
                   dealer=["W+4", "Y2", "Y4", "Y5", "Y6", "Y8", "Y9"])
    controller = held(game)
    game.add_listener(controller.sync)
    press(controller, "1", "enter")
    game.run_until_human(10**6)
    assert game.state.top_card is not None
    assert short_name(game.state.top_card) == "W+4"
    return game, controller


def test_challenge_a_wild_draw_four_and_give_the_verdict() -> None:
    game, controller = facing_a_wild_draw_four()
    assert ("x", "challenge") in controller.key_help()
    hand = len(game.view().hands[game.seat])
    press(controller, "x")
    assert mode(controller) == Mode.VERDICT
    text = plain_text(controller.dialog() or [])
    assert words.THEIR_HAND.format(name="Bot 1", cards="Y2 Y4 Y5 Y6 Y8 Y9") in text
    assert words.HAD_NO_COLOUR.format(name="Bot 1", colour="Red") in text
    # RULES.md "Challenge": not guilty, the challenger draws 6.
    assert words.NOT_GUILTY.format(count=6) in text
    assert help_keys(controller) == ["Enter"]
    press(controller, "enter")
    assert mode(controller) == Mode.TABLE
    assert len(game.view().hands[game.seat]) == hand + 6


def test_a_verdict_that_runs_out_of_time_says_so() -> None:
    """RULES.md ``turn_timer``: a challenge verdict is a decision of its own, timed like a
    turn. The human challenged (their move, answered), then let the verdict run out:
    that is said, as a turn that ran out is, and the verdict keys are gone."""
    game, controller = facing_a_wild_draw_four(preset("official", ["turn_timer=10"]))
    press(controller, "x")
    assert mode(controller) == Mode.VERDICT
    assert controller.status == "", "the challenge was the human's own move"
    deadline = game.deadline_ms()
    assert deadline is not None
    assert game.state.phase == Phase.CHALLENGE
    assert game.tick(deadline)
    assert controller.status == words.turn_over(RAN_OUT)
    assert mode(controller) == Mode.TABLE


def test_a_second_turn_after_a_skip_that_runs_out_says_so() -> None:
    """RULES.md: with two players a Skip gives the turn straight back. That second turn
    is a new decision: the card played answered the first, so running out of time on
    the second is said."""
    game = stacked(["R-skip", "Y3", "G4"], players=2,
                   options=preset("official", ["turn_timer=10"]))
    controller = held(game)
    game.add_listener(controller.sync)
    press(controller, "1", "enter")
    assert top_cards(game) == ["R-skip"]
    assert game.state.current == game.seat, "the turn came straight back"
    deadline = game.deadline_ms()
    assert deadline is not None
    assert game.tick(deadline)
    assert controller.status == words.turn_over(RAN_OUT)

def test_unknown_key_says_so() -> None:
    controller = held(stacked(["R7"]))
    press(controller, "z")
    assert controller.status == words.KEY_DOES_NOTHING.format(key="z")


def test_a_wild_starter_asks_the_first_player_for_its_colour() -> None:
    game = stacked(["R7", "Y3"], starter="W")
    controller = held(game)
    controller.sync()
    assert game.state.phase == Phase.STARTER_COLOUR
    assert mode(controller) == Mode.COLOUR
    assert controller.status == words.NAME_THE_STARTER
    press(controller, "escape")
    assert mode(controller) == Mode.COLOUR  # naming it is not optional
    press(controller, "y")
    assert game.state.colour == 1
    assert game.view().phase != Phase.STARTER_COLOUR  # read anew: the colour is named
    assert mode(controller) == Mode.TABLE


def test_forced_play_says_why_the_drawn_card_cannot_be_kept() -> None:
    game = stacked(["Y3", "Y4", "G5"], options=preset("official", ["forced_play=true"]))
    controller = held(game)
    press(controller, "d")
    drawn = game.state.drawn
    assert drawn is not None
    assert short_name(game.view().known[drawn]) == "R0"  # the stacked deck's next: on R1
    assert "p" not in help_keys(controller)
    refused = refusal(game, Pass(game.seat))
    press(controller, "p")
    assert refused.rule == "forced_play"
    assert controller.status == words.engine_sentence(str(refused))
    assert game.state.current == game.seat
    press(controller, "enter")
    assert top_cards(game) == ["R0"]
    assert game.state.last_player == game.seat


def test_a_wild_draw_four_bluff_is_allowed_with_a_warning() -> None:
    # RULES.md: a player "may bluff ... the software lets a player make it (a warning is
    # fine)".
    game = stacked(["W+4", "R7"])
    controller = held(game)
    press(controller, "1", "enter")
    assert mode(controller) == Mode.COLOUR
    assert controller.status.startswith("A bluff: you hold Red.")
    press(controller, "y")
    assert top_cards(game) == ["W+4"]
    assert game.state.colour == 1
    assert "W+4" not in hand_names(game)


def test_wild_draw_four_while_holding_the_colour_is_refused_under_wd4_strict() -> None:
    game = stacked(["W+4", "R7"], options=preset("official", ["wd4_strict=true"]))
    controller = held(game)  # "1" is the first card as dealt (a sorted hand puts R7 first)
    refused = refusal(game, first_card_play(game, colour=0))
    press(controller, "1", "enter")
    assert refused.rule == "wild_draw_four"
    assert controller.status == words.engine_sentence(str(refused))
    assert "W+4" in hand_names(game)


def test_question_mark_opens_the_help_with_keys_rules_and_scoring() -> None:
    game = stacked(["R7", "Y3"], options=preset("house", ["target=200"]))
    controller = Controller(game)
    assert ("?", "help") in controller.key_help()
    press(controller, "?")
    assert mode(controller) == Mode.HELP
    assert controller.paused, "bots wait while the help is open"
    text = plain_text(controller.dialog() or [])
    assert "x  challenge a Wild Draw Four" in text
    assert "s  sort: colour / as dealt" in text
    assert "house rules + target=200" in text
    assert "jump_in=true" in text
    assert "the round's winner scores the sum of the others' cards" in text
    assert "reaches 200" in text
    assert "cards you can play now stand raised" in text  # the highlight explained
    press(controller, "escape")
    assert mode(controller) == Mode.TABLE
    press(controller, "h")  # h is help too, and nothing else
    assert mode(controller) == Mode.HELP
    press(controller, "h")
    assert mode(controller) == Mode.TABLE


def test_the_hand_is_sorted_by_colour_and_number_and_s_toggles_it() -> None:
    game = stacked(["Y3", "B7", "W", "R9", "R2", "G-skip", "G4"])
    controller = Controller(game)
    view = game.view()
    shown = [short_name(view.known[s]) for s in controller.hand_order()]
    assert shown == ["R2", "R9", "Y3", "G4", "G-skip", "B7", "W"]
    press(controller, "3")  # Y3
    press(controller, "s")
    assert controller.status == words.HAND_AS_DEALT
    held_order = [short_name(view.known[s]) for s in controller.hand_order()]
    assert held_order == hand_names(game)
    assert held_order[controller.cursor] == "Y3", "the cursor stays on its card"
    press(controller, "s")
    assert [short_name(view.known[s]) for s in controller.hand_order()] == shown
    assert shown[controller.cursor] == "Y3"
    press(controller, "1", "enter")  # the first card shown, R2, plays on R1
    assert top_cards(game) == ["R2"]


def test_a_time_out_says_why_the_next_key_does_nothing() -> None:
    game = stacked(["Y3", "Y4"], options=preset("official", ["turn_timer=10"]))
    controller = Controller(game)
    game.add_listener(controller.sync)
    controller.sync()
    deadline = game.deadline_ms()
    assert deadline is not None
    assert game.tick(deadline)
    assert controller.status == words.turn_over(RAN_OUT)
    press(controller, "d")
    assert controller.status == words.too_late(RAN_OUT)


def test_ctrl_c_asks_and_a_second_ctrl_c_quits() -> None:
    controller = Controller(stacked(["R7"]))
    assert press(controller, "c-c") == Outcome.NONE
    assert mode(controller) == Mode.QUIT
    assert press(controller, "c-c") == Outcome.QUIT


def test_news_scrolls_back_with_the_arrows_and_end_returns() -> None:
    game = stacked(["Y3", "Y4"])
    controller = Controller(game)
    press(controller, "up", "up", "pageup")
    assert controller.news_back == min(10, len(game.news) - 1)
    press(controller, "down")
    assert controller.news_back == min(10, len(game.news) - 1) - 1
    press(controller, "end")
    assert controller.news_back == 0


class JumpedIn:
    """A table on which another player jumps in just after the human's turn began."""

    #: The news line the table tells the jump-in with (the fake's own input).
    JUMP_IN = "Bot 2 jumped in with Red 7."

    def __init__(self, game: LocalTable) -> None:
        self.game = game
        self.jumped = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.game, name)

    @property
    def news(self) -> list[str]:
        extra = [self.JUMP_IN] if self.jumped else []
        return [*self.game.news, *extra]

    def view(self) -> State:
        view = self.game.view()
        return replace(view, current=(self.game.seat + 1) % 3) if self.jumped else view

    def legal_actions(self) -> list[Action]:
        return [] if self.jumped else self.game.legal_actions()


def test_a_jump_in_says_why_the_key_did_nothing() -> None:
    table = JumpedIn(stacked(["Y3", "Y4"]))
    controller = Controller(table)  # type: ignore[arg-type]
    controller.sync()
    table.jumped = True
    controller.sync()  # the table's change notice
    assert controller.status == words.turn_over(JumpedIn.JUMP_IN)
    press(controller, "d")
    assert controller.status == words.too_late(JumpedIn.JUMP_IN)


def test_a_network_game_over_shows_the_audit_and_the_log_and_deals_no_new_game() -> None:
    game = FakeNetworkTable("over", players=2, options=preset("official", ["target=1"]))
    controller = Controller(game, "unused")
    game.add_listener(controller.sync)
    play_out(game, human_policy("over"))
    game.set_status(verdict="OK: every shuffle proven", log="games/friday.unolog")
    assert mode(controller) == Mode.ROUND
    press(controller, "enter")
    assert mode(controller) == Mode.OVER
    text = plain_text(controller.dialog() or [])
    assert "Audit: OK: every shuffle proven" in text
    assert "uno-lan audit games/friday.unolog" in text
    assert "--seed" not in text, "a network game is not replayed from a seed"
    assert controller.key_help() == [("q", "quit")]
    assert press(controller, "n") == Outcome.NONE
    assert press(controller, "q") == Outcome.QUIT


def test_a_self_paced_table_waits_for_the_human_or_the_end() -> None:
    class Paced(SelfPaced):
        def __init__(self, game: LocalTable) -> None:
            self.game = game

        def view(self) -> State:
            return self.game.view()

    game = table("paced", 2, preset("official", ["target=1"]))
    paced = Paced(game)
    assert paced.next() == Next.HUMAN
    assert not paced.advance(0)
    assert not paced.tick(10**9)
    play_out(game, human_policy("paced"))
    assert paced.next() == Next.OVER


class PausingNetworkTable(FakeNetworkTable):
    """A network table whose next round waits for the player (table.md §6)."""

    def __init__(self, seed: str) -> None:
        super().__init__(seed, players=3, options=preset("official", ["target=2000"]))
        self.went_on = 0

    def go_on(self) -> None:
        self.went_on += 1


def test_closing_the_round_scores_lets_a_network_tables_next_round_begin() -> None:
    # Issue 25: the next round waits until the player has closed the round-over box.
    game = PausingNetworkTable("pause")
    controller = Controller(game, "unused")
    game.add_listener(controller.sync)
    play_out(game, human_policy("pause"), until=lambda g: bool(g.summaries))
    assert mode(controller) == Mode.ROUND
    assert game.went_on == 0
    press(controller, "enter")
    assert (mode(controller), game.went_on) == (Mode.TABLE, 1)


def test_the_round_scores_give_way_when_the_players_timer_starts() -> None:
    # Issue 25, "no timer runs behind a dialog": once the pause is over and the player's
    # own first decision has begun, the scores close and the table shows its timer.
    game = PausingNetworkTable("pause")
    controller = Controller(game, "unused")
    game.add_listener(controller.sync)
    play_out(game, human_policy("pause"), until=lambda g: bool(g.summaries))
    play_out(game, human_policy("pause"),
             until=lambda g: g.view().decider() == g.seat or len(g.summaries) > 1)
    assert game.view().decider() == game.seat
    controller.sync()
    assert mode(controller) == Mode.TABLE
    assert controller.status == words.NEXT_ROUND_YOUR_TURN
    assert game.went_on == 1

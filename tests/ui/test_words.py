"""Moves in plain words, as the log pane shows them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from tests.ui.helpers import human_policy, names_to_cards, play_out, table
from uno_p2p.rules import (
    Action,
    CardsDrawn,
    ChallengeResolved,
    ChooseColour,
    DealerChosen,
    Draw,
    Event,
    GameOver,
    Pass,
    Play,
    RoundOver,
    SayUno,
    ShuffleRequested,
    Slot,
    State,
    UnoCaught,
    UnoSaid,
    preset,
)
from uno_p2p.ui import words
from uno_p2p.ui.session import LocalTable
from uno_p2p.ui.words import (
    Narrator,
    back_line,
    cards_phrase,
    quit_lines,
    reconnecting_line,
    removed_line,
)

NAMES = ("You", "Bot 1", "Bot 2", "Bot 3")
S = [Slot(7, i) for i in range(8)]


@pytest.fixture
def view() -> State:
    game = table("words")
    game.run_until_human()
    return replace(game.view(), players=NAMES, current=2)


def say(narrator: Narrator, before: State, action: Action, events: Sequence[Event],
        after: State | None = None) -> list[str]:
    return narrator.describe(before, action, events, after or before)


def test_plays_in_plain_words(view: State) -> None:
    narrator = Narrator(NAMES, 0)
    red7, blue3, blue4, skip, skip2, wild = names_to_cards("R7", "B3", "B4", "R-skip", "R-skip",
                                                           "W")
    assert say(narrator, view, Play(2, (S[0],), (red7,)), []) == ["Bot 2 played Red 7."]
    assert say(narrator, view, Play(3, (S[0],), (red7,)), []) == ["Bot 3 jumped in with Red 7."]
    assert say(narrator, view, Play(2, (S[0],), (wild,), colour=3), []) == \
        ["Bot 2 played Wild, naming Blue."]
    assert say(narrator, view, Play(2, (S[0], S[1]), (skip, skip2)), []) == \
        ["Bot 2 played two Red Skips."]
    # RULES.md "Skip: the next player loses their turn": play goes from Bot 2 to You.
    skipped = replace(view, order=(0, 1, 2, 3), direction=1, current=0)
    assert say(narrator, view, Play(2, (S[0],), (skip,)), [], skipped) == \
        ["Bot 2 played Red Skip.", "Bot 3 is skipped."]
    bot3 = Narrator(NAMES, 3)
    assert say(bot3, view, Play(2, (S[0],), (skip,)), [], skipped) == \
        ["Bot 2 played Red Skip.", "You are skipped."]
    assert cards_phrase((blue3, blue4)) == "Blue 3 + Blue 4"
    mine = replace(view, current=0)
    assert say(narrator, mine, Play(0, (S[0],), (red7,), target=1),
               []) == ["You played Red 7, and swapped hands with Bot 1."]


def test_draws_name_only_the_readers_own_card(view: State) -> None:
    narrator = Narrator(NAMES, 0)
    (green5,) = names_to_cards("G5")
    after = replace(view, known={**view.known, S[3]: green5})
    assert say(narrator, view, Draw(2), [CardsDrawn(2, (S[3],), "draw")], after) == \
        ["Bot 2 drew a card."]
    assert say(narrator, view, Draw(0), [CardsDrawn(0, (S[3],), "draw")], after) == \
        ["You drew Green 5."]
    assert say(narrator, view, Draw(2), [CardsDrawn(2, tuple(S[:4]), "penalty")]) == \
        ["Bot 2 drew 4 cards as a penalty and loses their turn."]
    yellow7, yellow3 = names_to_cards("Y7", "Y3")
    penalty = replace(view, known={**view.known, S[3]: yellow7, S[4]: yellow3})
    assert say(narrator, view, Draw(0), [CardsDrawn(0, (S[3], S[4]), "penalty")], penalty) == \
        ["You drew Yellow 7 and Yellow 3 as a penalty and lose your turn."]
    assert say(narrator, view, Draw(2), []) == [
        "Bot 2 could not draw: there are no cards left."]
    assert say(narrator, view, Pass(2), []) == ["Bot 2 passed, keeping the card drawn."]
    assert say(narrator, view, Pass(0), []) == ["You passed, keeping the card drawn."]


def test_the_wild_starters_colour(view: State) -> None:
    narrator = Narrator(NAMES, 0)
    assert say(narrator, view, ChooseColour(0, 1), []) == [
        "You named Yellow for the Wild starter."]
    assert say(narrator, view, ChooseColour(3, 2), []) == [
        "Bot 3 named Green for the Wild starter."]


def test_uno_and_catching(view: State) -> None:
    narrator = Narrator(NAMES, 0)
    (red7,) = names_to_cards("R7")
    mine = replace(view, current=0)
    assert say(narrator, mine, Play(0, (S[0],), (red7,), say_uno=True), [UnoSaid(0)]) == [
        "You played Red 7.", "You: UNO!"]
    assert narrator.event_line(view, UnoSaid(2), view) == "Bot 2: UNO!"
    caught: list[Event] = [UnoCaught(1, 0), CardsDrawn(0, (S[0], S[1]), "caught")]
    red7, red3 = names_to_cards("R7", "R3")
    after = replace(view, known={**view.known, S[0]: red7, S[1]: red3})
    assert say(narrator, view, SayUno(2), caught, after) == [
        "You were caught without UNO by Bot 1: +2.", "You drew Red 7 and Red 3 for it."]
    theirs: list[Event] = [UnoCaught(0, 2), CardsDrawn(2, (S[0], S[1]), "caught")]
    assert say(narrator, view, SayUno(1), theirs) == ["You caught Bot 2 without UNO: +2."]
    assert narrator.event_line(view, UnoCaught(0, 2), view) == \
        "You caught Bot 2 without UNO: +2."
    assert narrator.event_line(view, UnoCaught(3, 2), view) == \
        "Bot 3 caught Bot 2 without UNO: +2."


def test_challenge_verdicts(view: State) -> None:
    narrator = Narrator(NAMES, 0)
    during = replace(view, challenge=(0, 2, 0))
    assert narrator.event_line(during, ChallengeResolved(0, 2, True), view) == \
        "Bot 2 was guilty: the hand held Red, so the penalty goes back to them."
    assert narrator.event_line(during, ChallengeResolved(0, 2, False), view) == \
        "Bot 2 was not guilty: the hand held no Red, so the challenger draws the penalty " \
        "and 2 more."
    against_me = replace(view, challenge=(1, 0, 3))
    assert narrator.event_line(against_me, ChallengeResolved(1, 0, False), view) == \
        "You were not guilty: the hand held no Blue, so the challenger draws the penalty " \
        "and 2 more."


def test_rounds_dealers_reshuffles_and_the_end(view: State) -> None:
    narrator = Narrator(NAMES, 0)
    line = narrator.event_line
    assert line(view, DealerChosen(0, 2), view) == "Round 2: You deal."
    assert line(view, DealerChosen(3, 2), view) == "Round 2: Bot 3 deals."
    assert line(view, RoundOver(3, 2, (0, 0, 87, 0)), view) == "Bot 2 won round 3 (+87 points)."
    assert line(view, RoundOver(3, -1, (0, 0, 0, 0)), view) == "Round 3 is void: nobody scores."
    losses = replace(view, options=preset("official", ["scoring=losses"]))
    assert line(losses, RoundOver(1, 2, (5, 9, 0, 3)), view) == "Bot 2 won round 1."
    assert line(view, GameOver(1, -1), view) == "Bot 1 won the game!"
    assert line(view, GameOver(1, 1), view) == "Team 2 won the game with Bot 1!"
    reshuffle = ShuffleRequested(4, 2, (S[0], S[1]), tuple(names_to_cards("R1", "R2")))
    assert line(view, reshuffle, view) == "The discard pile was shuffled into a new draw pile."
    assert line(view, ShuffleRequested(5, 108), view) is None


def test_a_human_who_forgets_uno_is_caught_in_plain_words() -> None:
    brain = human_policy("forgetful")

    def forgetful(game: LocalTable) -> Action | None:
        """The heuristic human, who never says UNO."""
        legal = [a for a in game.legal_actions() if not isinstance(a, SayUno)]
        quiet = [a for a in legal if not (isinstance(a, Play) and a.say_uno)] or legal
        choice = brain(game)
        return choice if choice in quiet else quiet[0]

    def caught(game: LocalTable) -> bool:
        return any(line.startswith("You were caught without UNO by Bot ") for line in game.news)

    for attempt in range(20):
        game = table(f"forget{attempt}")
        play_out(game, forgetful, until=lambda g: caught(g) or g.state.round > 1)
        if caught(game):
            return
    pytest.fail("nobody caught the human in 20 rounds without UNO")


def test_the_quit_question_says_what_leaving_does_to_the_others() -> None:
    # table.md §8, issue 25: a network player is told whether the others play on.
    assert quit_lines(None) == ("Leave this game?",)
    assert quit_lines(False) == ("Leave this game?", "The others play on without you.")
    assert quit_lines(True) == ("Leave this game?", "This ends the game for everyone.")


def test_removals_and_links_in_one_short_line_each() -> None:
    # Issue 25: a player reads who left or vanished, and who is out of reach, in words.
    assert removed_line("Bo", True, False) == \
        "Bo left the table: the round is void and the others play on."
    assert removed_line("Bo", False, False) == \
        "Bo did not come back and was removed: the round is void and the others play on."
    assert removed_line("Bo", True, True) == "You left the table; the others play on."
    assert reconnecting_line("Bot 1") == "Bot 1 is reconnecting…"
    assert back_line("Bot 1") == "Bot 1 is back."
    assert reconnecting_line(None) == "You are reconnecting…"
    assert back_line(None) == "You are back."


def test_the_status_line_says_what_a_key_did_or_why_it_did_nothing() -> None:
    # The controller's one sentence (ui/controller.py); tests/ui/test_controller asserts
    # through these names.
    assert words.WELCOME == ("Welcome! ←/→ choose a card, Enter plays it, d draws, ? shows "
                             "every key.")
    assert words.NEXT_ROUND_YOUR_TURN == "The next round has begun: your turn."
    assert words.NO_LONGER_POSSIBLE == "Too late: that play is no longer possible."
    assert words.NAME_THE_STARTER == "The starter is a Wild: name the colour to match."
    assert words.TYPE_A_MESSAGE == "Type your message; Enter sends it, Esc cancels."
    assert words.KEY_DOES_NOTHING.format(key="z") == (
        "The key z does nothing here: press ? for the list of keys.")
    assert words.HAND_SORTED == "Your hand is sorted by colour and number."
    assert words.HAND_AS_DEALT == "Your hand is in the order you got the cards."
    assert words.NOT_YOUR_TURN == "It is not your turn."
    assert words.DRAWN_ALREADY == "You have drawn already: play that card (Enter) or pass (p)."
    assert words.ONLY_AFTER_DRAWING == (
        "You can pass only right after drawing a card: press d to draw.")
    assert words.UNO_ARMED == "You will say UNO with your next play."
    assert words.UNO_DISARMED == "You will not say UNO with your next play."
    assert words.UNO_WHEN == "Say UNO when you are down to one card (or with the play before)."
    assert words.NOBODY_TO_CATCH == (
        "Nobody can be caught now: catch a player left with one card who has not said UNO.")
    assert words.NOTHING_TO_CHALLENGE == "There is no Wild Draw Four played on you to challenge."
    assert words.JUMP_IN_WITH.format(cards="Red 7") == (
        "You can jump in with Red 7: select it, then press j.")
    assert words.JUMP_NOT_ON_YOUR_TURN == (
        "Jumping in is for when it is not your turn: press Enter to play.")
    assert words.CANNOT_PLAY.format(cards="Red 7 + Red 7") == "You cannot play Red 7 + Red 7 now."
    assert words.BLUFF.format(colour="Red") == (
        "A bluff: you hold Red. If challenged you draw 4 instead. Name a colour to play it, "
        "Esc to think again.")
    assert words.NO_CHAT == "This table has no chat."


def test_a_turn_taken_and_an_engine_refusal_in_the_status_line() -> None:
    ran_out = words.RAN_OUT.format(who=words.YOU)
    assert ran_out == "You ran out of time."
    assert words.RAN_OUT.format(who="Bot 1") == "Bot 1 ran out of time."
    assert words.turn_over(ran_out) == "Your turn is over: you ran out of time."
    assert words.too_late(ran_out) == "Too late: you ran out of time."
    assert words.turn_over("Bot 2 jumped in with Red 7.") == (
        "Your turn is over: Bot 2 jumped in with Red 7.")
    assert words.too_late("Bot 2 jumped in with Red 7.") == "Too late: Bot 2 jumped in with Red 7."
    assert words.turn_over(words.TURN_MOVED_ON) == "Your turn is over: the turn moved on."
    # The engine's refusals, in the second person and as one sentence.
    assert words.engine_sentence("Yellow 3 matches neither the colour nor the face on the "
                                 "pile") == (
        "Yellow 3 matches neither the colour nor the face on the pile.")
    assert words.engine_sentence("You must play the Red 0 just drawn (forced_play)") == (
        "You must play the Red 0 just drawn (forced_play).")
    assert words.engine_sentence("You holds a card of the colour to match and may not play a "
                                 "Wild Draw Four") == (
        "You hold a card of the colour to match and may not play a Wild Draw Four.")
    assert words.engine_sentence("after drawing, You may play only the card just drawn") == (
        "After drawing, You may play only the card just drawn.")
    assert words.engine_sentence("You's hand is full!") == "Your hand is full!"


def test_the_lobby_says_what_the_table_waits_for_and_what_a_key_did() -> None:
    # ui/lobby.py and ui/lobby_app.py; tests/ui/test_lobby asserts through these names.
    assert words.LINK_TO_HOST_LOST.format(host="Ann") == (
        "The link to Ann is lost: reconnecting… (q leaves the table)")
    assert words.NEED_PLAYERS.format(count=2) == "Waiting for players: at least 2 are needed."
    assert words.WAITING_FOR_READY.format(names=words.names_and(["you", "Bob"])) == (
        "Waiting for you and Bob to be ready.")
    assert words.names_and(["you"]) == "you"
    assert words.names_and(["Ann", "Bob", "Cy"]) == "Ann, Bob and Cy"
    assert words.ALL_READY_PRESS_S == "Everyone is ready: press s to start."
    assert words.ALL_READY_WAITING.format(host="Ann") == (
        "Everyone is ready: waiting for Ann to start.")
    assert words.ASKS_FOR_A_CODE == "This table asks for a join code."
    assert words.TELL_THE_CODE == "  (tell it to the players you invite)"
    assert words.PRESS_R == "Press r when you are ready."
    assert (words.READY, words.NOT_READY) == ("You are ready.", "You are not ready.")
    assert words.ONLY_THE_HOST == "Only the host can do that."
    assert words.LEAVE_THE_TABLE == "Leave this table? y: leave, n: stay."
    assert words.RULES_PROMPT == "Rules (a preset and/or name=value):"
    assert words.NOT_ENOUGH_TO_START.format(count=2) == (
        "At least 2 players are needed: add a bot (b) or wait for players.")
    assert words.NOT_ALL_READY == "Not everyone is ready yet: wait for them, or kick (k)."
    assert words.STARTING == "Starting the game…"
    assert words.CANNOT_KICK_YOURSELF == (
        "You cannot kick yourself: q leaves (and closes the table).")
    assert words.ASKED_TO_LEAVE.format(name="Bob") == "Bob was asked to leave."
    assert words.TABLE_FULL == "The table is full."
    assert words.A_BOT_SITS_DOWN == "A bot sits down."
    assert words.one_sentence("there is no preset 'hose'") + words.PRESETS_ARE.format(
        presets="official, house") == "There is no preset 'hose'. Presets: official, house."
    assert words.RULES_CHANGED == "The rules are changed."


def test_the_table_picker_says_what_it_found() -> None:
    assert words.tables_found(0) == words.LOOKING == "Looking for tables on this network…"
    assert words.tables_found(1) == "1 table found: ↑↓ choose, Enter joins."
    assert words.tables_found(2) == "2 tables found: ↑↓ choose, Enter joins."
    assert words.NONE_FOUND_YET == (
        "None found yet. Ask the host to run uno-lan host on the same network (Wi-Fi or "
        "cable); tables appear here as they are announced.")
    assert words.OTHER_VERSION.format(table="Attic", version=3) == (
        "Attic runs another version of uno-lan (protocol 3): choose another table.")
    assert words.ALREADY_PLAYING.format(table="Busy") == (
        "Busy is already playing: choose another table.")
    assert words.TABLE_IS_FULL.format(table="Full") == "Full is full: choose another table."
    assert words.CODE_PROMPT.format(table="Attic") == "Join code for Attic:"
    assert words.TYPE_THE_CODE == "Type the join code the host gave you, or Esc to choose again."


def test_a_network_table_s_status_in_words() -> None:
    # ui/status.py; tests/ui/test_status asserts through these names.
    shown = [words.PRESENT.format(name="Ann"), words.MISSING.format(name="Bob"),
             words.PRESENT.format(name="Bot 1") + words.A_BOT]
    assert words.PLAYERS + "  ".join(shown) == "Players: ● Ann  ○ Bob missing  ● Bot 1 (bot)"
    assert words.TURN_TIMER.format(left=10) == "Turn timer: 10 s left"
    assert words.GAME_STOPPED.format(said="Cy: sent a shuffle whose proof fails") == (
        "The game stopped. Cy: sent a shuffle whose proof fails.")
    assert words.STILL_PROVABLE.format(what="that Cy cheated, from entry 12") == (
        "The log can still prove that Cy cheated, from entry 12.")
    assert words.LOG_KEPT_IN.format(log="a.unolog") == "The log is kept in a.unolog; check it with"
    assert words.AUDIT_COMMAND.format(log="a.unolog") == "uno-lan audit a.unolog"
    assert words.ANYONE_CAN_CHECK.format(log="a.unolog") == (
        "Anyone can check the log: uno-lan audit a.unolog")
    assert words.CHAT_LINE.format(who=words.CHAT_YOU, text="hi") == "you: hi"
    assert words.SAY_SOMETHING == "type something to say first"
    assert words.CHAT_TOO_LONG.format(most=200) == "a message is at most 200 characters"
    assert words.NO_CONTROL_CHARACTERS == "a message cannot hold control characters"


def test_the_game_over_box_names_the_winner() -> None:
    # ui/dialogs.py; tests/ui/test_dialogs asserts through these names.
    assert words.WINS_THE_GAME.format(name="Bot 3") == "Bot 3 wins the game."
    assert words.YOU_WIN == "You win the game!"
    assert words.TEAM_WINS.format(team=2, who="Bot 1") == "Team 2 wins the game with Bot 1!"


def test_a_challenge_s_verdict_in_words() -> None:
    # ui/overlays.py, RULES.md "Challenging"; tests/ui/test_controller asserts through these.
    assert words.THEIR_HAND.format(name="Bot 1", cards="Y2 Y4") == "Bot 1's hand: Y2 Y4"
    assert words.HAD_THE_COLOUR.format(name="Bot 1", colour="Red") == (
        "Bot 1 had Red card when they played the Wild Draw Four.")
    assert words.HAD_NO_COLOUR.format(name="Bot 1", colour="Red") == (
        "Bot 1 had no Red card when they played the Wild Draw Four.")
    assert words.GUILTY.format(name="Bot 1", count=4) == (
        "Guilty: Bot 1 draws 4 instead, and you play on.")
    assert words.NOT_GUILTY.format(count=6) == "Not guilty: you draw 6."

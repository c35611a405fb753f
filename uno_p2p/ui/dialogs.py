"""Pure rendering of the boxes drawn over the table: pickers, the round's score
table, the end of the game, and the quit question."""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.utils import get_cwidth

from uno_p2p.rules import Options, short_name
from uno_p2p.ui.render import Block, Line, Seats, pad, width_of
from uno_p2p.ui.session import RoundSummary

MAX_HAND_SHOWN = 8  # keeps the score table inside 80 columns


def boxed(title: str, body: Block, footer: str = "") -> Block:
    """``body`` in a frame with ``title`` on top and ``footer`` below."""
    inner = max([width_of(line) for line in body] + [get_cwidth(title) + 2,
                                                     get_cwidth(footer)])
    style = "class:dialog"
    top = [(style, "╭─"), ("class:dialog.title", f" {title} "),
           (style, "─" * max(0, inner - get_cwidth(title) - 1) + "╮")]
    rows: Block = [top]
    for line in body:
        rows.append([(style, "│ "), *pad([(f"{style} {s}".strip(), t) for s, t in line], inner,
                                         style), (style, " │")])
    if footer:
        rows.append([(style, "│ "), *pad([(style, "")], inner, style), (style, " │")])
        rows.append([(style, "│ "), *pad([(f"{style} class:marker", footer)], inner, style),
                     (style, " │")])
    rows.append([(style, "╰" + "─" * (inner + 2) + "╯")])
    return rows


def choices(items: Sequence[tuple[str, str]]) -> Block:
    """``key  what`` rows of a picker."""
    return [[("class:marker", f" {key} "), ("", f" {what}")] for key, what in items]


def _scores_unit(options: Options) -> str:
    return {"points": "points", "losses": "points (fewest wins)", "chips": "chips"}[
        options.scoring]


def round_table(summary: RoundSummary, seats: Seats, options: Options) -> Block:
    """Everyone's revealed hand, its points, the change and the total."""
    name_w = max(get_cwidth(n) for n in seats.names)
    if summary.winner < 0:
        title: Line = [("class:marker", f"Round {summary.round} is void: nobody scores.")]
    else:
        title = [("class:marker", f"{seats.who(summary.winner)} won round {summary.round}.")]
    rows: Block = [title, [],
                   [("class:muted", f"{'':{name_w}}  {'hand':>5} {'change':>7} {'total':>6}"
                     "  cards left")]]
    for seat, name in enumerate(seats.names):
        hand = summary.hands[seat]
        shown = " ".join(short_name(c) for c in hand[:MAX_HAND_SHOWN])
        if len(hand) > MAX_HAND_SHOWN:
            shown += f" +{len(hand) - MAX_HAND_SHOWN}"
        change = summary.changes[seat]
        style = "class:me" if seat == seats.me else ""
        rows.append([(style, f"{name:{name_w}}  {summary.hand_points[seat]:>5} "
                             f"{change:>+7} {summary.scores[seat]:>6}  {shown or '-'}")])
    rows += [[], [("class:muted", f"Scores are {_scores_unit(options)}; "
                                  f"the game ends at {options.target}.")]]
    return rows


def game_over(summary: RoundSummary, seats: Seats, options: Options, seed: str) -> Block:
    """The winner, the final scores in order, and how to play the same deal again."""
    winner = summary.game_winner
    if options.teams:
        head = f"Team {winner % options.teams + 1} wins the game with {seats.who(winner)}!"
    elif winner == seats.me:
        head = "You win the game!"
    else:
        head = f"{seats.names[winner]} wins the game."
    order = sorted(range(len(seats.names)), key=lambda s: summary.scores[s],
                   reverse=options.scoring != "losses")
    rows: Block = [[("class:uno", head)], [], [("class:muted", "Final scores:")]]
    for place, seat in enumerate(order, 1):
        style = "class:me" if seat == seats.me else ""
        rows.append([(style, f" {place:>2}. {seats.names[seat]:<16} {summary.scores[seat]:>6}")])
    rounds = f"{summary.round} round{'s' if summary.round != 1 else ''}"
    rows += [[], [("class:muted", f"{rounds}. Seed {seed}: play the same game again "
                                  f"with --seed {seed}")]]
    return rows

"""Online points (SPEC R6) as a pure function of a game's ending change.

An online win scores 50 points for the winner, stored in the same transaction as the game's
end (the :class:`~..records.Award` of the change), and kept apart from AI points; losses,
draws and interruptions score nothing.

Against farming (one player feeding another wins): the same two players score
online points for at most :data:`SCORED_GAMES_PER_PAIR` games in any 24 hours. Whether a game
scores is decided when it starts (the room counts the pair's scored games then) and kept in
its options as ``unscored: "pair_limit"``, so the end of the game stays a pure function and
both players can know before the first move that the game scores nothing.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from ..games import changes as rules_of
from ..records import Award, Change, GameRecord

ONLINE_WIN_POINTS = 50  # SPEC R6
PAIRED = "paired"  # the ``unscored`` reason of a paired game (B1: rated, not scored)
SCORED_GAMES_PER_PAIR = 3  # default of RoomSettings.scored_games_per_pair (in 24 hours)
PAIR_WINDOW = timedelta(hours=24)


def unscored_reason(scored_games_of_pair: int, limit: int) -> str | None:
    """Why a new game between two players scores nothing, given how many of their games
    scored in the last 24 hours, or None when it scores as usual (R6)."""
    return "pair_limit" if scored_games_of_pair >= limit else None


def costs_nothing(game: GameRecord, side: int) -> bool:
    """B1: a paired game that ``side`` leaves, or whose clock runs out on it, before that
    side's own first move ends abandoned: no winner, no loss, no rating."""
    if not game.options.get("paired"):
        return False
    own_first_ply = 0 if rules_of.first_turn(game.start_fen) == side else 1
    return game.ply <= own_first_ply


def scored(change: Change, sides: list[str] | None) -> Change:
    """``change`` with the winner's online points when it ends the game with a winner;
    ``sides`` are the player ids of side 0 and side 1. Otherwise ``change`` itself."""
    after = change.after
    winner = (after.result or {}).get("winner")
    if after.ongoing or winner is None or sides is None or after.options.get("unscored"):
        return change
    winner_id = sides[rules_of.side_names(after.variant).index(winner)]
    after = replace(after, points_awarded=ONLINE_WIN_POINTS)
    events = [
        {**e, "points_awarded": ONLINE_WIN_POINTS} if e["type"] == "end" else e
        for e in change.events
    ]
    return Change(change.before, after, events, Award(winner_id, "online", ONLINE_WIN_POINTS))

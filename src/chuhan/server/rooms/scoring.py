"""Online points (SPEC R6) as a pure function of a game's ending change.

An online win scores 50 points for the winner, stored in the same transaction as the game's
end (the :class:`~..storage.Award` of the change), and kept apart from AI points; losses,
draws and interruptions score nothing. A rule that withholds points (for example against
farming) belongs here, beside the award it withholds.
"""

from __future__ import annotations

from dataclasses import replace

from .. import games as rules_of
from ..games import Change
from ..storage import Award

ONLINE_WIN_POINTS = 50  # SPEC R6


def scored(change: Change, sides: list[str] | None) -> Change:
    """``change`` with the winner's online points when it ends the game with a winner;
    ``sides`` are the player ids of side 0 and side 1. Otherwise ``change`` itself."""
    after = change.after
    winner = (after.result or {}).get("winner")
    if after.ongoing or winner is None or sides is None:
        return change
    winner_id = sides[rules_of.side_names(after.variant).index(winner)]
    after = replace(after, points_awarded=ONLINE_WIN_POINTS)
    events = [
        {**e, "points_awarded": ONLINE_WIN_POINTS}
        if e["type"] == "end"
        else e
        for e in change.events
    ]
    return Change(change.before, after, events, Award(winner_id, "online", ONLINE_WIN_POINTS))

"""``GET /api/facts``: the rule facts the web client shows but the server decides, built from
the constants that decide them, so the client keeps no copy that could drift:

- ``janggi``: each piece's points by its FEN letter and Han's bonus for moving second (J8),
  as :mod:`chuhan.rules.janggi` counts them;
- ``draw_offer_gap``: the half-moves between one player's draw offers (R5,
  :mod:`..rooms.rules`);
- ``clocks``: R4's turn clock's id and the game clocks a room or a seek may choose (B7,
  :mod:`..rooms.timecontrols`), in the order the forms offer them.

The same for every player and every instance: no identity is read and nothing is stored.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...rules.geometry import KIND_LETTERS
from ...rules.janggi import HAN_BONUS, PIECE_POINTS
from ..rooms.rules import DRAW_OFFER_GAP
from ..rooms.timecontrols import CONTROLS, TURN


def rule_facts() -> dict[str, Any]:
    """The facts as ``GET /api/facts`` answers them (module docstring)."""
    return {
        "janggi": {
            "points": {
                letter: PIECE_POINTS[kind]
                for kind, letter in enumerate(KIND_LETTERS)
                if letter != " "
            },
            "han_bonus": HAN_BONUS,
        },
        "draw_offer_gap": DRAW_OFFER_GAP,
        "clocks": {
            "turn": TURN,
            "controls": [
                {
                    "id": control.id,
                    "base_minutes": control.base / 60,
                    "increment": control.increment,
                    "periods": control.periods,
                    "period_seconds": control.period_seconds,
                    "variants": list(control.variants),
                }
                for control in CONTROLS.values()
            ],
        },
    }


def facts_router() -> APIRouter:
    """The one route (module docstring)."""
    router = APIRouter()
    facts = rule_facts()

    @router.get("/api/facts")
    async def get_facts() -> dict[str, Any]:
        return facts

    return router

"""The rule facts the web client shows come from the server (``GET /api/facts``), built from
the constants that decide them: janggi's points (J8), the draw-offer gap (R5) and the clock
choices (B7, R4). The client keeps no copy of them that could drift."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chuhan.rules.janggi import JanggiBoard
from chuhan.server import Settings, create_app
from chuhan.server.rooms import timecontrols
from chuhan.server.rooms.rules import DRAW_OFFER_GAP

WEB_JS = Path(__file__).resolve().parent.parent / "src" / "chuhan" / "web" / "js"


@pytest.fixture(scope="module")
def facts() -> dict[str, Any]:
    with TestClient(create_app(Settings(database_url="sqlite://"))) as client:
        answer = client.get("/api/facts")
    assert answer.status_code == 200
    facts: dict[str, Any] = answer.json()
    return facts


def janggi_totals(facts: dict[str, Any], fen: str) -> tuple[float, float]:
    """What the play view counts (web/js/facts.js): each piece's points, Han's bonus."""
    points = facts["janggi"]["points"]
    placement = fen.split(" ")[0]
    cho = sum(points[ch.lower()] for ch in placement if ch.isalpha() and ch.isupper())
    han = sum(points[ch] for ch in placement if ch.isalpha() and ch.islower())
    return cho, han + facts["janggi"]["han_bonus"]


@pytest.mark.parametrize(
    "fen",
    [
        JanggiBoard(setup="HEEH:EHHE").fen(),
        "4k4/9/9/9/9/9/9/4C4/4R4/4K4 w - - 0 1",
        "3ak4/4r4/9/p8/9/9/9/9/4A4/3K1N3 w - - 0 1",
    ],
)
def test_the_janggi_points_the_client_counts_are_the_rules_J8(
    facts: dict[str, Any], fen: str
) -> None:
    assert janggi_totals(facts, fen) == JanggiBoard(fen=fen).points()


def test_the_draw_offer_gap_is_the_rooms_R5(facts: dict[str, Any]) -> None:
    assert facts["draw_offer_gap"] == DRAW_OFFER_GAP


def test_the_clock_choices_are_the_ones_the_server_accepts_B7(facts: dict[str, Any]) -> None:
    clocks = facts["clocks"]
    assert clocks["turn"] == timecontrols.TURN
    for variant in timecontrols.VARIANTS:
        offered = [clocks["turn"]] + [
            c["id"] for c in clocks["controls"] if variant in c["variants"]
        ]
        assert offered == timecontrols.offered(variant)
    for control in clocks["controls"]:
        server = timecontrols.CONTROLS[control["id"]]
        assert control["base_minutes"] * 60 == server.base
        assert (control["increment"], control["periods"], control["period_seconds"]) == (
            server.increment, server.periods, server.period_seconds,
        )  # fmt: skip


def test_the_client_keeps_no_copy_of_the_facts() -> None:
    sources = {path.name: path.read_text("utf-8") for path in WEB_JS.glob("*.js")}
    copies = [
        f"{name}: {what}"
        for name, text in sources.items()
        for what in [
            *(f'"{id}"' for id in timecontrols.CONTROLS if f'"{id}"' in text),
            *re.findall(r"chariot:\s*13|DRAW_OFFER_GAP\s*=\s*\d+|han:\s*1\.5", text),
        ]
    ]
    assert not copies, f"facts the server sends are written again: {copies}"

"""The review in a real browser (SPEC U6, U9, N1–N4, Q5, Q7, Z2): stepping through a
game by keyboard and mouse in each variant, the FEN of the position shown, the downloaded
record, the share link in a fresh browser, the engine analysis, and a jieqi game that shows
nothing hidden before its end. One server for the module (its analysis node budget small).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from chuhan.rules import make_board
from chuhan.rules.record import read_record

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import ServerProcess, server_environment  # noqa: E402
from web_fixtures import (  # noqa: E402
    DESKTOP,
    checked_page,
    click_point,
    open_page,
    piece_at,
    play,
)

pytest_plugins = ["web_fixtures"]
pytestmark = pytest.mark.timeout(180)
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]
# Moves of the generals only: no jieqi piece is turned up, so the FENs are the rules' own.
GENERALS = {"xiangqi": ["e1e2", "e10e9", "e2e1"], "jieqi": ["e1e2", "e10e9", "e2e1"]}
GENERALS["janggi"] = ["e2d2", "e9d9", "d2e2"]


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = server_environment(CHUHAN_AI_WORKERS="2", CHUHAN_ANALYSIS_NODES="2500")
    with ServerProcess(tmp_path_factory.mktemp("review-data"), env).running() as url:
        yield url


def new_context(chromium: Browser, url: str) -> BrowserContext:
    context = chromium.new_context(base_url=url, viewport=DESKTOP, locale="en-US")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    return context


@pytest.fixture
def page(chromium: Browser, review_server: str) -> Iterator[Page]:
    yield from checked_page(new_context(chromium, review_server))


def shown_ply(page: Page) -> int:
    return int(page.get_attribute("[data-game]", "data-review-ply") or "-1")


def announced(page: Page, text: str) -> None:
    expect(page.locator("#announcer")).to_contain_text(text)


def rules_fens(variant: str, moves: list[str]) -> list[str]:
    board = make_board(variant)
    fens = [board.fen()]
    for move in moves:
        board.push(move)
        fens.append(board.fen())
    return fens


def split(move: str) -> tuple[str, str]:
    found = re.fullmatch(r"([a-i]\d+)([a-i]\d+)", move)
    assert found, move
    return found[1], found[2]


def local_game(page: Page, variant: str, moves: list[str]) -> str:
    open_page(page, f"/play/local?variant={variant}")
    for move in moves:
        play(page, move)
    return str(page.get_attribute("[data-game]", "data-game"))


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_stepping_through_a_game_by_keyboard_and_mouse_u6_u9(page: Page, variant: str) -> None:
    moves = GENERALS[variant]
    local_game(page, variant, moves)
    fens = rules_fens(variant, moves)
    mover = split(moves[1])
    page.click("[data-review=previous]")  # mouse: one move back
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "2")
    assert piece_at(page, mover[1]) is not None
    assert piece_at(page, split(moves[2])[1]) is None
    assert page.locator(f'[data-point="{mover[0]}"] .mark-last').count() == 1
    announced(page, "Move 2 of 3")
    page.keyboard.press("ArrowLeft")  # keyboard, the focus on the step buttons
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "1")
    page.keyboard.press("Home")
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "0")
    announced(page, "Start position")
    page.click("[data-review=copy-fen]")
    assert page.get_attribute("[data-review-output]", "data-fen") == fens[0]
    page.keyboard.press("End")
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "3")
    page.click('.move-list .move[data-ply="2"]')  # a click on a move in the list
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "2")
    assert page.get_attribute('.move-list .move[data-ply="2"]', "aria-current") == "step"
    page.click("[data-review=copy-fen]")
    assert page.get_attribute("[data-review-output]", "data-fen") == fens[2]
    assert page.evaluate("navigator.clipboard.readText()") == fens[2]
    page.focus('.move-list .move[data-ply="1"]')
    page.keyboard.press("Enter")
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "1")
    assert page.get_attribute("[data-game]", "data-ply") == "3"  # nothing was sent


def test_a_live_game_steps_back_without_moving_and_a_new_move_brings_it_back(page: Page) -> None:
    game_id = local_game(page, "xiangqi", ["h3e3", "h10g8"])
    page.click("[data-review=first]")
    expect(page.locator("[data-review=present]")).to_be_visible()
    click_point(page, "b3")  # a piece of the side to move, in an earlier position
    click_point(page, "b5")
    announced(page, "earlier position")
    answer = page.request.get(f"/api/games/{game_id}")
    assert answer.json()["ply"] == 2  # stepping back never sends a move
    page.click("[data-review=present]")
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "2")
    expect(page.locator("[data-review=present]")).to_be_hidden()
    page.click("[data-review=previous]")
    moved = page.request.post(f"/api/games/{game_id}/moves", data={"ply": 2, "move": "h1g3"})
    assert moved.ok, moved.text()  # the other player (here: the API) moves meanwhile
    expect(page.locator("[data-game]")).to_have_attribute("data-ply", "3")
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "3")
    assert piece_at(page, "g3") == "N"


def test_a_finished_game_downloads_shares_and_analyses(page: Page, chromium: Browser) -> None:
    game_id = local_game(page, "xiangqi", CANNON_MATE)
    expect(page.locator("[data-game]")).to_have_attribute("data-status", "finished")
    page.keyboard.press("Escape")  # the end-of-game dialog
    with page.expect_download() as download:
        page.click("[data-review=download]")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    final = rules_fens("xiangqi", CANNON_MATE)[-1]
    assert '[Result "1-0"]' in text
    assert read_record(text).board.fen() == final
    imported = page.request.post("/api/records", data=text.encode("utf-8"))
    assert imported.status == 201
    assert imported.json()["fen"] == final  # the downloaded record re-imports

    page.click("[data-analysis=start]")
    expect(page.locator("[data-analysis-progress]")).to_be_visible()
    expect(page.locator("[data-game]")).to_have_attribute("data-analysis", "done", timeout=60000)
    expect(page.locator("[data-analysis-graph] polyline")).to_be_visible()
    expect(page.locator('.move-list .move[data-ply="4"]')).to_have_class("move is-blunder")
    page.click('.move-list .move[data-ply="3"]')
    arrow = page.locator("[data-arrows] [data-arrow]")
    expect(arrow).to_have_count(1)
    graph = page.locator("[data-analysis-graph]")
    box = graph.bounding_box()
    assert box is not None
    graph.click(position={"x": box["width"] - 2, "y": box["height"] / 2})  # the graph's end
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "5")

    page.click("[data-review=share]")
    page.wait_for_selector("[data-review-output][data-share]", state="attached")
    link = page.get_attribute("[data-review-output]", "data-share")
    assert link
    assert "/review/" in link
    stranger = new_context(chromium, page.url)
    other = stranger.new_page()
    try:
        open_page(other, link)
        expect(other.locator("[data-game]")).to_have_attribute("data-status", "finished")
        expect(other.locator("[data-game]")).to_have_attribute("data-review-ply", "5")
        expect(other.locator("[data-controls]")).to_be_hidden()
        expect(other.locator('.move-list .move[data-ply="4"]')).to_have_class("move is-blunder")
        other.click("[data-review=first]")
        expect(other.locator("[data-game]")).to_have_attribute("data-review-ply", "0")
        assert other.request.get(f"/api/games/{game_id}").status == 404  # a link, not a seat
    finally:
        stranger.close()


def test_a_record_imported_in_the_page_opens_as_a_review(page: Page) -> None:
    from test_record import PLAYED_ON

    open_page(page, "/")
    page.click("[data-action=import]")
    page.wait_for_selector("[data-import]")
    page.fill("[data-import-text]", "1. h3e3 h10g8\n2. h1g3 R9+9\n")
    page.click("[data-import-submit]")
    expect(page.locator("[data-import-error]")).to_contain_text("line 2")
    page.fill("[data-import-text]", PLAYED_ON)
    page.click("[data-import-submit]")
    page.wait_for_url("**/review/game/*")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("[data-game]")).to_have_attribute("data-ply", "20")
    expect(page.locator("[data-rules-end]")).to_contain_text("after move 15")
    page.keyboard.press("Home")
    expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", "0")


def test_a_jieqi_game_reveals_nothing_before_its_end_z2_q5_q7(
    page: Page, chromium: Browser
) -> None:
    open_page(page, "/play/ai?variant=jieqi&level=beginner&color=red")
    page.wait_for_selector("[data-game][data-my-turn=true]")
    play(page, "a1a2")  # turns Red's corner piece face up
    page.wait_for_selector("[data-game][data-ply='2'][data-my-turn=true]")
    game_id = str(page.get_attribute("[data-game]", "data-game"))
    href = page.get_attribute("[data-review=download]", "href")
    record = page.request.get(str(href)).text()
    assert "[Commitment " in record
    assert "Arrangement" not in record
    assert "Salt" not in record
    page.click("[data-review=share]")
    page.wait_for_selector("[data-review-output][data-share]", state="attached")
    link = str(page.get_attribute("[data-review-output]", "data-share"))
    positions = page.request.get(f"/api/games/{game_id}/positions").json()["positions"]
    secret_free = {"X", "x", "/", " ", "-", "w", "b", *"0123456789", *"KkPpRrNnBbAaCc"}
    assert all(set(p["fen"]) <= secret_free for p in positions)
    stranger = new_context(chromium, page.url)
    other = stranger.new_page()
    try:
        open_page(other, link)
        expect(other.locator("[data-review-error]")).to_contain_text("still being played")
        assert other.locator("[data-board]").count() == 0
        page.click("[data-action=resign]")
        page.click("dialog [data-action=confirm]")
        expect(page.locator("[data-game]")).to_have_attribute("data-status", "finished")
        open_page(other, link)
        expect(other.locator("[data-game]")).to_have_attribute("data-status", "finished")
        expect(other.locator("[data-commitment]")).to_have_attribute("data-commitment", "ok")
        other.click("[data-review=first]")
        expect(other.locator("[data-game]")).to_have_attribute("data-review-ply", "0")
        # Q5: at the end every piece is shown face up, also in earlier positions.
        assert other.locator("[data-piece=X], [data-piece=x]").count() == 0
        record = other.request.get(str(href) + f"&share={link.rsplit('/', 1)[1]}").text()
        assert "[Arrangement " in record
        assert json.dumps(read_record(record).result) == '"0-1"'
    finally:
        stranger.close()


SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}
GRID_LABELS = {5: "+5", 2.5: "+2.5", 0: "0", -2.5: "\u22122.5", -5: "\u22125"}


def pawns_text(pawns: float) -> str:
    """As the review writes pawns: a sign (a true minus), one decimal."""
    text = f"{abs(pawns):.1f}"
    return text if text == "0.0" else ("+" if pawns > 0 else "\u2212") + text


def evaluation_text(entry: dict[str, Any]) -> str:
    if entry["mate"] == 0:
        return f"Game over: {'Red' if entry['score'] > 0 else 'Black'} wins"
    if entry["mate"]:
        return f"{'Red' if entry['mate'] > 0 else 'Black'} mates in {abs(entry['mate'])}"
    return pawns_text(entry["pawns"])


def gain_text(entry: dict[str, Any], before: dict[str, Any]) -> str:
    """What the better move keeps: a mate (given, or allowed by the move played), or pawns.
    From a start with Red to move, Red plays the odd moves; mates are signed for Red."""
    sign = 1 if entry["ply"] % 2 else -1
    if before["mate"] and before["mate"] * sign > 0:
        return f"(mates in {abs(before['mate'])})"
    if entry["mate"] and entry["mate"] * sign < 0:
        return f"(avoids mate in {abs(entry['mate'])})"
    return f"({entry['gain'] / 100:.1f} pawns better than the move played)"


def analysed(page: Page, game_id: str) -> dict[str, Any]:
    """The finished analysis as GET /api/games/{id}/analysis gives it (started over HTTP)."""
    assert page.request.post(f"/api/games/{game_id}/analysis").status == 202
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = page.request.get(f"/api/games/{game_id}/analysis").json()
        if answer["status"] == "done":
            return dict(answer)
        page.wait_for_timeout(100)
    raise AssertionError("the analysis did not finish")


def test_the_review_explains_each_position_as_the_analysis_api_says(page: Page) -> None:
    """Stepping through an analysed game shows each position's evaluation (pawns
    for Red, or mate in N), the engine's line in the player's notation (WXF here) and for a
    marked move the better move, what it keeps and its line: the numbers the analysis API
    gives; the graph's y-axis labels sit on its gridlines, and its points on that scale."""
    game_id = local_game(page, "xiangqi", CANNON_MATE)
    plies = analysed(page, game_id)["plies"]
    assert any(entry["mate"] for entry in plies)
    assert any(entry["class"] for entry in plies)
    assert "avoids mate in 1" in gain_text(plies[4], plies[3])  # 2... g7g6?? allowed 3. C3+5#
    page.evaluate("localStorage.setItem('chuhan.settings', JSON.stringify({notation: 'wxf'}))")
    page.set_viewport_size(WIDE)
    open_page(page, f"/review/game/{game_id}")
    expect(page.locator("[data-game]")).to_have_attribute("data-analysis", "done")
    page.keyboard.press("Home")
    for entry in plies:
        ply = entry["ply"]
        if ply:
            page.keyboard.press("ArrowRight")
        expect(page.locator("[data-game]")).to_have_attribute("data-review-ply", str(ply))
        expect(page.locator("[data-eval-value]")).to_have_text(evaluation_text(entry))
        legend = page.locator("[data-eval-legend]")
        if entry["mate"] is None:
            expect(legend).to_contain_text("pawns for Red: + Red is better")
        else:
            expect(legend).to_be_hidden()  # the mate names its side
        line = page.locator("[data-eval-line]")
        if entry["line"]:
            expect(line).to_have_text(" ".join(entry["line"]["wxf"]))
        else:
            expect(line).to_be_hidden()  # the game is over here: no line
        better = page.locator("[data-eval-better]")
        if entry["class"]:
            expect(better).to_be_visible()
            expect(page.locator("[data-eval-better-move]")).to_have_text(entry["better"]["wxf"])
            gain = gain_text(entry, plies[ply - 1])
            expect(page.locator("[data-eval-better-gain]")).to_have_text(gain)
            before = " ".join(plies[ply - 1]["line"]["wxf"])
            expect(page.locator("[data-eval-better-line]")).to_have_text(before)
        else:
            expect(better).to_be_hidden()
    check_scale(page, plies)
    page.keyboard.press("Home")
    for _ in range(4):
        page.keyboard.press("ArrowRight")  # the blunder, the mate in 1 for Red
    expect(page.locator("[data-eval-better]")).to_be_visible()
    page.locator("[data-analysis-explain]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "chuhan-analysis-explain-desktop.png"))
    page.set_viewport_size(PHONE)
    page.locator("[data-analysis-explain]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "chuhan-analysis-explain-phone.png"))
    page.locator("[data-analysis-graph]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "chuhan-analysis-graph-phone.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    check_scale(page, plies)
    page.evaluate(
        "localStorage.setItem('chuhan.settings', JSON.stringify({notation: 'wxf', language: 'es'}))"
    )
    open_page(page, f"/review/game/{game_id}")  # in Spanish: the same numbers, translated
    expect(page.locator("[data-eval-value]")).to_have_text("Partida terminada: gana Rojo")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-eval-value]")).to_have_text("Rojo da mate en 1")
    expect(page.locator("[data-eval-better-gain]")).to_have_text("(evita el mate en 1)")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-eval-value]")).to_have_text(pawns_text(plies[3]["pawns"]))
    expect(page.locator("[data-eval-legend]")).to_contain_text("peones para Rojo")
    page.locator("[data-analysis-explain]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "chuhan-analysis-explain-phone-es.png"))


def check_scale(page: Page, plies: list[dict[str, Any]]) -> None:
    """Each y-axis label is centred on its gridline, and each point of the graph is where
    the labelled scale puts its pawns (a mate or more than 5 pawns at the edge)."""
    grid = {}
    for label in page.locator(".graph-scale [data-grid-pawns]").all():
        pawns = float(str(label.get_attribute("data-grid-pawns")))
        line = page.locator(f'[data-analysis-graph] line[data-grid-pawns="{pawns:g}"]')
        label_box, line_box = label.bounding_box(), line.bounding_box()
        assert label_box
        assert line_box
        middle = label_box["y"] + label_box["height"] / 2
        assert abs(middle - (line_box["y"] + line_box["height"] / 2)) <= 2, pawns
        assert label.inner_text() == GRID_LABELS[pawns]
        grid[pawns] = float(str(line.get_attribute("y1")))
    assert sorted(grid) == sorted(GRID_LABELS)
    points = str(page.get_attribute("[data-analysis-graph] polyline", "points")).split()
    per_pawn = (grid[-5] - grid[5]) / 10
    for entry, point in zip(plies, points, strict=True):
        drawn = (grid[0] - float(point.split(",")[1])) / per_pawn
        assert abs(drawn - max(-5, min(5, entry["pawns"]))) <= 0.06, (entry, drawn)

"""What a first player noticed on the board and fixed (SPEC U1, U2, U6, U8, U9).

Each test opens a fresh player in a real Chromium against a real server.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import click_point, game_data, open_page, play, server_state  # noqa: E402

pytest_plugins = ["web_fixtures"]

# The centre of each character against the centre of its piece, and the piece's width.
CHARACTER_OFFSETS = """points => points.map(name => {
  const piece = document.querySelector(`[data-point="${name}"] [data-piece]`);
  const disc = piece.querySelector("circle, polygon").getBoundingClientRect();
  const ink = piece.querySelector(".glyph").getBoundingClientRect();
  return {
    name,
    dx: (ink.x + ink.width / 2) - (disc.x + disc.width / 2),
    dy: (ink.y + ink.height / 2) - (disc.y + disc.height / 2),
    width: disc.width,
    inkWidth: ink.width,
  };
})"""


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_characters_sit_in_the_middle_of_their_pieces_U1_U2(web_page: Page, variant: str) -> None:
    """Every character is centred on its piece (it used to sit up and to the left) and is
    big enough to read: its ink spans well over two fifths of the piece's width."""
    open_page(web_page, f"/play/local?variant={variant}")
    points = ["a1", "b1", "c1", "d1", "e1" if variant == "xiangqi" else "e2", "b3", "a4"]
    points += ["a10", "b10", "c10", "d10", "e10" if variant == "xiangqi" else "e9", "b8", "a7"]
    for found in web_page.evaluate(CHARACTER_OFFSETS, points):
        tolerance = 0.04 * found["width"]
        assert abs(found["dx"]) <= tolerance, found
        assert abs(found["dy"]) <= tolerance, found
        assert found["inkWidth"] >= 0.42 * found["width"], found


def test_a_general_in_check_stays_marked_when_the_game_ends_U6(web_page: Page) -> None:
    """The end of the game keeps the check mark on the general (as after a checkmate)."""
    open_page(web_page, "/play/local?variant=xiangqi")
    for move in ["a1a2", "c10e8", "b3b10"]:
        play(web_page, move)
    expect(web_page.locator('[data-point="e10"] .mark-check')).to_have_count(1)
    web_page.click("[data-action=draw]")
    web_page.click("dialog[data-confirm-dialog] [data-action=confirm]")
    expect(web_page.locator("dialog[data-end-dialog]")).to_be_visible()
    expect(web_page.locator("[data-game]")).not_to_have_attribute("data-status", "ongoing")
    expect(web_page.locator('[data-point="e10"] .mark-check')).to_have_count(1)


def test_a_language_switch_translates_the_rules_link_and_heading_U8_U9(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=janggi")
    expect(web_page.locator("[data-action=rules]")).to_have_text("Rules")
    web_page.select_option("#language-switch", "es")
    expect(web_page.locator("[data-action=undo]")).to_have_text("Deshacer")
    expect(web_page.locator("[data-action=rules]")).to_have_text("Reglas")
    web_page.select_option("#language-switch", "pt")
    expect(web_page.locator("[data-action=rules]")).to_have_text("Regras")
    # The page's heading (only for screen readers) names the game, in the language too.
    heading = web_page.get_by_role("heading", level=1)
    expect(heading).to_have_text("Janggi · Jogar neste dispositivo")


def test_keyboard_focus_stays_in_view_when_zoomed_in_U4_U5(web_page: Page) -> None:
    """Arrowing to a point outside a zoomed-in view pans the view so the focus ring shows."""
    open_page(web_page, "/play/local?variant=xiangqi")
    for _ in range(3):
        web_page.click("[data-i18n-key='view.zoom_in']")
    web_page.focus('[data-point="e1"]')
    for _ in range(9):
        web_page.keyboard.press("ArrowUp")
    expect(web_page.locator('[data-point="e10"]')).to_be_focused()
    board = web_page.locator("svg.board").bounding_box()
    point = web_page.locator('[data-point="e10"] .focus-ring').bounding_box()
    assert board
    assert point
    assert board["y"] <= point["y"]
    assert point["y"] + point["height"] <= board["y"] + board["height"]
    assert board["x"] <= point["x"]
    assert point["x"] + point["width"] <= board["x"] + board["width"]
    assert game_data(web_page)["ply"] == "0"


def _relative_luminance(rgb: str) -> float:
    channels = [int(value) / 255 for value in re.findall(r"\d+", rgb)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_focus_shows_on_the_dark_top_bar_U9(web_page: Page) -> None:
    """A keyboard user sees where the focus is on the top bar: its ring contrasts ≥ 3:1."""
    open_page(web_page, "/")
    web_page.focus("#language-switch")
    web_page.keyboard.press("Tab")
    expect(web_page.locator("[data-action=mute]")).to_be_focused()
    ring, bar = web_page.evaluate(
        """() => [getComputedStyle(document.activeElement).outlineColor,
                  getComputedStyle(document.querySelector('.topbar')).backgroundColor]"""
    )
    high, low = sorted((_relative_luminance(ring), _relative_luminance(bar)), reverse=True)
    assert (high + 0.05) / (low + 0.05) >= 3, (ring, bar)


def test_a_phone_held_sideways_shows_the_whole_board_U9(chromium: Browser, web_server: str) -> None:
    context = chromium.new_context(
        base_url=web_server, viewport={"width": 740, "height": 360}, has_touch=True
    )
    try:
        page = context.new_page()
        open_page(page, "/play/local?variant=janggi")
        board = page.locator("svg.board").bounding_box()
        assert board
        assert board["y"] >= 0, board
        assert board["y"] + board["height"] <= 360, board
        assert board["x"] >= 0, board
        assert board["x"] + board["width"] <= 740, board
    finally:
        context.close()


def test_the_move_list_follows_the_chosen_notation_U6_N1_N2_N3(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    for move in ["h3e3", "h10g8"]:
        play(web_page, move)
    moves = web_page.locator(".move-list li").first
    expect(moves).to_have_text("h3-e3 h10-g8")
    for notation, shown in [("wxf", "C2.5 H8+7"), ("chinese", "炮二平五 马8进7")]:
        web_page.click("[data-action=settings]")
        web_page.select_option("#settings-notation", notation)
        web_page.click("dialog[data-settings-dialog] [data-action=close]")
        expect(moves).to_have_text(shown)
    expect(moves.locator(".move").first).to_have_attribute("lang", "zh")
    expect(web_page.locator("[data-notation-note]")).to_be_hidden()


def test_a_revealing_move_is_announced_as_a_face_down_piece_U9_Q3(web_page: Page) -> None:
    """The announcement names what set off (a face-down piece), then what it turned out to be."""
    open_page(web_page, "/play/local?variant=jieqi")
    play(web_page, "b3b4")
    kinds = "advisor|elephant|horse|chariot|cannon|soldier"
    expect(web_page.locator("#announcer")).to_have_text(
        re.compile(rf"^Red face-down piece b3 to b4, revealed as ({kinds})$")
    )


def test_escape_cancels_a_move_waiting_for_confirmation_U4(web_page: Page) -> None:
    """With "Confirm before move", Escape on the question drops the move and the selection
    and gives the focus back to the board."""
    open_page(web_page, "/")
    web_page.evaluate("localStorage.setItem('chuhan.settings', '{\"confirmMove\": true}')")
    open_page(web_page, "/play/local?variant=xiangqi")
    click_point(web_page, "h3")
    click_point(web_page, "e3")
    expect(web_page.locator("[data-action=confirm-move]")).to_be_focused()
    web_page.keyboard.press("Escape")
    expect(web_page.locator(".confirm-bar")).to_be_hidden()
    expect(web_page.locator("[data-point].is-selected")).to_have_count(0)
    expect(web_page.locator('[data-point="e3"]')).to_be_focused()
    assert game_data(web_page)["ply"] == "0"


def test_a_pending_ai_game_is_offered_without_a_refused_request_P2(web_page: Page) -> None:
    """Opening another AI game while one is pending asks to resume or abandon it, and the
    browser meets no refused request (no console error) on the way."""
    refused: list[str] = []
    web_page.on("response", lambda r: refused.append(r.url) if r.status >= 400 else None)
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    expect(web_page.locator("[data-game]")).to_have_attribute("data-my-turn", "true")
    web_page.goto("/play/ai?variant=janggi&level=beginner&color=cho")
    web_page.click("dialog[data-pending-dialog] [data-action=abandon]")
    expect(web_page.locator("[data-game]")).to_have_attribute("data-my-turn", "true")
    assert server_state(web_page)["variant"] == "janggi"
    assert refused == []

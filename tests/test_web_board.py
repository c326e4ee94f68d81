"""The board in a real browser against a real server (SPEC U1–U5, U8, U9, P2, P3, J3, J6, Q2, Q3).

Each test opens a fresh player; positions are reached by playing moves on the board.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    click_point,
    destinations,
    game_data,
    open_page,
    piece_at,
    play,
    server_state,
    wait_my_turn,
)

pytest_plugins = ["web_fixtures"]


def select(page: Page, point: str) -> set[str]:
    click_point(page, point)
    found = destinations(page)
    page.keyboard.press("Escape")
    return found


def test_every_point_is_named_and_holds_its_piece_U9(web_page: Page) -> None:
    """90 focusable points named like "e4, red soldier"; pieces carry their FEN letter."""
    open_page(web_page, "/play/local?variant=xiangqi")
    points = web_page.locator("[data-point]")
    expect(points).to_have_count(90)
    expect(web_page.locator('[data-point="e4"]')).to_have_attribute("aria-label", "e4, red soldier")
    expect(web_page.locator('[data-point="e5"]')).to_have_attribute("aria-label", "e5, empty")
    assert piece_at(web_page, "a10") == "r"
    assert piece_at(web_page, "e1") == "K"
    assert web_page.locator("[data-piece]").count() == 32


def test_highlights_respect_leg_eye_screen_and_flying_general_U3_X2_X3(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    # Horse b1: the elephant on c1 blocks its leg towards d2.
    assert select(web_page, "b1") == {"a3", "c3"}
    # Cannon h3 captures h10 only over the screen on h8; it cannot capture h8 itself.
    cannon = select(web_page, "h3")
    assert "h10" in cannon
    assert "h8" not in cannon
    assert "h9" not in cannon
    # Elephant c1 with its eye b2 blocked by a cannon reaches only e3.
    play(web_page, "b3b2")
    play(web_page, "a7a6")
    assert select(web_page, "c1") == {"e3"}
    # A soldier on e7 shields the generals' file: it may not step aside (flying general).
    for move in ["e4e5", "a6a5", "e5e6", "a5a4", "e6e7", "i7i6"]:
        play(web_page, move)
    assert select(web_page, "e7") == {"e8"}


def test_drag_and_zoom_change_the_view_but_never_move_U5(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    board = web_page.locator("svg.board")
    before = board.get_attribute("viewBox")
    box = web_page.locator('[data-point="h3"]').bounding_box()
    assert box is not None
    web_page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    web_page.mouse.wheel(0, -400)
    expect(board).not_to_have_attribute("viewBox", before or "")
    zoomed = board.get_attribute("viewBox")
    # Drag from the cannon on h3 across the board to e3 (one of its legal destinations).
    target = web_page.locator('[data-point="e3"]').bounding_box()
    assert target is not None
    web_page.mouse.down()
    web_page.mouse.move(target["x"] + 30, target["y"] + 30, steps=8)
    web_page.mouse.up()
    expect(board).not_to_have_attribute("viewBox", zoomed or "")
    web_page.get_by_role("button", name="Show the full board").click()
    expect(board).to_have_attribute("viewBox", before or "")
    web_page.wait_for_timeout(300)
    assert game_data(web_page)["ply"] == "0"
    assert piece_at(web_page, "h3") == "C"
    assert piece_at(web_page, "e3") is None
    assert destinations(web_page) == set()
    # Flip: Black's side comes to the bottom; the arrows still follow the screen.
    web_page.get_by_role("button", name="Flip the board").click()
    a1 = web_page.locator('[data-point="a1"]').bounding_box()
    a10 = web_page.locator('[data-point="a10"]').bounding_box()
    i1 = web_page.locator('[data-point="i1"]').bounding_box()
    assert a1 is not None
    assert a10 is not None
    assert i1 is not None
    assert a1["y"] < a10["y"]
    assert a1["x"] > i1["x"]
    web_page.locator('[data-point="e10"]').focus()
    web_page.keyboard.press("ArrowUp")
    web_page.keyboard.press("ArrowRight")
    assert web_page.evaluate("document.activeElement.dataset.point") == "d9"


def test_reload_resumes_hint_shows_and_undo_makes_practice_P2_P3_A4(web_page: Page) -> None:
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    wait_my_turn(web_page)
    play(web_page, "h3e3")
    wait_my_turn(web_page)
    assert game_data(web_page)["ply"] == "2"
    black_reply = {p: piece_at(web_page, p) for p in ("e3", "h3")}
    web_page.reload()
    web_page.wait_for_selector("body[data-ready=true]")
    wait_my_turn(web_page)
    assert game_data(web_page)["ply"] == "2"
    resumed = {p: piece_at(web_page, p) for p in ("e3", "h3")}
    assert resumed == black_reply == {"e3": "C", "h3": None}
    # The same direct address resumes the pending game instead of starting a new one.
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    wait_my_turn(web_page)
    assert game_data(web_page)["ply"] == "2"
    # A4: the hint marks a legal move's two points.
    web_page.click("[data-action=hint]")
    expect(web_page.locator(".mark-hint")).to_have_count(2)
    web_page.click("[data-action=undo]")
    dialog = web_page.locator("dialog[data-confirm-dialog]")
    expect(dialog).to_contain_text("practice")
    dialog.locator("[data-action=confirm]").click()
    web_page.wait_for_selector("[data-game][data-ply='0']")
    expect(web_page.locator("[data-practice]")).to_be_visible()
    web_page.reload()
    web_page.wait_for_selector("body[data-ready=true]")
    expect(web_page.locator("[data-practice]")).to_be_visible()
    # Another game against the AI asks before abandoning the pending one (P2).
    web_page.goto("/play/ai?variant=jieqi&level=beginner&color=red")
    pending = web_page.locator("dialog[data-pending-dialog]")
    expect(pending).to_be_visible()
    pending.locator("[data-action=abandon]").click()
    web_page.wait_for_selector("[data-game][data-my-turn=true]")
    assert web_page.locator('[data-piece="X"]').count() == 15


def test_settings_and_language_survive_a_reload_U2_U4_U7_U8(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    assert web_page.locator("[data-piece] .glyph").count() == 32
    web_page.click("[data-action=settings]")
    settings = web_page.locator("dialog[data-settings-dialog]")
    settings.get_by_label("Illustrations").check()
    settings.get_by_label("Confirm before each move").check()
    settings.get_by_label("Volume").fill("30")
    settings.locator("[data-action=close]").click()
    web_page.select_option("[data-language-switch]", "es")
    expect(web_page.locator(".panel-heading")).to_have_text("Jugadas")
    web_page.click("[data-action=mute]")
    web_page.reload()
    web_page.wait_for_selector("body[data-ready=true]")
    assert web_page.evaluate("document.documentElement.lang") == "es"
    expect(web_page.locator(".panel-heading")).to_have_text("Jugadas")
    soldier = web_page.locator('[data-point="e4"]')
    expect(soldier).to_have_attribute("aria-label", "e4, soldado rojo")
    assert web_page.locator("[data-piece] .glyph").count() == 0
    expect(web_page.locator("[data-action=mute]")).to_have_attribute("aria-pressed", "true")
    # Confirm before move: choosing a destination asks first, and only "Play" sends it.
    click_point(web_page, "h3")
    click_point(web_page, "e3")
    confirm = web_page.locator("[data-action=confirm-move]")
    expect(confirm).to_be_visible()
    assert game_data(web_page)["ply"] == "0"
    confirm.click()
    web_page.wait_for_selector("[data-game][data-ply='1']")
    web_page.click("[data-action=settings]")
    volume = web_page.locator("dialog[data-settings-dialog] [data-setting=volume]")
    assert volume.input_value() == "30"


def test_janggi_setup_choice_bikjang_option_and_pass_J3_J6_J7(web_page: Page) -> None:
    open_page(web_page, "/")
    form = web_page.locator("[data-form=ai]")
    form.get_by_label("Janggi").check()
    form.get_by_label("Cho (blue)").check()
    form.get_by_label("Horse, elephant, elephant, horse (HEEH)").check()
    form.get_by_label(re.compile("^Bikjang")).check()
    form.get_by_role("button", name="Start game").click()
    web_page.wait_for_selector("[data-game]")
    wait_my_turn(web_page)
    assert [piece_at(web_page, p) for p in ("b1", "c1", "g1", "h1")] == ["N", "B", "B", "N"]
    assert piece_at(web_page, "e2") == "K"
    assert server_state(web_page)["options"]["bikjang"] == "points"
    # J6, J8: a pass lets the opponent end the game by points; the question says the totals.
    web_page.click("[data-action=pass]")
    question = web_page.locator("dialog[data-confirm-dialog]")
    expect(question).to_contain_text("Cho 72, Han 73.5 (Han (red) ahead)")
    question.locator("[data-action=confirm]").click()
    web_page.wait_for_selector("[data-game][data-ply='1'], [data-game][data-ply='2']")
    expect(web_page.locator(".move-list .move").first).to_have_text("pass")
    wait_my_turn(web_page)
    assert game_data(web_page)["ply"] == "2"


def test_jieqi_pieces_start_face_down_and_reveal_when_moved_Q2_Q3(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=jieqi")
    assert web_page.locator('[data-piece="X"]').count() == 15
    assert web_page.locator('[data-piece="x"]').count() == 15
    expect(web_page.locator('[data-point="a1"]')).to_have_attribute(
        "aria-label", "a1, face-down red piece"
    )
    # The face-down piece on a1 moves as a chariot.
    click_point(web_page, "a1")
    assert destinations(web_page) == {"a2", "a3"}
    click_point(web_page, "a2")
    web_page.wait_for_selector("[data-game][data-ply='1']")
    revealed = piece_at(web_page, "a2")
    assert revealed is not None
    assert revealed not in "Xx"
    assert revealed.isupper()
    assert web_page.locator('[data-piece="X"]').count() == 14
    # Q7: at the end the arrangement is revealed and checked against the commitment.
    web_page.click("[data-action=resign]")
    web_page.click("dialog[data-confirm-dialog] [data-action=confirm]")
    expect(web_page.locator("dialog[data-end-dialog] [data-commitment]")).to_have_attribute(
        "data-commitment", "ok"
    )


def test_a_broken_link_keeps_the_confirmed_position_and_the_move_is_sent_once_P5(
    web_page: Page,
) -> None:
    """The socket is cut while a move is on its way: the board says so, shows the confirmed
    position, reconnects by itself and the move is applied exactly once."""
    mode = {"link": "pass"}
    routes = []

    def handle(route) -> None:
        routes.append(route)
        if mode["link"] == "pass":
            route.connect_to_server()
        else:
            route.close()

    web_page.route_web_socket("**/ws/games/**", handle)
    open_page(web_page, "/play/local?variant=xiangqi")
    web_page.wait_for_selector("[data-game][data-link=online]")
    mode["link"] = "refuse"
    click_point(web_page, "h3")
    routes[-1].close()
    click_point(web_page, "e3")
    expect(web_page.locator("[data-notice]")).to_be_visible()
    assert piece_at(web_page, "h3") == "C"
    assert piece_at(web_page, "e3") is None
    mode["link"] = "pass"
    web_page.wait_for_selector("[data-game][data-ply='1'][data-link=online]")
    assert piece_at(web_page, "e3") == "C"
    assert server_state(web_page)["moves"] == ["h3e3"]


def test_touch_tap_moves_and_pinch_only_zooms_U5_U9(chromium: Browser, web_server: str) -> None:
    """On a phone: two taps play a move; a two-finger pinch zooms and plays nothing."""
    context = chromium.new_context(
        base_url=web_server, viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    try:
        open_page(page, "/play/local?variant=xiangqi")
        board = page.locator("svg.board")
        before = board.get_attribute("viewBox")
        session = context.new_cdp_session(page)
        box = board.bounding_box()
        assert box is not None
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

        def touch(kind: str, spread: float) -> None:
            points = [{"x": cx - spread, "y": cy, "id": 0}, {"x": cx + spread, "y": cy, "id": 1}]
            session.send(
                "Input.dispatchTouchEvent",
                {
                    "type": kind,
                    "touchPoints": [] if kind == "touchEnd" else points,
                },
            )

        touch("touchStart", 20)
        for spread in (40, 60, 80, 100):
            touch("touchMove", spread)
        touch("touchEnd", 100)
        expect(board).not_to_have_attribute("viewBox", before or "")
        assert game_data(page)["ply"] == "0"
        page.get_by_role("button", name="Show the full board").tap()
        page.locator('[data-point="h3"]').tap()
        page.locator('[data-point="e3"]').tap()
        page.wait_for_selector("[data-game][data-ply='1']")
        assert piece_at(page, "e3") == "C"
    finally:
        context.close()


def test_check_last_move_and_agreed_draw_on_one_device_U6_U9_E4(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    for move in ["a1a2", "c10e8", "b3b10"]:
        play(web_page, move)
    expect(web_page.locator('[data-point="e10"] .mark-check')).to_have_count(1)
    expect(web_page.locator(".mark-last")).to_have_count(2)
    expect(web_page.locator('[data-point="b10"] .mark-last')).to_have_count(1)
    expect(web_page.locator("#announcer")).to_have_text(
        "Red cannon b3 to b10, captures black horse, check"
    )
    expect(web_page.locator(".status-line")).to_contain_text("check")
    # E4: on one device both players may agree a draw.
    web_page.click("[data-action=draw]")
    web_page.click("dialog[data-confirm-dialog] [data-action=confirm]")
    end = web_page.locator("dialog[data-end-dialog]")
    expect(end.locator("h2")).to_have_text("Draw")
    expect(end.locator("[data-result-reason]")).to_have_text("Draw agreed.")

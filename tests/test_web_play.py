"""Whole games against the beginner AI in a real browser (SPEC U3, U4, U6, A1, E4).

The test player picks its moves with a two-ply material search over the server's legal
moves, then plays them like a person would: by mouse in one game, by keyboard only in the
other. The server offers no way to start from a position near the end, and a full game
against even the beginner takes minutes, so a game still undecided after MAX_MOVES moves is
resigned (by mouse, resp. by keyboard): each test always reaches the end-of-game dialog with
its result and reason.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from chuhan.rules import make_board

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    click_point,
    game_data,
    open_page,
    server_state,
    wait_my_turn,
)

pytest_plugins = ["web_fixtures"]

VALUES = {"r": 9.0, "c": 4.5, "n": 4.0, "b": 2.0, "a": 2.0, "p": 1.0, "k": 0.0}
MAX_MOVES = 8


def material(placement: str) -> float:
    """Red's material minus Black's."""
    total = 0.0
    for ch in placement:
        value = VALUES.get(ch.lower())
        if value is not None:
            total += value if ch.isupper() else -value
    return total


def choose_move(fen: str, legal: list[str], seen: set[str]) -> str:
    """Red's move: a mate in one if there is one, else the best material after any reply,
    preferring checks and avoiding positions already reached (no repetition draws)."""
    board = make_board("xiangqi", fen)
    best: tuple[float, str] | None = None
    for text in sorted(legal):
        board.push(text)
        replies = board.legal_moves
        if not replies:
            board.pop()
            return text
        bonus = (0.3 if board.is_check() else 0.0) - (3.0 if board.board_fen() in seen else 0.0)
        worst = None
        for reply in replies:
            board.push(reply)
            score = material(board.board_fen())
            board.pop()
            worst = score if worst is None else min(worst, score)
        board.pop()
        assert worst is not None
        if best is None or worst + bonus > best[0]:
            best = (worst + bonus, text)
    assert best is not None
    return best[1]


def next_move(page: Page, seen: set[str]) -> str | None:
    """The move to play now, or None when the game is over; remembers where it leads."""
    wait_my_turn(page)
    state = server_state(page)
    if state["status"] != "ongoing":
        return None
    move = choose_move(state["fen"], state["legal_moves"], seen)
    board = make_board("xiangqi", state["fen"])
    board.push(move)
    seen.add(board.board_fen())
    return move


def split_move(text: str) -> tuple[str, str]:
    """("h3", "e3") for "h3e3"; ranks may have two digits ("a10a9")."""
    match = re.fullmatch(r"([a-i]\d+)([a-i]\d+)", text)
    assert match, text
    return match[1], match[2]


def expect_end_dialog(page: Page) -> None:
    dialog = page.locator("dialog[data-end-dialog]")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text(re.compile(r"You won!|You lost|Draw"))
    expect(dialog.locator("[data-result-reason]")).not_to_be_empty()


def wait_ply_after(page: Page, ply: int) -> None:
    """Wait until the server confirmed the move that follows ``ply``."""
    page.wait_for_function(
        "ply => Number(document.querySelector('[data-game]').dataset.ply) > ply", arg=ply
    )


def current_ply(page: Page) -> int:
    return int(page.get_attribute("[data-game]", "data-ply") or 0)


def test_full_game_against_the_beginner_by_mouse_U3_U6(web_page: Page) -> None:
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    seen: set[str] = set()
    for _ in range(MAX_MOVES):
        move = next_move(web_page, seen)
        if move is None:
            break
        ply = current_ply(web_page)
        origin, target = split_move(move)
        click_point(web_page, origin)
        click_point(web_page, target)
        wait_ply_after(web_page, ply)
    wait_my_turn(web_page)
    if game_data(web_page)["status"] == "ongoing":
        web_page.click("[data-action=resign]")
        web_page.click("dialog[data-confirm-dialog] [data-action=confirm]")
    expect_end_dialog(web_page)


def focused(page: Page) -> str | None:
    point: str | None = page.evaluate("document.activeElement?.dataset?.point ?? null")
    return point


def walk_to(page: Page, point: str) -> None:
    """Move the keyboard focus over the board to ``point`` with the arrow keys (Red at the
    bottom: up is towards rank 10, right towards file i)."""
    here = focused(page)
    assert here is not None
    files = ord(point[0]) - ord(here[0])
    ranks = int(point[1:]) - int(here[1:])
    for _ in range(abs(files)):
        page.keyboard.press("ArrowRight" if files > 0 else "ArrowLeft")
    for _ in range(abs(ranks)):
        page.keyboard.press("ArrowUp" if ranks > 0 else "ArrowDown")
    assert focused(page) == point


def tab_to(page: Page, selector: str, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"!!document.activeElement?.matches({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_full_game_against_the_beginner_by_keyboard_only_U4_U9(web_page: Page) -> None:
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    wait_my_turn(web_page)
    tab_to(web_page, "[data-point]")
    seen: set[str] = set()
    for _ in range(MAX_MOVES):
        move = next_move(web_page, seen)
        if move is None:
            break
        ply = current_ply(web_page)
        origin, target = split_move(move)
        walk_to(web_page, origin)
        web_page.keyboard.press("Enter")
        expect(web_page.locator(f'[data-point="{origin}"]')).to_have_class(
            re.compile("is-selected")
        )
        walk_to(web_page, target)
        web_page.keyboard.press(" ")
        wait_ply_after(web_page, ply)
    wait_my_turn(web_page)
    if game_data(web_page)["status"] == "ongoing":
        tab_to(web_page, "[data-action=resign]")
        web_page.keyboard.press("Enter")
        expect(web_page.locator("dialog[data-confirm-dialog]")).to_be_visible()
        web_page.keyboard.press("Enter")
    expect_end_dialog(web_page)
    announcer = web_page.locator("#announcer")
    expect(announcer).not_to_be_empty()

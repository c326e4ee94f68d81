"""Puzzles in a real browser (SPEC B9): in each variant a player takes a hint, solves the
puzzle by clicking its moves on the board (the opponent's reply played back), then fails the
next one with a wrong move and sees the line; the home page shows the puzzles of the day and
My games the attempts. On the hand-made puzzles of ``tests/data/puzzles``. Screenshots at
1366 px and 390 px go to /tmp/chuhan-puzzles-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from chuhan.server.puzzles.catalog import read_puzzles
from chuhan.server.puzzles.solving import board_after

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import running_server  # noqa: E402
from web_fixtures import checked_page, open_page  # noqa: E402

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
FIXTURES = Path(__file__).parent / "data" / "puzzles"
BY_ID = {p.id: p for p in read_puzzles(FIXTURES)}
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(
        tmp_path_factory.mktemp("puzzles-web"), CHUHAN_PUZZLES_DIR=str(FIXTURES)
    ) as url:
        yield url


def page_at(browser: Browser, server: str, viewport: ViewportSize) -> Iterator[Page]:
    context = browser.new_context(base_url=server, viewport=viewport, locale="en-US")
    yield from checked_page(context)


@pytest.fixture
def wide(chromium: Browser, server: str) -> Iterator[Page]:
    yield from page_at(chromium, server, WIDE)


@pytest.fixture
def phone(chromium: Browser, server: str) -> Iterator[Page]:
    yield from page_at(chromium, server, PHONE)


def layout(page: Page) -> dict[str, str]:
    data: dict[str, str] = page.eval_on_selector("[data-puzzle]", "e => ({...e.dataset})")
    return data


def points(move: str) -> tuple[str, str]:
    """``c10c9`` → ``("c10", "c9")``."""
    found = re.fullmatch(r"([a-i]\d+)([a-i]\d+)", move)
    assert found, move
    return found[1], found[2]


def click_move(page: Page, move: str) -> None:
    start, end = points(move)
    page.click(f'[data-point="{start}"]')
    page.click(f'[data-point="{end}"]')


def wrong_move(puzzle_id: str) -> str:
    """A legal first move that is not the answer and does not mate."""
    puzzle = BY_ID[puzzle_id]
    board = board_after(puzzle, [])
    for move in board.legal_move_texts():
        if move == puzzle.moves[0] or move == "pass":
            continue
        after = board.copy()
        after.push(move)
        if after.outcome() is None:
            return move
    raise AssertionError("no wrong move")


def hint_solve_then_fail(page: Page, variant: str, shots: str) -> None:
    open_page(page, f"/puzzles?variant={variant}")
    data = layout(page)
    puzzle = BY_ID[data["puzzle"]]
    assert data["status"] == "playing"
    assert data["myTurn"] == "true"
    expect(page.locator("[data-puzzle-status]")).to_contain_text("to move")
    # A hint: the piece to move is marked (and named for a screen reader); counts as assisted.
    page.click('[data-action="hint"]')
    piece = points(puzzle.moves[0])[0]
    expect(page.locator(f'[data-point="{piece}"] .mark-hint')).to_have_count(1)
    assert "hint" in (page.get_attribute(f'[data-point="{piece}"]', "aria-label") or "")
    page.screenshot(path=f"/tmp/chuhan-puzzles-{shots}-{variant}-hint.png")
    for index in range(0, len(puzzle.moves), 2):
        click_move(page, puzzle.moves[index])
        page.wait_for_function(
            "n => Number(document.querySelector('[data-puzzle]').dataset.ply) >= n"
            " || document.querySelector('[data-puzzle]').dataset.status !== 'playing'",
            arg=index + 2,
        )
    expect(page.locator("[data-puzzle]")).to_have_attribute("data-status", "solved")
    expect(page.locator("[data-puzzle-status]")).to_contain_text("Solved")
    expect(page.locator("[data-themes]")).to_contain_text("Mate")
    assert page.locator("[data-puzzle-moves] li").count() == len(puzzle.moves)
    page.screenshot(path=f"/tmp/chuhan-puzzles-{shots}-{variant}-solved.png")
    # The next puzzle, failed with a wrong move: the line is shown.
    page.click('[data-action="next"]')
    page.wait_for_function(
        "id => { const d = document.querySelector('[data-puzzle]').dataset;"
        " return d.puzzle && d.puzzle !== id && d.status === 'playing'; }",
        arg=puzzle.id,
    )
    second = BY_ID[layout(page)["puzzle"]]
    wrong = wrong_move(second.id)
    click_move(page, wrong)
    expect(page.locator("[data-puzzle]")).to_have_attribute("data-status", "failed")
    expect(page.locator("[data-tried]")).to_have_attribute("data-tried", wrong)
    expect(page.locator("[data-puzzle-status]")).to_contain_text("solution")
    moves = page.locator("[data-puzzle-moves][data-solution] li")
    expect(moves).to_have_count(len(second.moves))
    page.screenshot(path=f"/tmp/chuhan-puzzles-{shots}-{variant}-failed.png")


def analyse_in_the_review(page: Page, shots: str, variant: str) -> None:
    """After the end, "Analyse" opens the puzzle and its line in the review, in every variant
    (janggi from its FEN, jieqi as the solver knew it): the puzzle's position first, the
    line's moves listed, the last position the line's end."""
    line = [m.get_attribute("data-move") for m in page.locator("[data-puzzle-moves] li").all()]
    puzzle = BY_ID[layout(page)["puzzle"]]
    assert line == puzzle.moves
    page.click('[data-action="analyse"]')
    page.wait_for_url("**/review/game/*")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator(".move-list .move")).to_have_count(len(line))
    end = board_after(puzzle, puzzle.moves)
    pieces = page.locator("svg.board [data-piece]")
    expect(pieces).to_have_count(sum(1 for p in end.squares if p))
    page.screenshot(path=f"/tmp/chuhan-puzzles-{shots}-{variant}-review.png")


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_hint_solve_and_fail_on_the_board_B9(wide: Page, variant: str) -> None:
    hint_solve_then_fail(wide, variant, "1366")
    if variant == "xiangqi":
        expect(wide.locator("[data-credit]")).to_contain_text("CC BY 4.0")  # the CCPD's credit
    analyse_in_the_review(wide, "1366", variant)


def test_a_phone_solves_and_finds_the_daily_puzzle_and_the_history_B9(phone: Page) -> None:
    hint_solve_then_fail(phone, "jieqi", "390")
    # The board fits the phone's width.
    box = phone.locator("svg.board").bounding_box()
    assert box is not None
    assert box["width"] <= PHONE["width"]
    analyse_in_the_review(phone, "390", "jieqi")
    open_page(phone, "/")
    expect(phone.locator("[data-daily-variant]")).to_have_count(3)
    phone.locator("[data-daily]").scroll_into_view_if_needed()
    phone.screenshot(path="/tmp/chuhan-puzzles-390-home.png")
    phone.click('[data-daily-variant="janggi"]')
    phone.wait_for_selector("[data-puzzle][data-status=playing]")
    assert "Puzzle of the day" in phone.inner_text(".puzzle-title")
    open_page(phone, "/games")
    history = phone.locator("[data-puzzle-history] [data-attempt-status]")
    expect(history).to_have_count(3)  # the jieqi solved and failed, the janggi daily begun
    phone.locator("[data-puzzle-history]").scroll_into_view_if_needed()
    phone.screenshot(path="/tmp/chuhan-puzzles-390-history.png")


def test_confirm_before_move_asks_before_the_answer_is_sent_U4_B9(wide: Page) -> None:
    """With "Confirm before move" on, a puzzle move made with the keyboard waits for "Play",
    as a game's does."""
    wide.add_init_script("localStorage.setItem('chuhan.settings', '{\"confirmMove\": true}')")
    open_page(wide, "/puzzles?variant=xiangqi")
    puzzle = BY_ID[layout(wide)["puzzle"]]
    start, end = points(puzzle.moves[0])
    for point in (start, end):  # by keyboard: a point focused, Enter (U4's keys)
        wide.focus(f'[data-point="{point}"]')
        wide.keyboard.press("Enter")
    expect(wide.locator('[data-action="confirm-move"]')).to_be_focused()
    assert layout(wide)["ply"] == "0"  # nothing sent yet
    wide.keyboard.press("Enter")
    wide.wait_for_function(
        "() => document.querySelector('[data-puzzle]').dataset.ply !== '0'"
        " || document.querySelector('[data-puzzle]').dataset.status !== 'playing'"
    )
    assert layout(wide)["status"] in ("playing", "solved")
    assert (
        wide.locator("[data-puzzle-moves] li[data-move]").first.get_attribute("data-move")
        == puzzle.moves[0]
    )

"""Two real browsers (two Playwright contexts, so two players) play through rooms
(SPEC R1–R8): a password room and invite links, ready, draw offers accepted and rejected by
a move, resignation, and a timeout with the clock shortened by the server's test-only
setting. Screenshots of the room screens go to /tmp/chuhan-rooms-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from rooms_client import FAST_SETTINGS, running_server

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    create_room,
    invite_link,
    move,
    own_side_at_bottom,
    ready_both,
    rematch_both,
    resign,
    room_data,
    wait_end,
)

pytest_plugins = ["web_fixtures"]  # its Chromium

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

SHOTS = Path("/tmp")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("rooms-web")) as url:
        yield url


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("rooms-web-fast"), **FAST_SETTINGS) as url:
        yield url


@pytest.fixture
def friends(chromium: Browser, server: str) -> Iterator[Friends]:
    pair = Friends(chromium, server)
    yield pair
    pair.close()


@pytest.fixture
def fast_friends(chromium: Browser, fast_server: str) -> Iterator[Friends]:
    pair = Friends(chromium, fast_server)
    yield pair
    pair.close()


def test_xiangqi_password_room_draw_accepted_then_rejected_and_resignation_R1_R3_R5(
    friends: Friends,
) -> None:
    creator, friend = friends.pages
    create_room(creator, password="1234")  # refused, and the page says why (R2)
    creator.wait_for_selector("[data-room-notice]:not([hidden])")
    assert "Consecutive" in creator.inner_text("[data-room-notice]")
    creator.fill("#room-new-password", "Dragon88")
    creator.click("[data-action=create-room]")
    creator.wait_for_selector("[data-room]")
    assert creator.inner_text("[data-room-password]") == "dragon88"
    friend.goto("/room")
    friend.wait_for_selector("[data-room-home]")
    friend.fill("#room-password", "DRAGON88")
    friend.click("[data-action=join-room]")
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    creator.wait_for_selector("[data-room] [data-seat=friend]")
    creator.screenshot(path=str(SHOTS / "chuhan-rooms-lobby.png"))

    # Game 1: red offers a draw on its turn, moves (the offer stays), black accepts.
    pages = ready_both([creator, friend])
    assert own_side_at_bottom(pages["red"], "red")
    assert own_side_at_bottom(pages["black"], "black")
    pages["red"].click("[data-action=draw]")
    pages["black"].wait_for_selector("[data-room][data-offer-by=red]")
    move(pages["red"], "h1g3")
    pages["black"].wait_for_selector("[data-offer] [data-action=accept-draw]:not([disabled])")
    pages["black"].screenshot(path=str(SHOTS / "chuhan-rooms-draw-offer.png"))
    pages["black"].click("[data-action=accept-draw]")
    for page in pages.values():
        assert wait_end(page, "agreement")["winner"] == ""

    # Game 2, a rematch (B4): colours swapped; the offer is rejected by black's move; then
    # red resigns.
    before = {page: side for side, page in pages.items()}
    pages = rematch_both(pages)
    assert all(before[page] != side for side, page in pages.items())
    pages["red"].click("[data-action=draw]")
    move(pages["red"], "b1c3")
    pages["black"].wait_for_selector("[data-room][data-offer-by=red]")
    move(pages["black"], "h10g8")
    pages["red"].wait_for_selector("[data-room][data-offer-by='']")
    resign(pages["red"])
    for page in pages.values():
        assert wait_end(page, "resignation")["winner"] == "black"
    pages["black"].wait_for_selector("[data-result]")
    assert "+50" in pages["black"].inner_text("[data-result]")  # R6
    pages["black"].screenshot(path=str(SHOTS / "chuhan-rooms-result.png"))

    # S1: each player's home lists both games under the online points, newest first.
    for side, outcome, points in (("black", "Won", "+50 points"), ("red", "Lost", "+0 points")):
        page = pages[side]
        page.goto("/")
        page.wait_for_selector("[data-games=online] li", state="attached")
        page.click("[data-games=online] summary")
        lines = page.locator("[data-games=online] li").all_inner_texts()
        assert len(lines) == 2, lines
        assert f"{outcome}. Resignation. {points}" in lines[0]
        assert "No winner. Draw agreed. +0 points" in lines[1]
        assert page.inner_text("[data-games=ai] summary").endswith("(0)")
    pages["black"].screenshot(path=str(SHOTS / "chuhan-rooms-online-games.png"))


def test_rematch_offer_seen_at_once_declined_cancelled_then_accepted_colours_swapped_B4(
    friends: Friends,
) -> None:
    creator, friend = friends.pages
    create_room(creator)
    # R3 explained where Ready is still asked: the first game of a private room.
    assert "colours are drawn at random" in creator.inner_text("[data-ready-note]")
    friend.goto(invite_link(creator))
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    assert "Both players press Ready" in friend.inner_text("[data-ready-note]")
    pages = ready_both([creator, friend])
    red, black = pages["red"], pages["black"]
    first_game = room_data(red)["gameId"]
    resign(black)
    for page in (red, black):
        wait_end(page, "resignation")
        # No "Ready" after a game between the same two: a rematch is offered instead.
        page.wait_for_selector("[data-rematch=none] [data-action=rematch-offer]")
        assert page.locator("[data-action=ready]").count() == 0

    # Red offers; black sees the offer at once (pushed over the room socket), and declines.
    red.click("[data-action=rematch-offer]")
    red.wait_for_selector("[data-rematch=offered] [data-action=rematch-cancel]")
    black.wait_for_selector("[data-rematch=received] [data-rematch-offer]")
    assert "offers a rematch" in black.inner_text("[data-rematch-offer]")
    black.screenshot(path=str(SHOTS / "chuhan-rooms-rematch-offer.png"))
    black.click("[data-action=rematch-decline]")
    red.wait_for_selector("[data-rematch-declined]")
    black.wait_for_selector("[data-rematch=none]")
    assert room_data(red)["gameId"] == first_game  # nothing started

    # Red offers again and cancels: black's offer bar goes away.
    red.click("[data-action=rematch-offer]")
    black.wait_for_selector("[data-rematch=received]")
    red.click("[data-action=rematch-cancel]")
    black.wait_for_selector("[data-rematch=none]")

    # Black offers, red accepts: a new game at once, with the colours swapped.
    pages = rematch_both({"black": black, "red": red})
    assert pages["red"] is black
    assert pages["black"] is red
    assert own_side_at_bottom(black, "red")
    assert own_side_at_bottom(red, "black")
    assert room_data(black)["gameId"] != first_game
    move(black, "h3e3")
    red.wait_for_selector("[data-room][data-ply='1']")


def test_xiangqi_invite_link_and_a_timeout_flagged_by_the_server_R4(
    fast_friends: Friends,
) -> None:
    creator, friend = fast_friends.pages
    create_room(creator)
    friend.goto(invite_link(creator))
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    assert "/room/i/" not in friend.url  # the address becomes the room's own
    pages = ready_both([creator, friend])
    pages["red"].wait_for_selector("[data-clock]")
    pages["red"].screenshot(path=str(SHOTS / "chuhan-rooms-clock.png"))
    # Red does not move: the server flags red at the deadline (the pages only show it).
    for page in pages.values():
        assert wait_end(page, "timeout")["winner"] == "black"


@pytest.mark.parametrize(("variant", "password"), [("janggi", "Janggi5"), ("jieqi", None)])
def test_janggi_by_password_and_jieqi_by_invite_link_R1_R3(
    friends: Friends, variant: str, password: str | None
) -> None:
    creator, friend = friends.pages
    create_room(creator, variant, password)
    if password is None:
        friend.goto(invite_link(creator))
    else:
        friend.goto("/room")
        friend.fill("#room-password", password.upper())
        friend.click("[data-action=join-room]")
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    pages = ready_both([creator, friend], variant)
    first = "cho" if variant == "janggi" else "red"
    if variant == "janggi":
        # Han chooses first; Cho then sees Han's choice and chooses (R4, J3).
        pages["han"].check("[data-setup] input[value=EHHE]")
        pages["han"].click("[data-action=choose-setup]")
        pages["cho"].wait_for_selector("[data-han-setup]")
        assert "EHHE" in pages["cho"].inner_text("[data-han-setup]")
        pages["cho"].screenshot(path=str(SHOTS / "chuhan-rooms-janggi-setup.png"))
        pages["cho"].click("[data-action=choose-setup]")
        for page in pages.values():
            page.wait_for_selector("[data-room][data-phase=playing]")
    move(pages[first], "a4a5")
    pages[first].screenshot(path=str(SHOTS / f"chuhan-rooms-{variant}.png"))
    second = next(side for side in pages if side != first)
    resign(pages[second])
    for page in pages.values():
        assert wait_end(page, "resignation")["winner"] == first
    # B4: a rematch swaps the colours (janggi: its setup choice comes first, Han first).
    again = rematch_both(pages, variant)
    assert all(again[side] is not pages[side] for side in again)
    if variant == "janggi":
        expect_setup = again["han"].locator("[data-action=choose-setup]")
        expect_setup.wait_for()


def test_continue_on_this_device_and_reload_R7(friends: Friends) -> None:
    creator, friend = friends.pages
    create_room(creator)
    friend.goto(invite_link(creator))
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    pages = ready_both([creator, friend])
    move(pages["red"], "h3e3")
    # A reload is the same device: the seat and the exact position come back at once.
    pages["black"].reload()
    pages["black"].wait_for_selector("[data-room][data-ply='1'][data-my-turn=true]")
    # A second tab of the same player is another device: it offers to continue there.
    black = pages["black"]
    second = black.context.new_page()
    second.set_default_timeout(15000)
    second.goto(black.url)
    second.click("[data-action=take-seat]")
    second.wait_for_selector("[data-room][data-ply='1'][data-my-turn=true]")
    black.wait_for_selector("[data-detached]")
    second.screenshot(path=str(SHOTS / "chuhan-rooms-continued.png"))
    move(second, "h10g8")
    pages["red"].wait_for_selector("[data-room][data-ply='2']")


def test_leaving_a_room_goes_back_to_the_pending_ai_game_R8(friends: Friends) -> None:
    page = friends.pages[0]
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]")
    answer = page.request.post(
        "/api/games", data={"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
    )
    pending = answer.json()["id"]
    create_room(page)
    page.click("[data-action=leave]")
    page.wait_for_url(f"**/play/ai?*game={pending}*")

"""In the browser: a refusal's fields (inside ``error``, the API's one shape)
reach the player's text (SPEC Z3, U8): a wrong room password says how many tries are left."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytest.importorskip("playwright")
from web_fixtures import chromium, open_page, web_page, web_server  # noqa: F401

pytestmark = pytest.mark.timeout(120)


def test_a_wrong_room_password_says_the_tries_left_the_server_counted_Z3(
    web_page: Page,  # noqa: F811
) -> None:
    open_page(web_page, "/room")
    web_page.fill("#room-password", "Nobody42x")
    with web_page.expect_response("**/api/rooms/join") as answered:
        web_page.click("[data-action=join-room]")
    answer = answered.value
    assert answer.status == 404
    error = answer.json()["error"]
    assert error["code"] == "wrong_password"
    assert error["tries_left"] >= 1
    notice = web_page.locator("[data-room-notice]")
    expect(notice).to_contain_text(f"{error['tries_left']} tries left")

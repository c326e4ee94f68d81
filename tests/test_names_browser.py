"""Everyone has a name, and strangers see each other's (SPEC B7, S1) in a real Chromium.

Two new players press "Play someone now": each is asked once what the opponent should call
them, with their readable default name ready ("Orca 4821", never "a player without a name");
one writes "Ana", the other keeps the default. In the paired room both names and both
ratings show before the first move, on a phone (390 px) and a desktop (1366 px). Screenshots
go to /tmp/chuhan-names-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

pytest.register_assert_rewrite("web_fixtures")
from rooms_client import running_server  # noqa: E402
from web_fixtures import checked_page, open_page  # noqa: E402

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]
SHOTS = Path("/tmp")
PHONE: ViewportSize = {"width": 390, "height": 844}
WIDE: ViewportSize = {"width": 1366, "height": 900}
DEFAULT_NAME = re.compile(r"^[A-Z][a-z]+ [1-9]\d{3}$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("names-web")) as url:
        yield url


def _me(page: Page) -> dict[str, object]:
    return dict(page.request.get("/api/me").json())


def test_strangers_are_asked_a_name_once_and_see_both_names_and_ratings_b7(
    chromium: Browser, server: str
) -> None:
    contexts = [
        chromium.new_context(base_url=server, viewport=viewport, locale="en-US")
        for viewport in (PHONE, WIDE)
    ]
    pagers = [checked_page(context) for context in contexts]
    ana, other = (next(pager) for pager in pagers)
    for page in (ana, other):
        open_page(page, "/")
        me = _me(page)
        assert DEFAULT_NAME.match(str(me["name"]))
        assert me["name_chosen"] is False

    ana.check("#seek-variant-xiangqi")
    ana.click("[data-action=seek]")
    expect(ana.locator("[data-naming]")).to_be_visible()
    assert ana.input_value("[data-naming-input]") == _me(ana)["name"]  # the default, ready
    ana.screenshot(path=str(SHOTS / "chuhan-names-asked-390.png"))
    ana.fill("[data-naming-input]", "Ana\u3164")  # a look-alike name is refused, as in settings
    ana.click("[data-action=naming-play]")
    expect(ana.locator("[data-naming-status]")).not_to_be_empty()
    ana.fill("[data-naming-input]", "Ana")
    ana.click("[data-action=naming-play]")
    ana.wait_for_selector("[data-seek-wait]:not([hidden])")
    assert _me(ana)["name"] == "Ana"
    assert _me(ana)["name_chosen"] is True

    default = str(_me(other)["name"])
    other.check("#seek-variant-xiangqi")
    other.click("[data-action=seek]")
    expect(other.locator("[data-naming]")).to_be_visible()
    other.click("[data-action=naming-play]")  # keeps the default: asked no more
    for page in (ana, other):
        page.wait_for_url("**/room/r*")
        page.wait_for_selector("[data-room][data-phase=playing]")
    assert _me(other)["name"] == default
    assert _me(other)["name_chosen"] is True

    for page, width in ((ana, 390), (other, 1366)):
        names = page.locator("[data-players] [data-name]")
        expect(names).to_have_count(2)
        shown = " / ".join(names.all_inner_texts())
        assert "Ana (1500?)" in shown, shown
        assert f"{default} (1500?)" in shown, shown
        assert "(you)" in shown
        page.screenshot(path=str(SHOTS / f"chuhan-names-room-{width}.png"))
    for pager in pagers:
        next(pager, None)


def test_the_settings_name_starts_as_the_default_b7(web_page: Page) -> None:
    open_page(web_page, "/")
    web_page.click("[data-action=settings]")
    field = web_page.locator("#settings-name")
    expect(field).to_have_value(DEFAULT_NAME)

"""What a new player from lichess or pychess noticed in one session (issue 28, "Also found in
the same session"), each fixed with a real Chromium against a real server (SPEC P4, R6, U6,
N1–N4, J8, R5, R7).

Screenshots of the screens changed go to /tmp/chuhan-polish-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import open_page  # noqa: E402

pytest_plugins = ["web_fixtures"]

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

SHOTS = Path("/tmp")
I18N = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "i18n"
PHONE = {"width": 390, "height": 844}


def strings(language: str) -> dict[str, str]:
    return dict(json.loads((I18N / f"{language}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("language", ["en", "es", "pt"])
def test_the_home_page_names_online_play_and_every_points_rule_P4_R6(
    chromium: Browser, web_server: str, language: str
) -> None:
    """The lead names online play; the points note names the AI's 10/30/80 and the online 50."""
    context = chromium.new_context(base_url=web_server, locale=language, viewport=PHONE)
    page = context.new_page()
    try:
        open_page(page, "/")
        lead = page.inner_text(".home > .lead")
        online = {"en": "online", "es": "en línea", "pt": "online"}[language]
        assert online in lead.lower(), lead
        rule = page.inner_text("[data-points-rule]")
        for points in ("10", "30", "80", "50"):
            assert points in rule, rule
        if language == "en":
            page.screenshot(path=str(SHOTS / "chuhan-polish-home-phone.png"), full_page=True)
    finally:
        context.close()

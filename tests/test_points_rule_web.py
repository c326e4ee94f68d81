"""The home screen says the rule behind the online points where it shows them (SPEC R6,
S1, U8: a pair of players scores for at most three games a day)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import open_page  # noqa: E402

pytest_plugins = ["web_fixtures"]

I18N = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "i18n"


@pytest.mark.parametrize("language", ["en", "es", "pt"])
def test_the_home_screen_states_the_online_points_rule(web_page: Page, language: str) -> None:
    open_page(web_page, "/")
    web_page.evaluate(
        "l => localStorage.setItem('chuhan.settings', JSON.stringify({language: l}))", language
    )
    open_page(web_page, "/")
    rule = json.loads((I18N / f"{language}.json").read_text())["home.points_rule"]
    assert "50" in rule
    assert "3" in rule
    expect(web_page.locator("[data-points-rule]")).to_have_text(rule)
    expect(web_page.locator("[data-points]")).to_contain_text("0")

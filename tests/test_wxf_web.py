"""The WXF rules in the browser (E1, U6, U8): chosen on the home screen, and a
perpetual chase ends the game with a reason that names the chaser, the chased piece and the
move it began on, in the player's language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytest.register_assert_rewrite("web_fixtures")
from test_wxf import START_CHASE_CYCLE as CYCLE  # noqa: E402
from test_wxf import START_CHASE_LEAD as LEAD  # noqa: E402
from web_fixtures import open_page, play, server_state  # noqa: E402

pytest_plugins = ["web_fixtures"]


def test_the_home_screen_offers_the_wxf_rules_for_xiangqi_and_jieqi(web_page: Page) -> None:
    open_page(web_page, "/")
    form = web_page.locator("[data-form=local]")
    box = form.locator("input[name=rules]")
    expect(box).to_be_visible()
    form.locator("input[name=local-variant][value=janggi]").check(force=True)
    expect(box).to_be_hidden()
    form.locator("input[name=local-variant][value=jieqi]").check(force=True)
    expect(box).to_be_visible()
    expect(web_page.locator("[data-form=ai] input[name=rules]")).to_be_visible()


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "The chariot on i9 chased the cannon on h9 on every move from move 4."),
        ("es", "El carro de i9 persiguió al cañón de h9 en cada jugada desde la jugada 4."),
    ],
)
def test_a_perpetual_chase_ends_the_game_with_its_evidence(
    web_page: Page, language: str, words: str
) -> None:
    open_page(web_page, "/")
    web_page.evaluate(
        "l => localStorage.setItem('chuhan.settings', JSON.stringify({language: l}))", language
    )
    open_page(web_page, "/")
    form = web_page.locator("[data-form=local]")
    form.locator("input[name=local-variant][value=xiangqi]").check(force=True)
    form.locator("input[name=rules]").check(force=True)
    form.locator("button[type=submit]").click()
    web_page.wait_for_selector("[data-game]")
    assert server_state(web_page)["options"]["rules"] == "wxf"
    for move in LEAD + CYCLE * 2:
        play(web_page, move)
    state = server_state(web_page)
    assert (state["status"], state["result"]["reason"]) == ("finished", "perpetual_chase")
    dialog = web_page.locator("dialog[data-end-dialog]")
    expect(dialog).to_be_visible()
    expect(dialog.locator("[data-result-reason]")).to_contain_text(words)
    # The move list marks the moves of the repetition that chased (the review).
    chased = sorted(m["ply"] for m in state["ruling"]["marks"] if m["chases"] and not m["check"])
    assert len(chased) >= 4  # the chariot's every move, twice round the cycle
    marked = web_page.eval_on_selector_all(
        ".move-list .move[data-repetition=chase]", "es => es.map(e => Number(e.dataset.ply))"
    )
    assert sorted(marked) == chased

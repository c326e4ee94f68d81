"""What a new player from lichess or pychess noticed in a first session, each fixed and checked
with a real Chromium against a real server (SPEC P4, R6, U6, N1–N4, J8, R5, R7).

Screenshots of the screens changed go to /tmp/chuhan-polish-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, ViewportSize, expect

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    answer_naming,
    create_room,
    game_data,
    invite_link,
    move,
    open_page,
    play,
    ready_both,
    rematch_both,
    resign,
    room_data,
    server_state,
    wait_end,
)

pytest_plugins = ["web_fixtures"]

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

SHOTS = Path("/tmp")
I18N = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "i18n"
PHONE: ViewportSize = {"width": 390, "height": 844}


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


def test_captured_pieces_have_a_heading_U6(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    expect(web_page.locator("[data-captured] h2")).to_have_count(0)  # nothing captured yet
    play(web_page, "h3h10")  # the cannon takes the horse
    expect(web_page.locator("[data-captured] h2")).to_have_text("Captured pieces")
    expect(web_page.locator("[data-captured-side=black]")).to_have_attribute("data-letters", "n")


def test_no_move_counter_nor_analyse_before_the_first_move_U6(
    chromium: Browser, web_server: str
) -> None:
    """A live game without moves shows neither "Move 0 of 0" nor "Analyse"; the counter comes
    with the first move, "Analyse" only once the game is over."""
    for viewport, name in ((PHONE, "phone"), (ViewportSize(width=1366, height=900), "desktop")):
        context = chromium.new_context(base_url=web_server, viewport=viewport, locale="en-US")
        page = context.new_page()
        try:
            open_page(page, "/play/local?variant=xiangqi")
            expect(page.locator("[data-review-bar]")).to_be_hidden()
            expect(page.locator("[data-analysis=start]")).to_be_hidden()
            page.screenshot(path=str(SHOTS / f"chuhan-polish-live-{name}.png"))
            play(page, "h3e3")
            expect(page.locator(".review-counter")).to_have_text("Move 1 of 1")
            expect(page.locator("[data-analysis=start]")).to_be_hidden()
            page.click("[data-action=resign]")
            page.click("dialog[data-confirm-dialog] [data-action=confirm]")
            page.click("dialog[data-end-dialog] button:last-child")  # "Review"
            expect(page.locator("[data-analysis=start]")).to_be_visible()
        finally:
            context.close()


def test_janggi_shows_both_points_totals_during_play_J8(chromium: Browser, web_server: str) -> None:
    """Points decide janggi games (J8): both totals show while playing, Han's with its 1.5."""
    for viewport, name in ((PHONE, "phone"), (ViewportSize(width=1366, height=900), "desktop")):
        context = chromium.new_context(base_url=web_server, viewport=viewport, locale="en-US")
        page = context.new_page()
        try:
            open_page(page, "/play/local?variant=janggi")
            totals = page.locator("[data-janggi-points]")
            expect(totals).to_be_visible()
            expect(totals.locator("[data-points-side=cho]")).to_have_text("72")
            expect(totals.locator("[data-points-side=han]")).to_have_text("73.5")
            page.screenshot(path=str(SHOTS / f"chuhan-polish-janggi-points-{name}.png"))
        finally:
            context.close()


def test_offering_a_draw_to_the_ai_asks_first_P4_A5(web_page: Page) -> None:
    """A draw the AI may accept ends a scored game: the offer asks to confirm."""
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    web_page.wait_for_selector("[data-game][data-my-turn=true]")
    web_page.click("[data-action=draw]")
    dialog = web_page.locator("dialog[data-confirm-dialog]")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("points")
    dialog.locator("[data-action=cancel]").click()
    web_page.wait_for_timeout(300)  # nothing was sent: the game goes on, as it was
    assert game_data(web_page)["status"] == "ongoing"
    assert server_state(web_page)["status"] == "ongoing"


# ---------------------------------------------------------------- rooms on a phone (R4, R5, R7)

ANNOUNCEMENTS = """
window.said = [];
document.addEventListener("DOMContentLoaded", () => {
  const region = document.getElementById("announcer");
  if (!region) return;
  new MutationObserver(() => {
    if (region.textContent) window.said.push(region.textContent);
  }).observe(region, { childList: true, characterData: true, subtree: true });
});
"""


def set_name(page: Page, name: str) -> None:
    """S1: the display name, set in the settings dialog (in any language)."""
    page.click("[data-action=settings]")
    dialog = page.locator("dialog[data-settings-dialog]")
    dialog.locator("#settings-name").fill(name)
    dialog.locator("[data-action=save-name]").click()
    expect(dialog.locator("[data-name-status]")).not_to_be_empty()
    dialog.locator("[data-action=close]").click()


def named_room(
    browser: Browser, url: str, variant: str, locale: str = "en-US"
) -> tuple[Friends, dict[str, Page]]:
    """Ana creates a room, Beto joins by its invite link; both on phones, both ready."""
    pair = Friends(browser, url, viewport=PHONE, locale=locale)
    for page, name in zip(pair.pages, ("Ana", "Beto"), strict=True):
        page.add_init_script(ANNOUNCEMENTS)
        open_page(page, "/")
        set_name(page, name)
    creator, friend = pair.pages
    create_room(creator, variant)
    friend.goto(invite_link(creator))
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    pages = ready_both([creator, friend], variant)
    for page in pages.values():  # looking at the board, as a player waiting does
        page.evaluate("window.scrollTo(0, 0)")
    return pair, pages


def test_a_draw_offer_on_a_phone_does_not_move_the_board_and_names_the_player_R5(
    chromium: Browser, web_server: str
) -> None:
    pair, pages = named_room(chromium, web_server, "xiangqi", locale="es-ES")
    try:
        red, black = pages["red"], pages["black"]
        red_name = red.inner_text("[data-players] [data-you=true] [data-name]").split(" ")[0]
        before = black.locator("svg.board").bounding_box()
        red.click("[data-action=draw]")
        black.wait_for_selector("[data-offer]:not([hidden])", timeout=20000)
        offer = black.locator("[data-offer]")
        expect(offer).to_be_in_viewport()
        after = black.locator("svg.board").bounding_box()
        assert before, (before, after)
        assert after, (before, after)
        assert abs(after["y"] - before["y"]) < 1, (before, after)
        expect(offer).to_contain_text(red_name)
        expect(offer).not_to_contain_text("Tu amigo")
        black.screenshot(path=str(SHOTS / "chuhan-polish-room-offer-phone.png"))
        # The winner hears "¡Has ganado!" without a stray full stop after it.
        resign(black)
        wait_end(red, "resignation")
        red.wait_for_function("() => window.said.some(text => text.includes('Has ganado'))")
        said = red.evaluate("window.said")
        assert not any("!." in text for text in said), said
    finally:
        pair.close()


def test_the_janggi_setup_choice_is_brought_to_the_player_R4_J3(
    chromium: Browser, web_server: str
) -> None:
    """The choice runs on the turn clock: it shows in view beside the board, not two
    screens below it."""
    pair, pages = named_room(chromium, web_server, "janggi")
    try:
        han, cho = pages["han"], pages["cho"]
        han.wait_for_selector("[data-action=choose-setup]")
        han.click("[data-action=choose-setup]")
        # Cho's turn comes while Cho looks at the board: the choice is brought into view.
        expect(cho.locator("[data-action=choose-setup]")).to_be_in_viewport()
        cho.screenshot(path=str(SHOTS / "chuhan-polish-room-setup-phone.png"))
        cho.click("[data-action=choose-setup]")
        cho.wait_for_selector("[data-room][data-phase=playing]")
    finally:
        pair.close()


def test_a_second_device_sees_the_live_game_and_either_device_takes_the_seat_back_R7(
    chromium: Browser, web_server: str
) -> None:
    pair, pages = named_room(chromium, web_server, "xiangqi")
    try:
        red, black = pages["red"], pages["black"]
        move(red, "h3e3")
        move(black, "h10g8")
        red.click("[data-action=draw]")  # an offer the second device cannot answer
        move(red, "h1g3")  # the offer stays (R5)
        black.wait_for_selector("[data-offer]:not([hidden])")
        second = black.context.new_page()
        second.set_default_timeout(15000)
        second.goto(black.url)
        # The live game, not an empty board asking for Ready.
        second.wait_for_selector('[data-point="e3"] [data-piece=C]')
        expect(second.locator(".status-line")).not_to_contain_text("Ready")
        expect(second.locator("[data-action=take-seat]")).to_be_in_viewport()
        expect(second.locator("[data-offer]")).to_be_hidden()
        second.screenshot(path=str(SHOTS / "chuhan-polish-room-second-device-phone.png"))
        second.click("[data-action=take-seat]")
        second.wait_for_selector("[data-room][data-my-turn=true]")
        black.wait_for_selector("[data-detached]")
        # The first device takes it back without a reload.
        black.click("[data-action=take-seat]")
        black.wait_for_selector("[data-room][data-ply='3'][data-my-turn=true]")
        second.wait_for_selector("[data-detached]")
        move(black, "b10c8")
        red.wait_for_selector("[data-room][data-ply='4']")
    finally:
        pair.close()


def test_a_rematch_between_two_paired_strangers_swaps_colours_B1_B4(
    chromium: Browser, web_server: str
) -> None:
    """B4 in a paired room (B1): after the game, the same two play again, colours swapped."""
    strangers = Friends(chromium, web_server, viewport={"width": 1366, "height": 900})
    try:
        for page in strangers.pages:
            page.goto("/")
            page.wait_for_selector("body[data-ready=true]")
            page.check("#seek-variant-xiangqi")
            page.click("[data-action=seek]")
            answer_naming(page)  # B7: their first pairing
        for page in strangers.pages:
            page.wait_for_url("**/room/r*")
            page.wait_for_selector("[data-room][data-phase=playing]")
        pages = {room_data(page)["you"]: page for page in strangers.pages}
        move(pages["red"], "h3e3")
        resign(pages["black"])
        for page in pages.values():
            wait_end(page, "resignation")
        again = rematch_both(pages)
        assert again["red"] is pages["black"]
        assert again["black"] is pages["red"]
        expect(again["red"].locator("[data-paired]")).to_be_visible()  # still the paired room
        again["red"].screenshot(path=str(SHOTS / "chuhan-polish-paired-rematch-desktop.png"))
        move(again["red"], "h3e3")
        again["black"].wait_for_selector("[data-room][data-ply='1']")
    finally:
        strangers.close()


# ---------------------------------------------------------------------- records (N4)


def test_an_unfinished_imported_record_reads_unfinished_not_a_draw_N4_E5(web_page: Page) -> None:
    open_page(web_page, "/review/import")
    web_page.fill("[data-import-text]", '[Result "*"]\n\n1. h3e3 h10g8\n')
    web_page.click("[data-import-submit]")
    web_page.wait_for_url("**/review/game/*")
    result = web_page.locator("[data-result]")
    expect(result).to_contain_text("Unfinished")
    expect(result).not_to_contain_text("Draw")
    expect(result).not_to_contain_text("reason.")
    web_page.screenshot(path=str(SHOTS / "chuhan-polish-unfinished-desktop.png"))


def test_an_import_error_is_translated_and_names_its_line_N4_U8(
    chromium: Browser, web_server: str
) -> None:
    context = chromium.new_context(base_url=web_server, locale="es-ES", viewport=PHONE)
    page = context.new_page()
    try:
        open_page(page, "/review/import")
        text_box = page.locator("[data-import-text]").bounding_box()
        assert text_box, text_box
        assert text_box["width"] > 340, text_box  # the form's own styles, on a phone
        record = "1. h3e3 h10g8\n2. h1g3 R9+9\n"
        page.fill("[data-import-text]", record)
        page.click("[data-import-submit]")
        error = page.locator("[data-import-error]")
        expect(error).to_contain_text("línea 2")
        english = page.request.post("/api/records", data=record.encode()).json()["error"]
        assert english["message"] not in error.inner_text()
        assert "line" not in error.inner_text()
        page.fill("[data-import-text]", "")
        page.click("[data-import-submit]")
        expect(error).to_contain_text("está vacío")  # an empty record says so, in Spanish
        page.screenshot(path=str(SHOTS / "chuhan-polish-import-error-phone.png"))
    finally:
        context.close()


def test_a_screen_counts_as_ready_only_once_its_own_stylesheet_has_loaded_N4(
    chromium: Browser, web_server: str
) -> None:
    """The import form's layout comes from the review stylesheet, which the screen adds when
    it opens. While that file is still on its way (held here, as a slow network would), the
    page must not say it is drawn: a full run saw the form measured in the browser's default
    layout, before the styles applied."""
    context = chromium.new_context(base_url=web_server, viewport=PHONE)
    page = context.new_page()
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    try:
        page.route("**/static/css/review.css", hold)
        page.goto("/review/import")
        page.wait_for_selector("[data-import-text]")
        while not held:
            page.wait_for_timeout(50)
        assert page.get_attribute("body", "data-ready") != "true"
        held[0].continue_()
        page.wait_for_selector("body[data-ready=true]")
        text_box = page.locator("[data-import-text]").bounding_box()
        assert text_box, text_box
        assert text_box["width"] > 340, text_box
    finally:
        context.close()


def test_the_record_download_offers_formats_other_programs_read_ICCS_first_N4(
    web_page: Page,
) -> None:
    """Not `[Format "Coords"]`: ICCS by default, WXF and Chinese on offer; the human's side
    has its tag beside the AI's."""
    open_page(web_page, "/play/ai?variant=xiangqi&level=beginner&color=red")
    web_page.wait_for_selector("[data-game][data-my-turn=true]")
    play(web_page, "h3e3")
    choice = web_page.locator("[data-review=record-format]")
    options = choice.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert options == ["iccs", "wxf", "chinese"], options
    link = web_page.locator("[data-review=download]")
    record = web_page.request.get(str(link.get_attribute("href"))).text()
    assert '[Format "ICCS"]' in record, record
    assert "H2-E2" in record, record
    assert '[Red "' in record, record
    assert '[Black "Chu-Han AI (beginner)"]' in record, record
    choice.select_option("wxf")
    record = web_page.request.get(str(link.get_attribute("href"))).text()
    assert '[Format "WXF"]' in record, record
    assert "C2.5" in record, record
    web_page.screenshot(path=str(SHOTS / "chuhan-polish-record-formats-desktop.png"))


def test_a_janggi_record_offers_korean_and_iccs_N4(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=janggi")
    choice = web_page.locator("[data-review=record-format]")
    options = choice.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert options == ["korean", "iccs"], options


@pytest.mark.parametrize(
    ("notation", "variant", "move", "written"),
    [
        ("wxf", "xiangqi", "h3e3", "C2.5"),
        ("chinese", "xiangqi", "h3e3", "炮二平五"),
        ("korean", "janggi", "a4a5", "71卒61"),
    ],
)
def test_the_confirm_bar_writes_the_move_in_the_chosen_notation_U4_N2_N3(
    web_page: Page, notation: str, variant: str, move: str, written: str
) -> None:
    open_page(web_page, "/")
    key = "janggiNotation" if variant == "janggi" else "notation"
    settings = json.dumps({"confirmMove": True, key: notation})
    web_page.evaluate(f"localStorage.setItem('chuhan.settings', {json.dumps(settings)})")
    open_page(web_page, f"/play/local?variant={variant}")
    web_page.click(f'[data-point="{move[:2]}"]')
    web_page.click(f'[data-point="{move[2:]}"]')
    bar = web_page.locator(".confirm-bar:not([hidden])")
    expect(bar).to_contain_text(written)
    expect(bar).not_to_contain_text(f"{move[:2]}-{move[2:]}")
    web_page.click("[data-action=confirm-move]")
    expect(web_page.locator(".move-list .move").first).to_have_text(written)

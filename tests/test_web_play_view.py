"""One play view for every game kind (SPEC U6, U9, N1–N3, Q5, Q7, J6, J8, R3–R5, S1).

The same assertions — check marked, the move list in the chosen notation, captured pieces,
the jieqi end with every piece face up and the commitment checked, the result and its reason —
run against a room (two players in two browser contexts) and against the AI game screen, in
each variant, at phone (390 px) and desktop (1366 px) sizes, so the two screens cannot drift
apart again. In a room both players' moves are chosen by the test, so each scenario reaches
its position exactly; against the AI the replies are the AI's, so the expected screen is
derived from the server's own state of the game after every move.

Screenshots of the screens go to /tmp/shots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from chuhan.rules import make_board
from chuhan.rules.notation import write_moves
from rooms_client import FAST_SETTINGS, running_server

pytest.register_assert_rewrite("web_fixtures")
from web_fixtures import (  # noqa: E402
    Friends,
    create_room,
    invite_link,
    move,
    open_page,
    piece_at,
    play,
    ready_both,
    resign,
    room_data,
    server_state,
    wait_end,
    wait_my_turn,
)

pytest_plugins = ["web_fixtures"]
pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SHOTS = Path("/tmp/shots")
SIZES: dict[str, ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1366, "height": 900},
}
FIRST = {"xiangqi": "red", "janggi": "cho", "jieqi": "red"}
SECOND = {"xiangqi": "black", "janggi": "han", "jieqi": "black"}
NOTATION = {"xiangqi": "chinese", "janggi": "korean", "jieqi": "coordinates"}
SETTINGS_KEY = {"xiangqi": "notation", "janggi": "janggiNotation", "jieqi": "notation"}
# J8: the material points of a janggi side.
JANGGI_POINTS = {"r": 13, "c": 7, "n": 5, "b": 3, "a": 3, "p": 2, "k": 0}

# Each variant's scenario: moves that reach a capture and a check, then the side to move
# resigns. The janggi one starts with a pass (J6) and uses the default setups (HEHE).
# The pass is confirmed with the totals at the start: Cho 72, Han 73.5.
SCENARIOS: dict[str, dict[str, Any]] = {
    "xiangqi": {"moves": ["a1a2", "c10e8", "b3b10"], "check": "e10", "captured": "n"},
    "janggi": {"moves": ["pass", "g7h7", "h1f4", "a7a6", "f4h7"], "check": "e9", "captured": "p"},
    "jieqi": {"moves": ["b3b10"], "check": None, "captured": None},
}


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.wait_for_timeout(300)  # the last move's slide has ended
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def coordinates(moves: list[str]) -> list[str]:
    """N1: "h3-e3", "a10-a9"; a pass reads "pass"."""
    return [m if m == "pass" else "-".join(re.findall(r"[a-i]\d+", m)) for m in moves]


def scenario_texts(variant: str, moves: list[str]) -> list[str]:
    """The move list the player must read, written by the rules library (N1–N3)."""
    notation = NOTATION[variant]
    if notation == "coordinates":
        return coordinates(moves)
    options = {"setup": "HEHE:HEHE"} if variant == "janggi" else {}
    return write_moves(make_board(variant, None, **options), moves, notation)


def janggi_totals_text(fen: str) -> str:
    """J8: "Cho 72, Han 73.5 (Han (red) ahead)" for a janggi position."""
    totals = {"cho": 0.0, "han": 1.5}
    for ch in fen.split()[0]:
        if ch.lower() in JANGGI_POINTS:
            totals["cho" if ch.isupper() else "han"] += JANGGI_POINTS[ch.lower()]
    leader = "Cho (blue)" if totals["cho"] > totals["han"] else "Han (red)"
    return f"Cho {totals['cho']:g}, Han {totals['han']:g} ({leader} ahead)"


def choose_notation(page: Page, variant: str) -> None:
    """Pick the variant's notation in this browser's settings (before the game page opens)."""
    settings = f'{{"{SETTINGS_KEY[variant]}": "{NOTATION[variant]}"}}'
    page.evaluate(f"localStorage.setItem('chuhan.settings', {settings!r})")


# ---------------------------------------------------------------------- the shared assertions


def expect_moves(page: Page, texts: list[str]) -> None:
    """U6: the move list shows exactly these texts, in order."""
    expect(page.locator("[data-play] .move-list .move")).to_have_text(texts)


def expect_check(page: Page, point: str | None) -> None:
    """U6: the general in check is marked (and nothing else is)."""
    marks = page.locator("[data-play] .mark-check")
    if point is None:
        expect(marks).to_have_count(0)
    else:
        expect(page.locator(f'[data-play] [data-point="{point}"] .mark-check')).to_have_count(1)
        expect(marks).to_have_count(1)


def expect_captured(page: Page, side: str, letters: str) -> None:
    """The captured pieces of ``side`` as FEN letters (a regular expression); "" for none.
    A face-down piece whose identity the viewer may not know shows its back (x, Q5)."""
    row = page.locator(f"[data-play] [data-captured-side={side}]")
    if not letters:
        expect(row).to_have_count(0)
    else:
        expect(row).to_have_attribute("data-letters", re.compile(f"^{letters}$"))


def expect_result(page: Page, words: list[str]) -> None:
    """U6, E5: the end shows who won and why."""
    result = page.locator("[data-play] [data-end] [data-result]")
    for word in words:
        expect(result).to_contain_text(word)


def expect_jieqi_end(page: Page) -> None:
    """Q5, Q7: at the end every piece is face up, the arrangement is drawn as a board and
    the commitment published at the start is checked."""
    expect(page.locator("[data-play] [data-end] [data-commitment]")).to_have_attribute(
        "data-commitment", "ok"
    )
    assert page.locator("[data-board] [data-piece=X], [data-board] [data-piece=x]").count() == 0
    diagram = page.locator("[data-play] [data-end] [data-arrangement] svg")
    expect(diagram).to_be_visible()
    assert diagram.locator("[data-piece], g > g").count() >= 30
    label = diagram.get_attribute("aria-label") or ""
    assert re.search(r"a1 red (chariot|horse|elephant|advisor|cannon|soldier)", label), label


def expect_screen(page: Page, expected: dict[str, Any]) -> None:
    expect_moves(page, expected["moves"])
    expect_check(page, expected["check"])
    for side, letters in expected["captured"].items():
        expect_captured(page, side, letters)


# ---------------------------------------------------------------------- expected from a state


def general_point(fen: str, upper: bool) -> str:
    rows = fen.split()[0].split("/")
    for index, row in enumerate(rows):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            if ch == ("K" if upper else "k"):
                return f"{'abcdefghi'[file]}{10 - index}"
            file += 1
    raise AssertionError(f"no general in {fen}")


def placement_counts(fen: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ch in fen.split()[0]:
        if ch.isalpha():
            counts[ch] = counts.get(ch, 0) + 1
    return counts


def expected_from_state(state: dict[str, Any], notation: str) -> dict[str, Any]:
    """What the screen must show for a state the server sent this viewer."""
    variant = state["variant"]
    moves = state["moves"]
    if notation == "coordinates":
        texts = coordinates(moves)
    else:
        texts = state["notation"][notation]
    check = None
    if state["in_check"]:
        check = general_point(state["fen"], state["turn"] == state["sides"][0])
    first, second = state["sides"]
    captured: dict[str, str] = {}
    if variant == "jieqi":
        for side, hidden in ((first, "X"), (second, "x")):
            captured[side] = "".join(hidden if c == "?" else c for c in state["captured"][side])
    else:
        before, now = placement_counts(state["start_fen"]), placement_counts(state["fen"])
        for side in (first, second):
            lost = [
                letter * (count - now.get(letter, 0))
                for letter, count in before.items()
                if letter.isupper() == (side == first)
            ]
            captured[side] = "".join(lost)
    # The order of non-jieqi losses follows the start position; compare as a set of letters.
    if variant != "jieqi":
        captured = {
            s: f"[{letters}]{{{len(letters)}}}" if letters else ""
            for s, letters in captured.items()
        }
    return {"moves": texts, "check": check, "captured": captured}


# ---------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("play-view")) as url:
        yield url


def friends_at(browser: Browser, url: str, size: str) -> Friends:
    return Friends(browser, url, viewport=SIZES[size])


# ---------------------------------------------------------------------- rooms


def set_name_in_settings(page: Page, name: str) -> None:
    """S1: the display name is set in the settings dialog."""
    page.click("[data-action=settings]")
    dialog = page.locator("dialog[data-settings-dialog]")
    dialog.locator("#settings-name").fill(name)
    dialog.locator("[data-action=save-name]").click()
    expect(dialog.locator("[data-name-status]")).to_have_text("Name saved.")
    dialog.locator("[data-action=close]").click()


def open_room(pair: Friends, variant: str, names: tuple[str, str] | None = None) -> dict[str, Page]:
    creator, friend = pair.pages
    for page in pair.pages:
        page.goto("/")
        page.wait_for_selector("body[data-ready=true]")
        choose_notation(page, variant)
    if names:
        for page, name in zip(pair.pages, names, strict=True):
            set_name_in_settings(page, name)
    create_room(creator, variant)
    friend.goto(invite_link(creator))
    friend.wait_for_selector("[data-room] [data-seat=friend]")
    pages = ready_both([creator, friend], variant)
    if variant == "janggi":
        for side in ("han", "cho"):
            page = pages[side]
            page.wait_for_selector("[data-action=choose-setup]")
            check_setup_panel(page)
            page.click("[data-action=choose-setup]")
        for page in pages.values():
            page.wait_for_selector("[data-room][data-phase=playing]")
    return pages


def check_setup_panel(page: Page) -> None:
    """J3 in a room: the four setups as pictures (four pieces each), inside their box below
    the board (brought to the player), and the board shows the setup being picked."""
    pills = page.locator("[data-setup] .setup-pill")
    expect(pills).to_have_count(4)
    you = room_data(page)["you"]
    points = ["b1", "c1", "g1", "h1"] if you == "cho" else ["h10", "g10", "c10", "b10"]
    page.check("[data-setup] input[value=EHHE]")
    letters = [piece_at(page, point) for point in points]
    assert [(letter or "").upper() for letter in letters] == ["B", "N", "N", "B"], letters
    page.check("[data-setup] input[value=HEHE]")
    assert (piece_at(page, points[0]) or "").upper() == "N"
    panel = page.locator("[data-setup-box]").bounding_box()
    assert panel
    for index in range(4):
        pill = pills.nth(index)
        assert pill.locator(".setup-picture svg").count() == 4
        box = pill.bounding_box()
        assert box
        assert box["x"] >= panel["x"]
        assert box["x"] + box["width"] <= panel["x"] + panel["width"]
    viewport = page.viewport_size
    assert viewport
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    shoot(page, f"room-janggi-setup-{viewport['width']}")


def room_turn_page(pages: dict[str, Page]) -> Page:
    for page in pages.values():
        if room_data(page)["myTurn"] == "true":
            return page
    raise AssertionError("nobody may move")


def pass_with_confirmation(page: Page, totals: str) -> None:
    """J6, J8: the pass asks first and says the current totals."""
    ply = int(room_data(page)["ply"] or 0) if page.locator("[data-room]").count() else None
    page.click("[data-action=pass]")
    question = page.locator("dialog[data-confirm-dialog]")
    expect(question).to_contain_text(totals)
    question.locator("[data-action=confirm]").click()
    if ply is not None:
        page.wait_for_selector(f"[data-room][data-ply='{ply + 1}']")


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_a_room_shows_the_game_as_the_ai_screen_does_U6_Q5_Q7_R3(
    chromium: Browser, server: str, variant: str, size: str
) -> None:
    pair = friends_at(chromium, server, size)
    try:
        names = ("Lin", "Mei") if variant == "xiangqi" else None
        pages = open_room(pair, variant, names)
        first, second = FIRST[variant], SECOND[variant]
        if names:
            # S1, R3: both players' names and sides; each sees the other's chosen name.
            creator, friend = pair.pages
            for page, own, other in ((creator, "Lin", "Mei"), (friend, "Mei", "Lin")):
                players = page.locator("[data-play] [data-players]")
                expect(players.locator("[data-you=false] [data-name]")).to_contain_text(other)
                expect(players.locator("[data-you=true] [data-name]")).to_contain_text(
                    f"{own} (you)"
                )
        # R4: the running turn clock stands beside the side to move, on both screens.
        for page in pages.values():
            expect(
                page.locator(f"[data-players] [data-side={first}] [data-player-clock]")
            ).to_have_text(re.compile(r"^\d+ s$"))
            expect(page.locator("[data-clock]")).to_have_text(re.compile(r"\d+ s"))
        scenario = SCENARIOS[variant]
        played: list[str] = []
        for text in scenario["moves"]:
            page = room_turn_page(pages)
            if text == "pass":
                pass_with_confirmation(page, janggi_totals_text(make_board("janggi").fen()))
            else:
                move(page, text)
            played.append(text)
            for viewer in pages.values():
                viewer.wait_for_selector(f"[data-room][data-ply='{len(played)}']")
        texts = scenario_texts(variant, played)
        for side, page in pages.items():
            expected: dict[str, Any] = {"moves": texts, "check": scenario["check"], "captured": {}}
            if scenario["captured"]:
                expected["captured"] = {second: scenario["captured"], first: ""}
            elif variant == "jieqi":
                # Q5: only the capturer learns what the face-down piece was.
                expected["captured"] = {second: "x" if side == second else "[racnbp]", first: ""}
            expect_screen(page, expected)
        shoot(pages[first], f"room-{variant}-{size}-{first}")
        shoot(pages[second], f"room-{variant}-{size}-{second}")
        loser = SECOND[variant] if len(played) % 2 else FIRST[variant]
        resign(pages[loser])
        winner = first if loser == second else second
        for side, page in pages.items():
            wait_end(page, "resignation")
            expect_result(page, ["You won!" if side == winner else "You lost", "Resignation."])
            if variant == "jieqi":
                expect_jieqi_end(page)
                # At the end both know what was taken (Q5).
                expect_captured(page, second, "[racnbp]")
        if variant == "jieqi":
            shoot(pages[second], f"room-jieqi-end-{size}")
    finally:
        pair.close()


# ---------------------------------------------------------------------- against the AI


def ai_move(state: dict[str, Any]) -> str:
    """A capture when there is one (the first legal one in sorted order), else the first move."""
    board = make_board(state["variant"], state["fen"]) if state["variant"] != "jieqi" else None
    legal: list[str] = sorted(m for m in state["legal_moves"] if m != "pass")
    if board is not None:
        for text in legal:
            if board.piece_letter(board.parse_move(text).to_point):
                return text
    if "b3b10" in legal:
        return "b3b10"
    return legal[0]


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_the_ai_screen_shows_what_its_state_says_U6_Q5_Q7(
    chromium: Browser, server: str, variant: str, size: str
) -> None:
    context = chromium.new_context(base_url=server, viewport=SIZES[size], locale="en-US")
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(20000)
        open_page(page, "/")
        choose_notation(page, variant)
        color = FIRST[variant]
        query = f"variant={variant}&level=beginner&color={color}"
        if variant == "janggi":
            query += "&setup=HEHE"
        open_page(page, f"/play/ai?{query}")
        for step in range(3):
            wait_my_turn(page)
            state = server_state(page)
            if state["status"] != "ongoing":
                break
            expect_screen(page, expected_from_state(state, NOTATION[variant]))
            if variant == "janggi" and step == 2:
                # J6, J8: the AI may pass in reply and end the game: the question says so.
                ply = state["ply"]
                pass_with_confirmation(page, janggi_totals_text(state["fen"]))
                page.wait_for_selector(f"[data-game]:not([data-ply='{ply}'])")
                continue
            play(page, ai_move(state))
        wait_my_turn(page)
        state = server_state(page)
        expect_screen(page, expected_from_state(state, NOTATION[variant]))
        shoot(page, f"ai-{variant}-{size}")
        if state["status"] == "ongoing":
            page.click("[data-action=resign]")
            page.click("dialog[data-confirm-dialog] [data-action=confirm]")
        page.wait_for_selector("dialog[data-end-dialog]")
        page.click("dialog[data-end-dialog] >> text=Look at the board")
        state = server_state(page)
        expect_screen(page, expected_from_state(state, NOTATION[variant]))
        result = state["result"]
        title = (
            "Draw"
            if not result["winner"]
            else "You won!"
            if result["winner"] == color
            else "You lost"
        )
        expect_result(page, [title, "Resignation." if result["reason"] == "resignation" else ""])
        if variant == "jieqi":
            expect_jieqi_end(page)
            shoot(page, f"ai-jieqi-end-{size}")
    finally:
        context.close()
    assert not errors, errors


def test_one_device_game_shows_check_captures_and_korean_moves_P6_U6(web_page: Page) -> None:
    """The same scenarios on one device (P6): both sides played on one screen."""
    for variant in ("xiangqi", "janggi"):
        query = "&setup=HEHE&setup_other=HEHE" if variant == "janggi" else ""
        open_page(web_page, f"/play/local?variant={variant}{query}")
        # U6: the settings offer WXF and Chinese for xiangqi and jieqi, Korean for janggi.
        web_page.click("[data-action=settings]")
        dialog = web_page.locator("dialog[data-settings-dialog]")
        options = "e => [...e.options].map(o => o.value)"
        assert dialog.locator("#settings-notation").evaluate(options) == [
            "coordinates",
            "wxf",
            "chinese",
        ]
        assert dialog.locator("#settings-janggi-notation").evaluate(options) == [
            "coordinates",
            "korean",
        ]
        select = "#settings-janggi-notation" if variant == "janggi" else "#settings-notation"
        dialog.locator(select).select_option(NOTATION[variant])
        dialog.locator("[data-action=close]").click()
        scenario = SCENARIOS[variant]
        for text in scenario["moves"]:
            if text == "pass":
                web_page.click("[data-action=pass]")
                web_page.click("dialog[data-confirm-dialog] [data-action=confirm]")
                web_page.wait_for_selector("[data-game][data-ply='1']")
            else:
                play(web_page, text)
        expect_screen(
            web_page,
            {
                "moves": scenario_texts(variant, scenario["moves"]),
                "check": scenario["check"],
                "captured": {SECOND[variant]: scenario["captured"], FIRST[variant]: ""},
            },
        )


# ---------------------------------------------------------------------- rooms: draw offers, names


def test_the_draw_button_says_when_the_ten_half_move_rule_forbids_an_offer_R5(
    chromium: Browser, server: str
) -> None:
    pair = friends_at(chromium, server, "phone")
    try:
        pages = open_room(pair, "xiangqi")
        red, black = pages["red"], pages["black"]
        note = "[data-play] [data-control-note]"
        expect(black.locator(note)).to_have_text("You can offer a draw on your own turn.")
        expect(black.locator("[data-action=draw]")).to_be_disabled()
        red.click("[data-action=draw]")
        expect(red.locator(note)).to_have_text("Your draw offer is open.")
        # Black may accept only on its own turn (R5): the button waits, disabled.
        expect(black.locator("[data-offer] [data-action=accept-draw]")).to_be_disabled()
        move(red, "h3e3")
        move(black, "h10g8")  # rejects the offer
        red.wait_for_selector("[data-room][data-ply='2'][data-offer-by='']")
        expect(red.locator(note)).to_have_text(
            "You can offer a draw again in 8 half-moves (10 must pass between your offers)."
        )
        expect(red.locator("[data-action=draw]")).to_be_disabled()
        move(red, "b1c3")
        expect(black.locator("[data-action=draw]")).to_be_enabled()
        shoot(red, "room-draw-rule-390")
        # U8: the room follows a language switch, its own buttons included.
        black.select_option("#language-switch", "es")
        expect(black.locator("[data-action=leave]")).to_have_text("Salir de la sala")
        expect(black.locator("[data-action=draw]")).to_have_text("Ofrecer tablas")
    finally:
        pair.close()


def test_an_interrupted_room_game_reads_interrupted_not_draw_R7_E5(
    chromium: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Both players leave while the game waits; the shared budget runs out (R7)."""
    with running_server(tmp_path_factory.mktemp("play-view-fast"), **FAST_SETTINGS) as url:
        pair = friends_at(chromium, url, "desktop")
        try:
            pages = open_room(pair, "xiangqi")
            addresses = {side: page.url for side, page in pages.items()}
            game_id = room_data(pages["red"])["gameId"]
            for page in pages.values():
                page.goto("about:blank")
            # Nobody comes back: the server ends the game by itself once the budget is spent
            # (read over HTTP, so no page returns to the room meanwhile).
            request = pages["red"].request
            for _ in range(200):
                games = request.get("/api/archive").json()["games"]
                if next(g["status"] for g in games if g["id"] == game_id) != "ongoing":
                    break
                pages["red"].wait_for_timeout(100)
            else:
                raise AssertionError("the game did not end with both players gone")
            red = pages["red"]
            red.goto(addresses["red"])
            wait_end(red, "interrupted")
            expect(red.locator("[data-play] .status-line")).to_have_text(re.compile("^Interrupted"))
            expect_result(red, ["Interrupted.", "The game was interrupted."])
            expect(red.locator("[data-end] [data-result]")).not_to_contain_text("Draw")
        finally:
            pair.close()


# ---------------------------------------------------------------------- polish


def test_refusals_are_shown_in_the_players_language_U8_Z5(chromium: Browser, server: str) -> None:
    """The server's refusals read in Spanish, never as its English sentence."""
    context = chromium.new_context(base_url=server, viewport=SIZES["phone"], locale="es-ES")
    try:
        page = context.new_page()
        open_page(page, "/room")
        page.check("#room-access-password")
        page.fill("#room-new-password", "1234")
        page.click("[data-action=create-room]")
        notice = page.locator("[data-room-notice]")
        expect(notice).to_have_text(
            "Los dígitos consecutivos (como 1234 o 987) son demasiado fáciles de adivinar."
        )
        page.fill("#room-password", "nosuchroom9")
        page.click("[data-action=join-room]")
        expect(notice).to_have_text(
            re.compile(r"^Ninguna sala abierta tiene esta contraseña\. Quedan \d+ intentos\.$")
        )
        assert "room" not in (notice.text_content() or "").lower()
    finally:
        context.close()


def test_a_full_room_says_so_on_a_card_of_its_own_R1(chromium: Browser, server: str) -> None:
    pair = friends_at(chromium, server, "phone")
    third = chromium.new_context(base_url=server, viewport=SIZES["phone"], locale="en-US")
    try:
        creator, friend = pair.pages
        create_room(creator)
        link = invite_link(creator)
        friend.goto(link)
        friend.wait_for_selector("[data-room] [data-seat=friend]")
        page = third.new_page()
        open_page(page, "/")
        page.goto(link)
        card = page.locator("[data-room-full]")
        expect(card.get_by_role("heading")).to_have_text("This room is full")
        expect(card.locator("[data-action=new-room]")).to_be_visible()
        box = card.bounding_box()
        assert box
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shoot(page, "room-full-390")
    finally:
        third.close()
        pair.close()


def test_the_bikjang_option_shows_only_for_janggi_J7(web_page: Page) -> None:
    open_page(web_page, "/")
    for form, variant_field in (("ai", "variant"), ("local", "local-variant")):
        bikjang = web_page.locator(f"[data-form={form}] input[name=bikjang]")
        expect(bikjang).to_be_hidden()
        web_page.check(f"[data-form={form}] input[name='{variant_field}'][value=janggi]")
        expect(bikjang).to_be_visible()
        web_page.check(f"[data-form={form}] input[name='{variant_field}'][value=jieqi]")
        expect(bikjang).to_be_hidden()
    open_page(web_page, "/room")
    bikjang = web_page.locator("#room-bikjang")
    expect(bikjang).to_be_hidden()
    web_page.check("#room-variant-janggi")
    expect(bikjang).to_be_visible()


def test_the_board_is_one_tab_stop_its_focused_point_U4(web_page: Page) -> None:
    open_page(web_page, "/play/local?variant=xiangqi")
    web_page.focus("[data-action=settings]")
    web_page.keyboard.press("Tab")
    assert web_page.evaluate("document.activeElement.dataset.point") == "e1"
    web_page.keyboard.press("Tab")
    assert web_page.evaluate("document.activeElement.closest('[data-board]') === null")


def test_the_confirm_bar_previews_the_move_on_the_board_U4(web_page: Page) -> None:
    open_page(web_page, "/")
    web_page.evaluate("localStorage.setItem('chuhan.settings', '{\"confirmMove\": true}')")
    open_page(web_page, "/play/local?variant=xiangqi")
    web_page.click('[data-point="h3"]')
    web_page.click('[data-point="e3"]')
    expect(web_page.locator("[data-action=confirm-move]")).to_be_visible()
    assert piece_at(web_page, "e3") == "C"
    assert piece_at(web_page, "h3") is None
    expect(web_page.locator('[data-point="e3"] .mark-last')).to_have_count(1)
    assert web_page.get_attribute("[data-game]", "data-ply") == "0"
    web_page.click("[data-action=cancel-move]")
    assert piece_at(web_page, "h3") == "C"
    assert piece_at(web_page, "e3") is None
    web_page.click('[data-point="h3"]')
    web_page.click('[data-point="e3"]')
    web_page.click("[data-action=confirm-move]")
    web_page.wait_for_selector("[data-game][data-ply='1']")
    assert piece_at(web_page, "e3") == "C"


def test_new_game_keeps_the_chosen_options_P1_J3_J7(web_page: Page) -> None:
    open_page(web_page, "/")
    form = web_page.locator("[data-form=ai]")
    form.get_by_label("Janggi").check()
    form.get_by_label("Intermediate").check()
    form.get_by_label("Cho (blue)").check()
    form.get_by_label("Elephant, horse, elephant, horse (EHEH)").check()
    form.get_by_label(re.compile("^Bikjang")).check()
    form.get_by_role("button", name="Start game").click()
    wait_my_turn(web_page)
    web_page.click("[data-action=resign]")
    web_page.click("dialog[data-confirm-dialog] [data-action=confirm]")
    again = web_page.locator("dialog[data-end-dialog] [data-action=new-game]")
    href = again.get_attribute("href") or ""
    for part in (
        "variant=janggi",
        "level=intermediate",
        "color=cho",
        "setup=EHEH",
        "bikjang=points",
    ):
        assert part in href, href
    again.click()
    wait_my_turn(web_page)
    state = server_state(web_page)
    assert state["status"] == "ongoing"
    assert state["level"] == "intermediate"
    assert state["options"]["setup"]["cho"] == "EHEH"
    assert state["options"]["bikjang"] == "points"


def test_red_and_black_backs_differ_in_colour_Q2_U1(web_page: Page) -> None:
    """Face-down pieces tell their side at a glance: a red back and a black one."""
    open_page(web_page, "/play/local?variant=jieqi")
    script = """letter => {
      const shape = document.querySelector(`[data-piece="${letter}"] circle`);
      const id = shape.getAttribute("fill").match(/#([\\w-]+)/)[1];
      return [...document.getElementById(id).querySelectorAll("stop")]
        .map(stop => stop.getAttribute("stop-color"));
    }"""

    def channels(letter: str) -> list[list[int]]:
        stops = web_page.evaluate(script, letter)
        return [[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in stops]

    # Red: the red channel well above green and blue; black: dark grey, without a hue.
    for r, g, b in channels("X"):
        assert r > g + 80, (r, g, b)
        assert r > b + 80, (r, g, b)
    for rgb in channels("x"):
        assert max(rgb) < 0x60, rgb
        assert max(rgb) - min(rgb) < 0x20, rgb

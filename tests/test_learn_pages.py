"""SPEC U8 in the browser: rules pages, the piece guide and the tutorial on a real server.

A real ``chuhan serve`` (subprocess, temporary SQLite data directory) and Debian's Chromium.
The pages take every legal move from ``/api/analysis/moves``; these tests compare what the
pages show with ``chuhan.rules`` itself, solve every lesson by clicking, and save a screenshot
of each page in each language under /tmp/chuhan-learn-shots for a person to look at.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, Route

from chuhan.rules import make_board
from rooms_client import ServerProcess

pytest_plugins = ["web_fixtures"]  # its Chromium

LEARN = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "learn"
LESSONS: dict[str, list[dict[str, Any]]] = json.loads((LEARN / "lessons.json").read_text())
DIAGRAMS: dict[str, dict[str, dict[str, str]]] = json.loads((LEARN / "diagrams.json").read_text())
TEXTS = {
    code: json.loads((LEARN / "text" / f"{code}.json").read_text()) for code in ("en", "es", "pt")
}
VARIANTS = ("xiangqi", "janggi", "jieqi")
SHOTS = Path("/tmp/chuhan-learn-shots")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a ``chuhan serve`` of this checkout, on a free port."""
    with ServerProcess(tmp_path_factory.mktemp("learn-data")).running() as url:
        yield url


@pytest.fixture
def tab(chromium: Browser, server: str) -> Iterator[Page]:
    """A fresh context (empty storage) whose JavaScript errors fail the test."""
    context = chromium.new_context(base_url=server, viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.set_default_timeout(10000)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def open_learn(tab: Page, route: str, lang: str = "en") -> None:
    """Show a learn route; within the learn page in the same language, without reloading."""
    address = f"/static/learn/index.html?lang={lang}"
    if tab.url.split("#")[0].endswith(address):
        tab.evaluate("route => { location.hash = route; }", f"#/{route}")
    else:
        tab.goto(f"{address}#/{route}")
    tab.wait_for_selector(f'body[data-ready=true][data-route="#/{route}"]', state="attached")


def destinations(tab: Page, scope: str = "") -> set[str]:
    script = "es => es.map(e => e.dataset.point)"
    return set(tab.eval_on_selector_all(f"{scope} [data-point].is-destination", script))


def rules_destinations(variant: str, fen: str, origin: str) -> set[str]:
    """Where the piece on origin may go, by chuhan.rules."""
    moves = make_board(variant, fen).legal_move_texts()
    return {
        m[len(origin) :] for m in moves if m.startswith(origin) and not m[len(origin)].isdigit()
    }


def shot(tab: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_u8_every_page_renders_in_each_language_with_the_rules_diagrams(
    tab: Page, lang: str
) -> None:
    """Hub, the three rules pages, guide and a lesson; in English every diagram's marks are
    compared with chuhan.rules (the diagrams are the same data in every language)."""
    texts = TEXTS[lang]
    open_learn(tab, "", lang)
    assert tab.inner_text("h1") == texts["ui"]["hub_title"]
    assert tab.get_attribute("html", "lang") == lang
    for variant in VARIANTS:
        open_learn(tab, f"rules/{variant}", lang)
        rules = texts["rules"][variant]
        assert tab.inner_text("h1") == rules["title"]
        assert tab.locator("details.faq-entry").count() == len(rules["faq"])
        figures = len(DIAGRAMS[variant])
        tab.wait_for_function(
            f"() => document.querySelectorAll('[data-diagram][data-ready=true]').length"
            f" === {figures}"
        )
        for kind, spec in DIAGRAMS[variant].items() if lang == "en" else ():
            shown = destinations(tab, f'[data-diagram="{variant}-{kind}"]')
            assert shown == rules_destinations(variant, spec["fen"], spec["from"]), kind
        shot(tab, f"{lang}-rules-{variant}")
    open_learn(tab, "guide/janggi", lang)
    assert texts["ui"]["tool_enemy_cannon"] in tab.inner_text("[data-guide]")
    shot(tab, f"{lang}-guide-janggi")
    open_learn(tab, "tutorial/jieqi/1", lang)
    assert tab.inner_text("h1") == LESSONS["jieqi"][0]["title"][lang]
    shot(tab, f"{lang}-lesson-jieqi-1")


GUIDE_CASES = {
    "xiangqi-horse-leg": ("xiangqi", "horse", "5k3/9/9/9/4p4/2P1N4/9/9/9/3K5", "e5"),
    "xiangqi-elephant-eye": ("xiangqi", "elephant", "5k3/9/9/9/9/9/3P5/4B4/9/3K5", "e3"),
    "xiangqi-cannon-screen": ("xiangqi", "cannon", "5k3/4r4/9/4p4/9/1P2C4/9/9/9/3K5", "e5"),
    "xiangqi-flying-general": ("xiangqi", "general", "5k3/9/9/9/9/9/9/9/4K4/9", "e2"),
    "janggi-palace-chariot": ("janggi", "chariot", "4k4/9/5R3/9/9/9/9/9/9/4K4", "f8"),
    "janggi-cannon-bridge": ("janggi", "cannon", "3k5/9/9/9/1n7/1C1c1P3/9/1p7/9/4K4", "b5"),
    "janggi-cannon-palace": ("janggi", "cannon", "3k5/9/9/9/9/9/9/3C5/4A4/5K3", "d3"),
    "janggi-soldier-palace": ("janggi", "soldier", "4k4/9/3P5/9/9/9/9/9/9/4K4", "d8"),
    "jieqi-face-down-cannon": ("jieqi", "hidden", "4k4/9/9/9/7p1/9/4X4/7X1/9/4K4", "h3"),
    "jieqi-free-advisor": ("jieqi", "advisor", "4k4/9/9/9/9/4A4/9/9/9/3K5", "e5"),
}  # fmt: skip


def test_u8_the_guide_shows_exactly_the_rules_moves(tab: Page) -> None:
    """Horse leg, elephant eye, cannon screen, flying general, palace lines, janggi bridges
    and jieqi face-down pieces: the guide's marks equal chuhan.rules' legal destinations."""
    for case, (variant, kind, fen, origin) in GUIDE_CASES.items():
        open_learn(tab, f"guide/{variant}?piece={kind}&fen={quote(fen)}&at={origin}")
        tab.wait_for_selector(f'[data-guide][data-studied="{origin}"]')
        assert destinations(tab) == rules_destinations(variant, fen, origin), case


def guide_matches_rules(tab: Page, variant: str) -> set[str]:
    guide = tab.locator("[data-guide]")
    fen, origin = guide.get_attribute("data-fen"), guide.get_attribute("data-studied")
    assert fen
    assert origin
    shown = destinations(tab)
    assert shown == rules_destinations(variant, fen, origin)
    return shown


def test_u8_a_late_answer_for_the_previous_piece_never_replaces_the_chosen_one(tab: Page) -> None:
    """The chariot's moves arrive after the player chose the horse: the horse's stay shown."""
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)  # the default chariot's analysis, answered last

    tab.route("**/api/analysis/moves", hold_the_first)
    tab.goto("/static/learn/index.html?lang=en#/guide/xiangqi")
    tab.click('[data-guide-kind="horse"]')
    tab.wait_for_selector('[data-guide][data-kind="horse"]')
    horse = guide_matches_rules(tab, "xiangqi")
    held[0].continue_()
    # The page is ready once its first request (the held one) has been answered and handled.
    tab.wait_for_selector('body[data-ready=true][data-route="#/guide/xiangqi"]', state="attached")
    assert tab.get_attribute("[data-guide]", "data-kind") == "horse"
    assert guide_matches_rules(tab, "xiangqi") == horse
    assert "horse" in tab.inner_text("[data-guide-status]").lower()


def test_u8_placing_blockers_in_the_guide_changes_the_moves_as_the_rules_say(tab: Page) -> None:
    open_learn(tab, "guide/xiangqi")
    tab.click('[data-guide-kind="horse"]')
    tab.wait_for_selector('[data-guide][data-kind="horse"][data-studied="e5"]')
    before = guide_matches_rules(tab, "xiangqi")
    assert {"d7", "f7"}.isdisjoint(before), "the diagram's leg on e6 blocks both forward moves"
    tab.click('[data-tool="erase"]')
    tab.click('[data-point="e6"]')
    tab.wait_for_function(
        "() => document.querySelector('[data-point=\"d7\"]').classList.contains('is-destination')"
    )
    assert {"d7", "f7"} <= guide_matches_rules(tab, "xiangqi")
    tab.click('[data-tool="own"]')
    tab.click('[data-point="d5"]')
    tab.wait_for_function(
        "() => !document.querySelector('[data-point=\"c6\"]').classList.contains('is-destination')"
    )
    assert {"c6", "c4"}.isdisjoint(guide_matches_rules(tab, "xiangqi"))
    tab.click('[data-tool="piece"]')
    tab.click('[data-point="b1"]')
    tab.wait_for_selector('[data-guide][data-studied="b1"]')
    assert guide_matches_rules(tab, "xiangqi") == {"a3", "c3", "d2"}

    open_learn(tab, "guide/janggi")
    tab.click('[data-guide-kind="cannon"]')
    tab.wait_for_selector('[data-guide][data-kind="cannon"][data-studied="b5"]')
    tab.click('[data-tool="enemy_cannon"]')
    tab.click('[data-point="b6"]')  # the bridge over b6 was a soldier: now nothing to jump
    tab.wait_for_function('() => document.querySelector(\'[data-point="b6"] [data-piece="c"]\')')
    upward = {p for p in guide_matches_rules(tab, "janggi") if int(p[1:]) > 5}
    assert not upward, "a cannon neither jumps nor captures a cannon"


LESSON_CASES = [
    pytest.param(variant, number, lesson, id=lesson["id"])
    for variant in VARIANTS
    for number, lesson in enumerate(LESSONS[variant], start=1)
]


def play(tab: Page, move: str) -> None:
    if move == "pass":
        tab.click('[data-action="pass"]:not([disabled])')
        return
    origin, target = (move[:2], move[2:]) if not move[2].isdigit() else (move[:3], move[3:])
    tab.click(f'[data-point="{origin}"]')
    tab.wait_for_selector(f'[data-point="{target}"].is-destination')
    tab.click(f'[data-point="{target}"]')


def test_u8_every_lesson_is_solved_by_its_answer_and_progress_is_remembered(tab: Page) -> None:
    for variant, number, lesson in [
        cast(tuple[str, int, dict[str, Any]], p.values) for p in LESSON_CASES
    ]:
        open_learn(tab, f"tutorial/{variant}/{number}")
        play(tab, lesson["solution"])
        status = tab.wait_for_selector("[data-lesson-status=solved], [data-lesson-status=wrong]")
        assert status is not None
        assert status.get_attribute("data-lesson-status") == "solved", lesson["id"]
        assert lesson["success"]["en"] in status.inner_text()
    tab.reload()
    for variant in VARIANTS:
        open_learn(tab, f"tutorial/{variant}")
        total = len(LESSONS[variant])
        assert tab.get_attribute("[data-progress]", "data-progress") == f"{total}/{total}"
        assert tab.locator('[data-lesson][data-solved="true"]').count() == total
    open_learn(tab, "")
    progress = TEXTS["en"]["ui"]["progress"].format(done=9, total=9)
    assert tab.inner_text('[data-hub-progress="xiangqi"]') == progress


def test_u8_u4_a_lesson_can_be_solved_with_the_keyboard(tab: Page) -> None:
    open_learn(tab, "tutorial/xiangqi/1")  # the chariot on b2 takes the horse on b8
    tab.focus('[data-point="b2"]')
    tab.keyboard.press("Enter")
    tab.wait_for_selector('[data-point="b8"].is-destination')
    for _ in range(6):
        tab.keyboard.press("ArrowUp")
    tab.keyboard.press("Enter")
    tab.wait_for_selector("[data-lesson-status=solved]")
    assert tab.get_attribute('[data-point="b8"] [data-piece]', "data-piece") == "R"


def test_u8_a_wrong_answer_is_refused_by_the_rules_and_can_be_retried(tab: Page) -> None:
    open_learn(tab, "tutorial/xiangqi/8")  # two chariots: a9a10 checks, but d9... is free
    play(tab, "a9a10")
    tab.wait_for_selector("[data-lesson-status=wrong]")
    assert tab.inner_text("[data-lesson-status]") == TEXTS["en"]["ui"]["wrong_not_mate"]
    tab.click('[data-action="retry"]')
    tab.wait_for_selector('[data-point="a9"] [data-piece="R"]')
    play(tab, "b8b10")
    tab.wait_for_selector("[data-lesson-status=solved]")
    open_learn(tab, "tutorial/xiangqi/6")  # check: stepping aside is legal but not the task
    play(tab, "e1d1")
    tab.wait_for_selector("[data-lesson-status=wrong]")
    assert tab.inner_text("[data-lesson-status]") == TEXTS["en"]["ui"]["wrong_wrong_point"]
    open_learn(tab, "tutorial/xiangqi")
    assert tab.get_attribute('[data-lesson="xiangqi-check"]', "data-solved") == "false"
    assert tab.get_attribute('[data-lesson="xiangqi-two-chariots"]', "data-solved") == "true"


def test_u8_a_blocked_move_is_not_offered_in_a_lesson(tab: Page) -> None:
    """The horse's leg: the lesson board offers only the rules' destinations."""
    open_learn(tab, "tutorial/xiangqi/2")
    tab.click('[data-point="c3"]')
    tab.wait_for_selector('[data-point="e4"].is-destination')
    lesson = LESSONS["xiangqi"][1]
    assert destinations(tab) == rules_destinations("xiangqi", lesson["fen"], "c3")
    assert "d5" not in destinations(tab)


def test_u8_learn_pages_are_reachable_from_home_and_from_the_game_screen(tab: Page) -> None:
    tab.goto("/")
    tab.wait_for_selector("body[data-ready=true]")
    tab.click('[data-action="learn"]')
    tab.wait_for_selector("body[data-ready=true] [data-variant-card]")
    assert tab.locator("[data-variant-card]").count() == 3
    tab.click('[data-link="rules-janggi"]')
    tab.wait_for_selector('[data-rules="janggi"]')
    tab.goto("/play/local?variant=jieqi")
    link = tab.wait_for_selector('[data-action="rules"]')
    assert link is not None
    assert link.get_attribute("href") == "/static/learn/index.html#/rules/jieqi"


def test_u8_the_language_chosen_on_a_learn_page_is_kept_and_shared_with_the_app(tab: Page) -> None:
    open_learn(tab, "rules/xiangqi")
    assert tab.inner_text("h1") == TEXTS["en"]["rules"]["xiangqi"]["title"]
    tab.select_option("#learn-language", "pt")
    tab.wait_for_function(
        "title => document.querySelector('h1')?.textContent === title",
        arg=TEXTS["pt"]["rules"]["xiangqi"]["title"],
    )
    tab.goto("/static/learn/index.html#/")
    tab.wait_for_selector("body[data-ready=true]")
    assert tab.inner_text("h1") == TEXTS["pt"]["ui"]["hub_title"]
    saved = tab.evaluate("JSON.parse(localStorage.getItem('chuhan.settings')).language")
    assert saved == "pt", "the learn pages and the game screens share one language setting"


def test_u9_board_points_have_names_in_the_page_language(tab: Page) -> None:
    open_learn(tab, "tutorial/xiangqi/4", "es")  # the cannon lesson: red cannon on b3
    assert tab.get_attribute('[data-point="b3"]', "aria-label") == "b3, cañón de las rojas"
    open_learn(tab, "tutorial/janggi/1", "pt")  # Cho chariot on d8
    assert tab.get_attribute('[data-point="d8"]', "aria-label") == "d8, carro de Cho"

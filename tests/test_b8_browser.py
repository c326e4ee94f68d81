"""A word across the board, the leaderboard and the rating history in real Chromium (SPEC
B8) against a real ``chuhan serve``, at 390 px (Spanish) and 1366 px (Portuguese).

- Two players in two browser contexts, each in their own language: a quick message pressed
  in one page shows in the other in that page's language; the mute hides the other's words
  (which still arrive) and is remembered by the browser.
- The leaderboard, reached from the home page, per variant, with the player's own line
  marked; My games draws the player's rating history as a chart with its words and table.

Screenshots go to /tmp (never committed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from chuhan.server.db.ratings import RatingStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import ratings
from chuhan.server.players.leaderboard import MIN_GAMES
from chuhan.server.records import utcnow
from chuhan.server.rules_config import RatingRules
from rooms_client import running_server
from test_ratings import finished_game
from web_fixtures import chromium, create_room, invite_link, open_page  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

SHOTS = Path("/tmp/chuhan-b8")
SCREENS: dict[str, tuple[ViewportSize, str, str]] = {
    "phone": ({"width": 390, "height": 844}, "es-ES", "pt-BR"),
    "desktop": ({"width": 1366, "height": 800}, "pt-BR", "es-ES"),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    """A server of its own, and its database, where the tests write ratings as the rating
    store does (a rating is established only after a dozen paired games)."""
    data = tmp_path_factory.mktemp("b8")
    SHOTS.mkdir(exist_ok=True)
    with running_server(data) as url:
        store = Store(f"sqlite:///{data}/chuhan.sqlite3")
        yield url, store
        store.dispose()


def new_page(browser: Browser, url: str, viewport: ViewportSize, locale: str) -> Page:
    context = browser.new_context(base_url=url, viewport=viewport, locale=locale)
    page = context.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def close(*pages: Page) -> None:
    for page in pages:
        page.context.close()
    problems = [error for page in pages for error in page.errors]  # type: ignore[attr-defined]
    assert not problems, f"JavaScript errors: {problems}"


def lines(page: Page) -> list[str]:
    said: list[str] = page.eval_on_selector_all(
        "[data-quick-line]", "es => es.map(e => e.textContent)"
    )
    return said


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_quick_message_shows_in_the_readers_language_and_the_mute_hides_it_B8(
    chromium: Browser,  # noqa: F811
    site: tuple[str, Store],
    screen: str,
) -> None:
    viewport, creator_locale, friend_locale = SCREENS[screen]
    creator = new_page(chromium, site[0], viewport, creator_locale)
    friend = new_page(chromium, site[0], viewport, friend_locale)
    create_room(creator)
    assert creator.is_hidden("[data-quick]")  # nobody to talk to yet
    friend.goto(invite_link(creator))
    friend.wait_for_selector("[data-quick]:not([hidden])")
    creator.wait_for_selector("[data-quick]:not([hidden])")
    spanish, portuguese = (creator, friend) if creator_locale == "es-ES" else (friend, creator)
    # Five fixed words; each page offers them in its own language.
    assert spanish.inner_text("[data-quick-say=good_luck]") == "¡Buena suerte!"
    assert portuguese.inner_text("[data-quick-say=good_luck]") == "Boa sorte!"

    spanish.click("[data-quick-say=good_luck]")
    portuguese.wait_for_selector("[data-quick-line=them][data-phrase=good_luck]")
    spanish.wait_for_selector("[data-quick-line=you]")
    assert lines(portuguese)[-1].endswith(": Boa sorte!")
    assert lines(spanish) == ["Tú: ¡Buena suerte!"]
    portuguese.click("[data-quick-say=well_played]")
    spanish.wait_for_selector("[data-quick-line=them][data-phrase=well_played]")
    assert lines(spanish)[-1].endswith(": ¡Bien jugado!")
    spanish.screenshot(path=str(SHOTS / f"quick-{screen}-es.png"), full_page=True)
    portuguese.screenshot(path=str(SHOTS / f"quick-{screen}-pt.png"), full_page=True)

    # The Portuguese reader mutes: the next word arrives (counted) but is neither shown…
    portuguese.check("[data-action=quick-mute]")
    spanish.click("[data-quick-say=oops]")
    portuguese.wait_for_selector("[data-quick][data-received='2']")
    assert not portuguese.query_selector("[data-quick-line=them]")
    assert lines(portuguese) == ["Você: Bem jogado!"]
    # …nor forgotten by the browser: after a reload the mute still holds.
    portuguese.reload()
    portuguese.wait_for_selector("[data-quick]:not([hidden])")
    assert portuguese.is_checked("[data-action=quick-mute]")
    spanish.click("[data-quick-say=thanks]")
    portuguese.wait_for_selector("[data-quick][data-received='1']")
    assert not portuguese.query_selector("[data-quick-line]")
    portuguese.uncheck("[data-action=quick-mute]")
    spanish.click("[data-quick-say=good_game]")
    portuguese.wait_for_selector("[data-quick-line=them][data-phrase=good_game]")
    assert lines(portuguese)[-1].endswith(": Boa partida!")
    close(creator, friend)


def rated_player(page: Page, store: Store, browser: Browser, url: str) -> tuple[str, str]:
    """The page's player (id, name) after three rated xiangqi games against a stranger (two
    won, one lost) and an established janggi rating."""
    me = page.request.get("/api/me").json()
    other = browser.new_context(base_url=url)
    stranger = other.request.get("/api/me").json()["id"]
    other.close()
    rated = RatingStore(store, RatingRules(ai_games_first=0, network_days=0))
    for winner in ("red", "red", "black"):
        assert rated.rate(finished_game(store, me["id"], stranger, winner=winner).id)
    write_rating(store, me["id"], "janggi", 1712, 80, MIN_GAMES + 2)
    return me["id"], me["name"]


def write_rating(store: Store, player_id: str, variant: str, rating: float, rd: float, games: int):
    with store.engine.begin() as conn:
        conn.execute(
            ratings.insert().values(
                player_id=player_id,
                variant=variant,
                rating=rating,
                deviation=rd,
                volatility=0.06,
                games=games,
                updated_at=utcnow(),
            )
        )


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_leaderboard_from_home_and_the_rating_chart_in_my_games_B8(
    chromium: Browser,  # noqa: F811
    site: tuple[str, Store],
    screen: str,
) -> None:
    url, store = site
    viewport, locale, _ = SCREENS[screen]
    page = new_page(chromium, url, viewport, locale)
    open_page(page, "/")
    _, name = rated_player(page, store, chromium, url)
    others = []
    for rating in (1800, 1650):  # two strangers above and below on the janggi board
        other = chromium.new_context(base_url=url)
        stranger = other.request.get("/api/me").json()
        others.append(stranger["name"])
        write_rating(store, stranger["id"], "janggi", rating, 70, 30)
        other.close()

    page.click("[data-action=leaderboard]")
    page.wait_for_selector("[data-leaderboard][data-loaded=xiangqi]")
    page.click("[data-leaderboard-variant=janggi]")
    page.wait_for_selector("[data-leaderboard][data-loaded=janggi]")
    rows = page.eval_on_selector_all(
        "[data-leaderboard-table] tbody tr", "rs => rs.map(r => r.innerText)"
    )
    names = [row.split("\t")[1] for row in rows]
    mine = names.index(next(n for n in names if n.startswith(name)))
    assert names.index(others[0]) < mine < names.index(others[1])  # by rating
    assert page.get_attribute(f"[data-leader='{mine + 1}']", "class") == "mine"
    words = {"es-ES": ("Clasificación", "Partidas"), "pt-BR": ("Classificação", "Partidas")}
    heading, games = words[locale]
    assert page.inner_text("#leaderboard-heading") == heading
    assert games in page.inner_text("[data-leaderboard-table] thead")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"]  # nothing wider than the screen
    page.screenshot(path=str(SHOTS / f"leaderboard-{screen}.png"), full_page=True)

    open_page(page, "/games")
    page.wait_for_selector("[data-rating-history][data-loaded=true]")
    chart = page.locator("[data-rating-chart=xiangqi]")
    label = chart.get_attribute("aria-label") or ""
    points = page.request.get("/api/ratings/history").json()["variants"]["xiangqi"]
    assert len(points) == 3
    assert "1500" in label
    assert str(points[-1]["rating"]) in label
    line = chart.locator("polyline").get_attribute("points")
    assert line is not None
    assert line.count(",") == 4  # 1500 + 3 games
    assert not page.query_selector("[data-rating-chart=janggi]")  # no rated janggi game
    page.click("[data-rating-history] summary")
    table = page.eval_on_selector_all(
        "[data-history-table=xiangqi] tbody tr", "rs => rs.map(r => r.innerText)"
    )
    assert len(table) == 3
    assert str(points[-1]["rating"]) in table[0]  # newest first
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] <= viewport["width"]
    assert box["height"] > 40
    page.locator("[data-rating-history]").screenshot(path=str(SHOTS / f"history-{screen}.png"))
    close(page)

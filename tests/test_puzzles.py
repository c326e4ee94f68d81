"""Puzzles over HTTP (SPEC B9, Z1, Z2, Z8): solve, fail, hint, show the solution; ratings
that move and cannot be farmed; the puzzle of the day; never the same puzzle twice in a row;
the line never sent before its move is due; jieqi's face-down pieces stay face down. A real
app (lifespan, migrations, SQLite) on the hand-made puzzles of ``tests/data/puzzles`` (each a
mate the rules confirm: ``test_the_fixture_puzzles_are_mates_by_the_rules``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import make_board
from chuhan.server.db.puzzle_store import PuzzleStore
from chuhan.server.puzzles.catalog import read_puzzles
from chuhan.server.puzzles.solving import board_after
from chuhan.server.rules_config import PuzzleSettings
from test_server_support import server

pytestmark = pytest.mark.timeout(120)
FIXTURES = Path(__file__).parent / "data" / "puzzles"
BY_ID = {p.id: p for p in read_puzzles(FIXTURES)}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module's tests on the hand-made puzzles (each test a new player)."""
    folder = tmp_path_factory.mktemp("puzzles-api")
    with server(folder, puzzles=PuzzleSettings(data_dir=FIXTURES)) as (client, _, _):
        yield client


@pytest.fixture
def client(app: TestClient) -> TestClient:
    """The app as a new player (a first page read gives the identity, S1)."""
    app.cookies.clear()
    app.get("/api/me").raise_for_status()
    return app


def begin(client: TestClient, variant: str = "xiangqi", **body: Any) -> dict[str, Any]:
    answer = client.post("/api/puzzles/attempts", json={"variant": variant, **body})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def move(client: TestClient, attempt: dict[str, Any], text: str) -> dict[str, Any]:
    ply = len(attempt["position"]["moves"])
    answer = client.post(
        f"/api/puzzles/attempts/{attempt['id']}/moves", json={"ply": ply, "move": text}
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def from_point(move: str) -> str:
    """``c10c9`` → ``c10``."""
    found = re.match(r"[a-i]\d+", move)
    assert found, move
    return found[0]


def line_of(attempt: dict[str, Any]) -> list[str]:
    return BY_ID[attempt["puzzle"]["id"]].moves


def solve(client: TestClient, attempt: dict[str, Any]) -> dict[str, Any]:
    line = line_of(attempt)
    for index in range(0, len(line), 2):
        attempt = move(client, attempt, line[index])
    return attempt


def test_the_fixture_puzzles_are_mates_by_the_rules() -> None:
    """Each hand-made puzzle: the solver to move, every line move legal, the last one mates."""
    assert sorted({p.variant for p in BY_ID.values()}) == ["janggi", "jieqi", "xiangqi"]
    for puzzle in BY_ID.values():
        board = board_after(puzzle, puzzle.moves)
        outcome = board.outcome()
        assert outcome is not None, puzzle.id
        assert outcome.winner == 0, puzzle.id
        assert make_board(puzzle.variant, puzzle.fen).turn == 0


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_solving_a_puzzle_plays_the_replies_and_raises_the_rating_B9(
    client: TestClient, variant: str
) -> None:
    attempt = begin(client, variant)
    assert attempt["status"] == "playing"
    assert attempt["solver"] in ("red", "cho")
    assert attempt["themes"] is None
    assert attempt["solution"] is None  # hidden until solved
    line = line_of(attempt)
    for index in range(0, len(line), 2):
        attempt = move(client, attempt, line[index])
        if index + 1 < len(line):
            assert attempt["verdict"] == "right"
            assert attempt["reply"] == line[index + 1]  # the stored reply, played back
            assert attempt["position"]["moves"] == line[: index + 2]
            assert attempt["position"]["legal_moves"], "the solver is to move again"
    assert attempt["verdict"] == "solved"
    assert attempt["status"] == "solved"
    assert attempt["themes"]
    assert attempt["solution"]["moves"] == line
    assert attempt["change"] > 0
    assert attempt["rating"]["rating"] > 1500
    assert attempt["rating"]["streak"] == 1
    mine = client.get("/api/puzzles/me").json()["ratings"][variant]
    assert mine["rating"] == attempt["rating"]["rating"]
    assert mine["attempts"] == 1


def test_a_wrong_move_fails_the_puzzle_shows_the_line_and_lowers_the_rating_B9(
    client: TestClient,
) -> None:
    attempt = begin(client, "janggi")
    line = line_of(attempt)
    legal = attempt["position"]["legal_moves"]
    wrong = next(m for m in legal if m != line[0] and not _mates(attempt, m))
    failed = move(client, attempt, wrong)
    assert failed["verdict"] == "wrong"
    assert failed["status"] == "failed"
    assert failed["solution"]["moves"] == line
    assert failed["themes"]
    assert failed["change"] < 0
    assert failed["rating"]["streak"] == 0
    again = client.post(
        f"/api/puzzles/attempts/{attempt['id']}/moves", json={"ply": 0, "move": line[0]}
    )
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "puzzle_over"


def _mates(attempt: dict[str, Any], text: str) -> bool:
    puzzle = BY_ID[attempt["puzzle"]["id"]]
    board = board_after(puzzle, attempt["position"]["moves"])
    board.push(text)
    outcome = board.outcome()
    return outcome is not None and outcome.winner == 0


def test_an_illegal_move_is_refused_and_changes_nothing_Z1(client: TestClient) -> None:
    attempt = begin(client)
    answer = client.post(
        f"/api/puzzles/attempts/{attempt['id']}/moves", json={"ply": 0, "move": "a1a9"}
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_request"
    stale = client.post(
        f"/api/puzzles/attempts/{attempt['id']}/moves", json={"ply": 3, "move": line_of(attempt)[0]}
    )
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "stale"
    now = client.get(f"/api/puzzles/attempts/{attempt['id']}").json()
    assert now["status"] == "playing"
    assert now["position"]["moves"] == []


def test_any_mating_move_solves_where_several_mate_B9(client: TestClient) -> None:
    """The one-mover's stored answer is e2d2; e2e9 mates too and is accepted."""
    puzzle = next(p for p in BY_ID.values() if p.moves == ["e2d2"])
    attempt = begin(client, "xiangqi", puzzle=puzzle.id)
    solved = move(client, attempt, "e2e9")
    assert solved["verdict"] == "solved"
    assert solved["status"] == "solved"


def test_a_hint_shows_the_piece_and_counts_as_assisted_B9(client: TestClient) -> None:
    attempt = begin(client, "xiangqi")
    line = line_of(attempt)
    hinted = client.post(f"/api/puzzles/attempts/{attempt['id']}/hint").json()
    assert hinted["hint"] == from_point(line[0])
    assert hinted["hinted"] is True
    assert hinted["solution"] is None  # a hint is the piece, not the move
    solved = solve(client, hinted)
    assert solved["status"] == "solved"
    assert solved["hinted"] is True
    assert solved["rating"]["streak"] == 0  # an assisted solve does not grow the streak
    clean = solve(client, begin(client, "xiangqi"))
    assert clean["change"] > 0
    assert clean["rating"]["streak"] == 1


def test_showing_the_solution_is_a_loss_and_cannot_be_farmed_Z8(client: TestClient) -> None:
    first = begin(client, "jieqi")
    shown = client.post(f"/api/puzzles/attempts/{first['id']}/solution").json()
    assert shown["status"] == "failed"
    assert shown["shown"] is True
    assert shown["solution"]["moves"] == line_of(first)
    assert shown["change"] < 0
    low = shown["rating"]["rating"]
    # Coming back to the same puzzle with its line known: solved, but not rated again.
    again = begin(client, "jieqi", puzzle=first["puzzle"]["id"])
    assert again["rated"] is False
    solved = solve(client, again)
    assert solved["status"] == "solved"
    assert solved["change"] is None
    assert solved["rating"]["rating"] == low


def test_the_next_puzzle_is_never_the_same_twice_in_a_row_B9(client: TestClient) -> None:
    """Two puzzles per variant: asked again and again, the puzzle given always changes (each
    attempt left unsolved or failed)."""
    given = [begin(client, "xiangqi")["puzzle"]["id"] for _ in range(6)]
    assert all(a != b for a, b in pairwise(given)), given
    assert set(given) == {p.id for p in BY_ID.values() if p.variant == "xiangqi"}


def test_the_puzzle_of_the_day_is_the_same_for_everyone_B9(client: TestClient) -> None:
    first = client.get("/api/puzzles/daily").json()
    client.cookies.clear()
    client.get("/api/me")
    second = client.get("/api/puzzles/daily").json()
    assert first == second
    assert set(first["puzzles"]) == {"xiangqi", "janggi", "jieqi"}
    for variant, shown in first["puzzles"].items():
        assert shown["id"].startswith(variant)
        assert "moves" not in shown
        attempt = begin(client, variant, daily=True)
        assert attempt["puzzle"]["id"] == shown["id"]
        assert attempt["daily"] is True


def _sent(answer: dict[str, Any]) -> str:
    """An answer as text, without the legal moves (which list every move, the line's too)."""
    position = {k: v for k, v in answer["position"].items() if k != "legal_moves"}
    return json.dumps({**answer, "position": position})


def test_the_line_is_never_sent_before_its_move_is_due_B9_Z1(client: TestClient) -> None:
    """Every answer before the end holds the moves played and the one reply due, never a
    later move of the line (nor the hint's more than its point)."""
    for variant in ("xiangqi", "janggi", "jieqi"):
        puzzle = next(p for p in BY_ID.values() if p.variant == variant and len(p.moves) == 3)
        attempt = begin(client, variant, puzzle=puzzle.id)
        seen = [_sent(attempt)]
        hinted = client.post(f"/api/puzzles/attempts/{attempt['id']}/hint").json()
        assert hinted["hint"] == from_point(puzzle.moves[0])
        seen.append(_sent({k: v for k, v in hinted.items() if k != "hint"}))
        after_first = move(client, hinted, puzzle.moves[0])
        assert after_first["status"] == "playing"
        seen.append(_sent(after_first))
        for text in seen[:2]:
            assert puzzle.moves[0] not in text, variant
            assert puzzle.moves[2] not in text, variant
        assert puzzle.moves[2] not in seen[2], variant
        assert "mateIn2" not in "".join(seen)


def test_jieqi_face_down_pieces_stay_face_down_Z2(client: TestClient) -> None:
    attempt = begin(client, "jieqi")
    text = json.dumps(attempt)
    assert "arrangement" not in text
    assert "hidden" not in text
    assert "salt" not in text
    fen = attempt["position"]["fen"]
    assert "x" in fen.split()[0]
    assert "X" in fen.split()[0]
    solved = solve(client, attempt)
    assert "arrangement" not in json.dumps(solved)
    assert "hidden" not in json.dumps(solved)


def test_another_players_attempt_is_not_found_and_unsafe_requests_need_a_player_Z6(
    client: TestClient,
) -> None:
    attempt = begin(client)
    client.cookies.clear()
    client.get("/api/me")
    answer = client.post(f"/api/puzzles/attempts/{attempt['id']}/hint")
    assert answer.status_code == 404
    client.cookies.clear()
    nobody = client.post("/api/puzzles/attempts", json={"variant": "xiangqi"})
    assert nobody.status_code == 401
    assert nobody.json()["error"]["code"] == "no_player"


def test_puzzle_moves_are_rate_limited_Z5(tmp_path: Path) -> None:
    tight = PuzzleSettings(data_dir=FIXTURES, puzzles_per_player=2, actions_per_player=3)
    with server(tmp_path, puzzles=tight) as (client, _, _):
        begin(client)
        begin(client)
        third = client.post("/api/puzzles/attempts", json={"variant": "xiangqi"})
        assert third.status_code == 429
        assert third.json()["error"]["code"] == "too_many_puzzles"
        assert int(third.headers["retry-after"]) >= 1


def test_the_history_lists_the_attempts_newest_first_B9(client: TestClient) -> None:
    solved = solve(client, begin(client, "xiangqi"))
    shown = client.post(f"/api/puzzles/attempts/{begin(client, 'janggi')['id']}/solution")
    assert shown.status_code == 200
    history = client.get("/api/puzzles/history").json()["attempts"]
    assert [a["variant"] for a in history] == ["janggi", "xiangqi"]
    assert history[0]["status"] == "failed"
    assert history[0]["shown"] is True
    assert history[1]["status"] == "solved"
    assert history[1]["puzzle"] == solved["puzzle"]["id"]
    only = client.get("/api/puzzles/history", params={"variant": "xiangqi"}).json()
    assert [a["variant"] for a in only["attempts"]] == ["xiangqi"]


def test_analyse_opens_a_solved_xiangqi_puzzle_in_the_review_B9(client: TestClient) -> None:
    attempt = begin(client, "xiangqi")
    early = client.post(f"/api/puzzles/attempts/{attempt['id']}/analysis")
    assert early.status_code == 409
    solve(client, attempt)
    answer = client.post(f"/api/puzzles/attempts/{attempt['id']}/analysis")
    assert answer.status_code == 201, answer.text
    game = client.get(f"/api/archive/games/{answer.json()['game']}").json()
    assert game["start_fen"].split()[0] == BY_ID[attempt["puzzle"]["id"]].fen.split()[0]
    assert game["moves"] == line_of(attempt)


def test_loading_again_adds_only_new_puzzles_and_keeps_their_ratings_B9(tmp_path: Path) -> None:
    """The data files are loaded at every start (any instance): a puzzle already stored keeps
    the rating its attempts gave it; a line that does not fit the format is left out."""
    folder = tmp_path / "puzzles"
    folder.mkdir()
    lines = (FIXTURES / "xiangqi.jsonl").read_text().splitlines()
    (folder / "xiangqi.jsonl").write_text(lines[0] + "\n")
    with server(tmp_path, puzzles=PuzzleSettings(data_dir=folder)) as (client, _, _):
        solved = solve(client, begin(client))
        cookies = dict(client.cookies)
    moved = solved["puzzle"]["rating"]
    assert solved["change"] > 0  # the puzzle lost to the solver: its rating went down
    (folder / "xiangqi.jsonl").write_text(lines[0] + "\n" + lines[1] + "\n" + '{"id": 1}\n')
    with server(tmp_path, puzzles=PuzzleSettings(data_dir=folder)) as (client, _, store):
        client.cookies.update(cookies)
        again = client.get(f"/api/puzzles/attempts/{solved['id']}").json()
        assert again["puzzle"]["rating"] == moved < json.loads(lines[0])["rating"]
        assert PuzzleStore(store).counts() == {"xiangqi": 2}


def test_a_face_down_reply_is_known_only_once_it_is_played_Q3_Z2(tmp_path: Path) -> None:
    """A line whose reply turns a face-down black soldier over: it is a chariot (the stored
    game says so). No answer before the reply names it; the one with the reply shows it."""
    fen = "2R6/4k4/4a4/3p4x/7a1/9/6X2/9/9/R4K3 w - - 0 1"
    moves = ["a1a2", "i7i6", "a2a3"]
    puzzle = {
        "id": "jieqi-revealtest",
        "variant": "jieqi",
        "fen": fen,
        "moves": moves,
        "themes": ["material"],
        "rating": 1500,
        "source": {"kind": "chuhan-selfplay", "game": "test/1", "ply": 40},
        "view": make_board("jieqi", fen, seed=3).view("red"),  # type: ignore[attr-defined]
        "reveals": [None, "r", None],
    }
    folder = tmp_path / "puzzles"
    folder.mkdir()
    (folder / "jieqi.jsonl").write_text(json.dumps(puzzle) + "\n")
    with server(tmp_path, puzzles=PuzzleSettings(data_dir=folder)) as (client, _, _):
        attempt = begin(client, "jieqi")
        hinted = client.post(f"/api/puzzles/attempts/{attempt['id']}/hint").json()
        for answer in (attempt, hinted):
            placement = answer["position"]["fen"].split()[0]
            assert "r" not in placement
            assert "x" in placement  # still face down
            assert "reveals" not in json.dumps(answer)
            assert "(R)" not in json.dumps(answer)
        replied = move(client, hinted, "a1a2")
        assert replied["reply"] == "i7i6"
        rank_six = replied["position"]["fen"].split()[0].split("/")[10 - 6]
        cells = "".join("." * int(c) if c.isdigit() else c for c in rank_six)
        assert cells[8] == "r"  # i6: the soldier's point moved to, face up as a chariot
        assert replied["position"]["notation"]["wxf"][1].endswith("(R)")


def test_a_puzzle_rating_gains_at_most_so_much_an_hour_Z8(tmp_path: Path) -> None:
    """A newcomer's first solves would lift the rating by 150 to 250 points each; with a
    bound of 200 an hour the rating stops at 1700 whatever is solved next."""
    bounded = PuzzleSettings(data_dir=FIXTURES, gain_per_hour=200)
    with server(tmp_path, puzzles=bounded) as (client, _, _):
        first = solve(client, begin(client, "janggi"))
        second = solve(client, begin(client, "janggi"))
        assert first["status"] == second["status"] == "solved"
        assert second["rating"]["rating"] == 1700
        assert first["change"] + second["change"] == 200
    with server(tmp_path / "free", puzzles=PuzzleSettings(data_dir=FIXTURES)) as (client, _, _):
        solve(client, begin(client, "janggi"))
        unbounded = solve(client, begin(client, "janggi"))
        assert unbounded["rating"]["rating"] > 1700  # the same two solves, no bound reached


def test_a_sample_of_the_shipped_puzzles_is_served_and_solved_B9(tmp_path: Path) -> None:
    """The shipped data (``puzzles/data``, the generator's) loads into the table whole at the
    first puzzle request (an app that serves none never pays for it), and
    every fifth puzzle of each variant (at most five) is solved through the API by its line:
    each stored reply comes back in turn, and the end shows the themes."""
    shipped = read_puzzles(PuzzleSettings().data_dir)
    with server(tmp_path) as (client, _, store):
        assert PuzzleStore(store).counts() == {}  # loaded by the first puzzle request only
        assert client.get("/api/puzzles/daily").status_code == 200
        counts = PuzzleStore(store).counts()
        for variant in ("xiangqi", "janggi", "jieqi"):
            mine = sorted((p for p in shipped if p.variant == variant), key=lambda p: p.id)
            assert mine, variant
            assert counts[variant] == len(mine), variant
            for puzzle in mine[::5][:5]:
                attempt = begin(client, variant, puzzle=puzzle.id)
                assert attempt["solver"] == attempt["position"]["turn"]
                for index in range(0, len(puzzle.moves), 2):
                    attempt = move(client, attempt, puzzle.moves[index])
                    if index + 1 < len(puzzle.moves):
                        assert attempt["reply"] == puzzle.moves[index + 1], puzzle.id
                assert attempt["status"] == "solved"
                assert attempt["themes"] == puzzle.themes


def nearest(puzzles: PuzzleStore, *query: Any) -> str | None:
    found = puzzles.nearest(*query)
    return found.id if found else None


def test_the_next_puzzle_is_the_unseen_one_nearest_the_rating_B9(tmp_path: Path) -> None:
    """One indexed query: the nearest puzzle rated at or above the target, else below it;
    tried puzzles last; never the one to avoid."""
    with server(tmp_path, puzzles=PuzzleSettings(data_dir=FIXTURES)) as (client, _, store):
        client.get("/api/puzzles/daily")  # loads the puzzles
        puzzles = PuzzleStore(store)
        low, high = sorted(
            (p for p in BY_ID.values() if p.variant == "janggi"), key=lambda p: p.rating.rating
        )
        assert nearest(puzzles, "p_nobody", "janggi", 1200, None) == low.id
        assert nearest(puzzles, "p_nobody", "janggi", 1300, None) == high.id
        assert nearest(puzzles, "p_nobody", "janggi", 2000, None) == high.id
        assert nearest(puzzles, "p_nobody", "janggi", 1200, low.id) == high.id
        player = client.get("/api/me").json()["id"]
        begin(client, "janggi", puzzle=low.id)
        assert nearest(puzzles, player, "janggi", 1200, None) == high.id

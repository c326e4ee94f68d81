"""After the game over HTTP: records (N4), imports, share links and engine analysis,
for the game's players, strangers (404) and share-link holders, never showing a jieqi secret
before the end (Z2, Q5, Q7).

Every test runs a real app (lifespan, migrations, SQLite); analysis positions run the real
engine (a small node budget) in the test's worker threads.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import JieqiBoard, make_board, verify_commitment
from chuhan.rules.record import read_record
from chuhan.server.ai.pool import AIJob, run_job
from chuhan.server.ai.shared_pool import pool_for
from chuhan.server.db.store import Store
from chuhan.server.records import GameRecord, GameStatus, utcnow
from chuhan.server.settings import Settings
from test_analysis import uci_program
from test_record import PLAYED_ON
from test_server_support import ScriptedAI, create, game_socket, server

pytestmark = pytest.mark.timeout(120)
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]


class AnalysingAI(ScriptedAI):
    """The scripted AI for moves; the real engine (or ``analysis_engine``, a UCI program) for
    analysis positions."""

    analysis_engine: str | None = None

    def __call__(self, job: AIJob) -> Any:
        if job.kind == "analysis":
            self.jobs.append(job)
            return run_job(job, self.analysis_engine)
        return super().__call__(job)


def _play_local(client: TestClient, moves: list[str], variant: str = "xiangqi") -> dict[str, Any]:
    game = create(client, kind="local", variant=variant)
    state = game
    for ply, move in enumerate(moves):
        answer = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
        assert answer.status_code == 200, answer.text
        state = answer.json()["state"]
    return state


def _stranger(client: TestClient) -> None:
    """Someone else: a new visitor, whose first page gave them their own identity (Z6)."""
    client.cookies.clear()
    client.get("/api/me").raise_for_status()


def test_a_player_downloads_the_record_in_each_notation_and_it_reimports_n4(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = _play_local(client, CANNON_MATE)
        assert game["status"] == "finished"
        for notation, first in (("wxf", "C2+2"), ("chinese", "炮二进二"), ("iccs", "H2-H4")):
            answer = client.get(f"/api/games/{game['id']}/record", params={"notation": notation})
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("text/plain")
            text = answer.text
            assert f"1. {first} " in text
            assert '[Result "1-0"]' in text
            assert '[Termination "checkmate"]' in text
            record = read_record(text)
            assert [str(m) for m in record.moves] == CANNON_MATE
            assert record.board.fen() == game["fen"]
        refused = client.get(f"/api/games/{game['id']}/record", params={"notation": "korean"})
        assert refused.status_code == 400
        assert "janggi" in refused.json()["error"]["message"]
        _stranger(client)
        assert client.get(f"/api/games/{game['id']}/record").status_code == 404


def test_a_janggi_game_downloads_as_gib_too_j3_n4(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = _play_local(client, ["e4e5", "e7e6", "pass"], variant="janggi")
        answer = client.get(f"/api/games/{game['id']}/record", params={"format": "gib"})
        assert answer.status_code == 200
        assert "[초차림 " in answer.text
        assert "1. 75卒65 2. 45兵55 3. 한수쉼" in answer.text
        assert read_record(answer.text).board.fen() == game["fen"]
        pgn = client.get(f"/api/games/{game['id']}/record").text
        assert '[Format "Korean"]' in pgn
        assert read_record(pgn).board.fen() == game["fen"]


def test_a_share_link_opens_the_finished_game_for_anyone_and_nothing_before(tmp_path):
    with server(tmp_path) as (client, _, _):
        game = create(client, kind="local", variant="xiangqi")
        shared = client.post(f"/api/games/{game['id']}/share").json()
        assert shared["available"] is False
        assert shared["path"] == f"/review/{shared['token']}"
        assert len(shared["token"]) >= 32  # 192 random bits, URL-safe
        again = client.post(f"/api/games/{game['id']}/share").json()
        assert again["token"] == shared["token"]
        token = shared["token"]
        player_cookies = dict(client.cookies)
        _stranger(client)
        ongoing = client.get(f"/api/shared/{token}")
        assert ongoing.status_code == 409
        assert ongoing.json()["error"]["code"] == "game_ongoing"
        record = client.get(f"/api/games/{game['id']}/record", params={"share": token})
        assert record.status_code == 404  # before the end: nothing
        assert client.post(f"/api/games/{game['id']}/share").status_code == 404
        client.cookies.update(player_cookies)
        finished = _finish_local(client, game["id"], CANNON_MATE)
        _stranger(client)
        view = client.get(f"/api/shared/{token}")
        assert view.status_code == 200
        assert view.json()["moves"] == CANNON_MATE
        assert view.json()["status"] == "finished"
        assert view.json()["fen"] == finished["fen"]
        text = client.get(f"/api/games/{game['id']}/record", params={"share": token}).text
        assert [str(m) for m in read_record(text).moves] == CANNON_MATE
        forged = {"share": "x" * 32}
        assert client.get(f"/api/games/{game['id']}/record", params=forged).status_code == 404
        assert client.get(f"/api/shared/{'y' * 32}").status_code == 404
        assert client.get(f"/api/games/{game['id']}").status_code == 404  # not a player


def _finish_local(client: TestClient, game_id: str, moves: list[str]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for ply, move in enumerate(moves):
        answer = client.post(f"/api/games/{game_id}/moves", json={"ply": ply, "move": move})
        state = answer.json()["state"]
    return state


JIEQI_MOVES = ["a1a2", "a10a9", "b3b10"]  # Red's cannon-point piece takes a face-down piece


def test_a_jieqi_record_reveals_nothing_before_the_end_and_everything_after_z2_q5_q7(tmp_path):
    ai = ScriptedAI()
    ai.script = {1: "a10a9"}
    with server(tmp_path, ai=ai) as (client, _, store):
        game = create(client, kind="ai", variant="jieqi", level="beginner", color="red")
        for ply, move in ((0, "a1a2"), (2, "b3b10")):
            _wait_ply(client, game["id"], ply)
            answer = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
            assert answer.status_code == 200, answer.text
        stored = store.game(game["id"])
        assert stored is not None
        assert stored.secret is not None
        text = client.get(f"/api/games/{game['id']}/record", params={"notation": "wxf"}).text
        assert "[Commitment " in text
        assert "Arrangement" not in text
        assert stored.secret["salt"] not in text
        assert stored.secret["arrangement"] not in text
        token = client.post(f"/api/games/{game['id']}/share").json()["token"]
        with game_socket(client, game["id"]) as (sock, _):
            assert sock.request("resign")["type"] == "ack"
        after = client.get(f"/api/games/{game['id']}/record").text
        record = read_record(after)  # checks the arrangement against the commitment
        assert record.board.fen() == client.get(f"/api/games/{game['id']}").json()["fen"]
        assert f'[Arrangement "{stored.secret["arrangement"]}"]' in after
        assert '[Result "0-1"]' in after
        assert '[Termination "resignation"]' in after
        _stranger(client)
        review = client.get(f"/api/shared/{token}").json()
        assert review["arrangement"] == stored.secret["arrangement"]
        assert verify_commitment(review["commitment"], review["arrangement"], review["salt"])


def _wait_ply(client: TestClient, game_id: str, ply: int) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = client.get(f"/api/games/{game_id}").json()
        if state["ply"] == ply and not state["thinking"]:
            return dict(state)
        time.sleep(0.05)
    raise AssertionError(f"the game did not reach ply {ply}")


def _online_game(store: Store, red: str, black: str, moves: list[str], status: GameStatus) -> str:
    """An online game between two players, as the rooms store it (game_players rows)."""
    board = make_board("jieqi", seed=11)
    assert isinstance(board, JieqiBoard)
    arrangement, salt = board.reveal()
    board.push_many(moves)
    now = utcnow()
    game = GameRecord(
        id="g_online_review",
        kind="online",
        variant="jieqi",
        secret={"arrangement": arrangement, "salt": salt},
        start_fen=make_board("jieqi").fen(),
        moves=moves,
        status=status,
        result=None if status == "ongoing" else {"winner": "red", "reason": "timeout"},
        created_at=now,
        expires_at=now + timedelta(days=1),
        updated_at=now,
    )
    store.insert_game(game, [{"type": "start"}], [(red, 0), (black, 1)])
    return game.id


def test_online_players_get_their_own_view_of_a_jieqi_record_and_strangers_nothing_z2(tmp_path):
    with server(tmp_path) as (client, _, store):
        red = client.get("/api/me").json()["id"]
        red_cookies = dict(client.cookies)
        _stranger(client)
        black = client.get("/api/me").json()["id"]
        game_id = _online_game(store, red, black, JIEQI_MOVES, "ongoing")
        text = client.get(f"/api/games/{game_id}/record").text  # Black's, while it is on
        assert "[Commitment " in text
        assert "Arrangement" not in text
        assert [str(m) for m in read_record(text).moves] == JIEQI_MOVES
        _stranger(client)
        client.get("/api/me")
        assert client.get(f"/api/games/{game_id}/record").status_code == 404
        assert client.get(f"/api/games/{game_id}/analysis").status_code == 404
        client.cookies.clear()
        client.cookies.update(red_cookies)
        mine = client.get(f"/api/games/{game_id}/record", params={"notation": "chinese"})
        assert mine.status_code == 200
        assert "Arrangement" not in mine.text


def test_posting_a_record_makes_an_imported_game_to_review_and_share_n4_e1(tmp_path):
    with server(tmp_path) as (client, _, _):
        answer = client.post("/api/records", content=PLAYED_ON.encode("utf-8"))
        assert answer.status_code == 201, answer.text
        state = answer.json()
        assert state["kind"] == "imported"
        assert state["status"] == "finished"
        assert len(state["moves"]) == 20
        assert state["legal_moves"] == []
        assert state["options"]["rules_end"] == {"ply": 15, "reason": "repetition", "winner": None}
        assert state["result"] == {"winner": None, "reason": "agreement", "points": None}
        assert client.get(f"/api/games/{state['id']}").json()["moves"] == state["moves"]
        text = client.get(f"/api/games/{state['id']}/record", params={"notation": "chinese"}).text
        assert "10. 兵七进一 卒3进1" in text
        assert '[Event "俱乐部快棋赛"]' in text
        token = client.post(f"/api/games/{state['id']}/share").json()["token"]
        _stranger(client)
        assert client.get(f"/api/games/{state['id']}").status_code == 404
        assert client.get(f"/api/shared/{token}").json()["moves"] == state["moves"]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('[Format "WXF"]\n\n1. C2.5 H8+7\n2. H2+3 R9+9\n', 4, "R9+9"),
        ("", None, "empty"),
        (" \n\t\n", None, "empty"),
        ('[Variant "jieqi"]\n\n1. a1a2(R)\n', None, "Arrangement"),
    ],
)
def test_a_bad_record_is_refused_with_its_line_n4_z5(tmp_path, text, line, reason):
    with server(tmp_path) as (client, _, _):
        answer = client.post("/api/records", content=text.encode("utf-8"))
        assert answer.status_code == 400
        error = answer.json()["error"]
        assert reason in error["message"]
        if line is not None:
            assert error["code"] == "bad_record"
            assert error["line"] == line
            assert f"line {line}" in error["message"]
        if reason == "empty":  # N4: said as such, not as a line to blame
            assert error["code"] == "empty_record"
            assert "line" not in error
        huge = client.post("/api/records", content=b"1. h3e3 " * 40_000)
        assert huge.status_code == 413


def _analysis_done(client: TestClient, game_id: str, **params: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    seen = []
    while time.monotonic() < deadline:
        answer = client.get(f"/api/games/{game_id}/analysis", params=params).json()
        seen.append(answer["progress"])
        if answer["status"] == "done":
            assert seen == sorted(seen)  # progress only grows
            return dict(answer)
        time.sleep(0.05)
    raise AssertionError(f"the analysis did not finish: {seen[-5:]}")


def test_an_analysis_runs_to_done_and_marks_the_blunder(tmp_path):
    """Black's 2... g7g6?? lets the cannon take the horse with mate: a blunder."""
    with server(tmp_path, ai=AnalysingAI(), analysis_nodes=400) as (client, _, _):
        game = _play_local(client, CANNON_MATE)
        none = client.get(f"/api/games/{game['id']}/analysis").json()
        assert none == {"status": "none", "progress": 0.0, "engine": None, "plies": []}
        started = client.post(f"/api/games/{game['id']}/analysis")
        assert started.status_code == 202
        assert started.json()["status"] in ("queued", "running", "done")
        done = _analysis_done(client, game["id"])
        again = client.post(f"/api/games/{game['id']}/analysis").json()
        assert again["status"] == "done"
        assert again["plies"] == done["plies"]  # idempotent
        assert done["progress"] == 1.0
        assert done["engine"] == "chuhan"
        plies = done["plies"]
        assert [p["ply"] for p in plies] == list(range(6))
        assert plies[4]["class"] == "blunder"
        assert plies[4]["loss"] >= 300
        assert plies[5]["best"] is None
        assert plies[5]["score"] == 1500  # Red has mated
        assert plies[0]["class"] is None
        board = make_board("xiangqi")
        for entry, move in zip(plies, [*CANNON_MATE, None], strict=True):
            if entry["best"] is not None:
                board.parse_move(entry["best"])  # the best move is legal where it is shown
            if move:
                board.push(move)
        token = client.post(f"/api/games/{game['id']}/share").json()["token"]
        _stranger(client)
        assert client.get(f"/api/games/{game['id']}/analysis").status_code == 404
        shared = client.get(f"/api/games/{game['id']}/analysis", params={"share": token}).json()
        assert shared["plies"] == plies


BLACK_MATES = ["a1a2", "b8b6", "f1e2", "b6c6", "c4c5", "c6c1"]  # 3. c4c5?? 3... C3+5#


def _check_lines(variant: str, moves: list[str], plies: list[dict[str, Any]]) -> None:
    """Each position's line is legal in turn from it, starts with its best move, and is
    written in each notation of the variant like the game's move list."""
    from chuhan.rules.notation import write_moves

    board = make_board(variant)
    for entry, move in zip(plies, [*moves, None], strict=True):
        assert entry["pawns"] == round(entry["score"] / 100, 1)
        assert len(entry["pv"]) <= 5
        assert entry["pv"][:1] == ([entry["best"]] if entry["best"] else [])
        assert set(entry["line"]) == ({"coords", "wxf", "chinese"} if entry["pv"] else set())
        for notation, texts in entry["line"].items():
            assert texts == write_moves(board, entry["pv"], notation)
        if move:
            board.push(move)


def test_an_analysis_gives_pawns_mate_in_n_the_line_and_the_better_move(tmp_path):
    """Every position's evaluation in pawns (first mover), mate in N signed for the
    first mover, the engine's line in each notation, and for a marked move the better move
    and what it keeps."""
    with server(tmp_path, ai=AnalysingAI(), analysis_nodes=600) as (client, _, _):
        game = _play_local(client, CANNON_MATE)
        plies = _analysis_done_after_post(client, game["id"])["plies"]
        _check_lines("xiangqi", CANNON_MATE, plies)
        mating = plies[4]  # Red to move mates at once: 5. C3+5#
        assert mating["mate"] == 1
        assert mating["pv"] == ["g5g10"]
        assert mating["line"] == {"coords": ["g5-g10"], "wxf": ["C3+5"], "chinese": ["炮三进五"]}
        assert plies[5]["mate"] == 0
        assert plies[5]["line"] == {}
        assert plies[5]["pawns"] == 15.0
        assert all(entry["mate"] is None for entry in plies[:4])
        blunder = plies[4]  # 2... g7g6?? (the position it led to)
        assert blunder["class"] == "blunder"
        assert blunder["gain"] == blunder["loss"] >= 300
        before = plies[3]
        assert before["best"] != "g7g6"
        assert blunder["better"] == {name: texts[0] for name, texts in before["line"].items()}
        for entry in plies:  # a better move for each marked move, and only for those
            assert (entry["better"] is None) == (entry["class"] is None)
            assert entry["gain"] == (entry["loss"] if entry["class"] else 0)

        other = _play_local(client, BLACK_MATES)
        black = _analysis_done_after_post(client, other["id"])["plies"]
        _check_lines("xiangqi", BLACK_MATES, black)
        assert black[5]["mate"] == -1
        assert black[5]["pv"] == ["c6c1"]  # Black mates in 1
        assert black[5]["line"]["wxf"] == ["C3+5"]
        assert black[5]["pawns"] == -15.0
        assert black[5]["class"] == "blunder"
        assert black[5]["better"]["coords"] != "c4-c5"


def test_older_stored_analyses_without_lines_still_answer():
    """An analysis stored before lines were kept (score and best only) is read as before, with
    empty lines and no better move."""
    from chuhan.server.games.analysis import analysis_plies

    now = utcnow()
    game = GameRecord(
        id="g_old_analysis",
        kind="local",
        variant="xiangqi",
        start_fen=make_board("xiangqi").fen(),
        moves=["a1a2"],
        status="finished",
        result={"winner": None, "reason": "agreement"},
        created_at=now,
        expires_at=now,
        updated_at=now,
    )
    old = [
        {"ply": 0, "view": None, "score": 30, "best": "h3e3"},
        {"ply": 1, "view": None, "score": 400, "best": "h10g8"},
    ]
    plies = analysis_plies(game, old)
    assert [p["pawns"] for p in plies] == [0.3, -4.0]
    assert plies[1]["class"] == "blunder"
    assert plies[1]["line"] == {}
    assert plies[1]["better"] is None
    assert plies[1]["gain"] == 430


def test_an_ongoing_game_is_not_analysed_and_a_jieqi_analysis_sees_only_views_z2(tmp_path):
    ai = AnalysingAI()
    with server(tmp_path, ai=ai, analysis_nodes=200) as (client, _, store):
        ongoing = create(client, kind="local", variant="xiangqi")
        refused = client.post(f"/api/games/{ongoing['id']}/analysis")
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "game_ongoing"
        red = client.get("/api/me").json()["id"]
        _stranger(client)
        black_id = client.get("/api/me").json()["id"]
        game_id = _online_game(store, red, black_id, JIEQI_MOVES, "finished")
        done = _analysis_done_after_post(client, game_id)
        assert [p["ply"] for p in done["plies"]] == [0, 1, 2, 3]
        jobs = [job for job in ai.jobs if job.kind == "analysis"]
        assert len(jobs) == 7  # the start, then each position before and after each move
        for job in jobs:
            assert job.view is not None
            assert job.view["viewer"] in ("red", "black")
            assert "arrangement" not in job.view
            assert "hidden" not in job.view


def test_a_jieqi_analysis_line_shows_nothing_of_face_down_pieces_z2(tmp_path):
    """Z2: each jieqi line is the mover's view's: legal there, ending at the first
    piece it turns up, never naming what a face-down piece is (the arrangement would)."""
    from chuhan.rules.notation import write_move

    with server(tmp_path, ai=AnalysingAI(), analysis_nodes=300) as (client, _, store):
        red = client.get("/api/me").json()["id"]
        _stranger(client)
        black = client.get("/api/me").json()["id"]
        game_id = _online_game(store, red, black, JIEQI_MOVES, "finished")
        plies = _analysis_done_after_post(client, game_id)["plies"]
        full = make_board("jieqi", seed=11)
        assert isinstance(full, JieqiBoard)
        turned_up = 0
        for entry, move in zip(plies, [*JIEQI_MOVES, None], strict=True):
            view = JieqiBoard.from_view(full.view(full.turn, game_over=False))
            assert set(entry["line"]) == {"coords", "wxf", "chinese"}
            texts = [t for line in entry["line"].values() for t in line]
            texts += list((entry["better"] or {}).values())
            assert texts
            assert not any("(" in text for text in texts)  # no reveal mark
            for index, pv_move in enumerate(entry["pv"]):
                for notation, line in entry["line"].items():
                    assert line[index] == write_move(view, pv_move, notation)
                if view.parse_move(pv_move).from_point in view.face_down:
                    assert index == len(entry["pv"]) - 1  # the line ends there
                    turned_up += 1
                    break
                view.push(pv_move)
            if move:
                full.push(move)
        assert turned_up  # lines that turn a piece up were shown, each without naming it


def _analysis_done_after_post(client: TestClient, game_id: str) -> dict[str, Any]:
    assert client.post(f"/api/games/{game_id}/analysis").status_code == 202
    return _analysis_done(client, game_id)


def test_the_analysis_engine_is_pluggable_with_a_uci_engine(tmp_path):
    ai = AnalysingAI()
    ai.analysis_engine = uci_program(tmp_path)
    with server(tmp_path, ai=ai, analysis_nodes=2_000) as (client, _, _):
        game = _play_local(client, CANNON_MATE)
        done = _analysis_done_after_post(client, game["id"])
        assert done["engine"] == "uci:Chu-Han"  # the program's own name, not ours in process
        assert done["plies"][4]["class"] == "blunder"
        assert done["plies"][4]["best"] != "g7g6"
        _check_lines("xiangqi", CANNON_MATE, done["plies"])  # Its line too
        assert done["plies"][4]["mate"] == 1
        assert done["plies"][4]["line"]["wxf"] == ["C3+5"]


def test_the_analysis_engine_is_a_setting_the_pool_hands_to_its_workers(tmp_path, monkeypatch):
    """CHUHAN_ANALYSIS_ENGINE is read by Settings (the one place that reads the environment)
    and reaches the worker's analysis through the pool, not through the worker's os.environ."""
    program = uci_program(tmp_path)
    monkeypatch.setenv("CHUHAN_ANALYSIS_ENGINE", program)
    settings = Settings.from_env()
    assert settings.analysis_engine == program
    monkeypatch.delenv("CHUHAN_ANALYSIS_ENGINE")
    job = AIJob("analysis", "xiangqi", moves=tuple(CANNON_MATE[:4]), nodes=500)
    assert pool_for(settings).runner(job)["engine"] == "uci:Chu-Han"
    assert pool_for(Settings()).runner(job)["engine"] != "uci:Chu-Han"  # ours without it


def test_the_positions_of_a_game_are_the_rules_fens_for_players_and_link_holders(tmp_path):
    with server(tmp_path) as (client, _, store):
        red = client.get("/api/me").json()["id"]
        red_cookies = dict(client.cookies)
        _stranger(client)
        black = client.get("/api/me").json()["id"]
        game_id = _online_game(store, red, black, JIEQI_MOVES, "ongoing")
        answer = client.get(f"/api/games/{game_id}/positions").json()["positions"]
        board = make_board("jieqi", seed=11)
        expected = [board.fen()]
        for move in JIEQI_MOVES:
            board.push(move)
            expected.append(board.fen())
        assert [p["fen"] for p in answer] == expected  # face-down pieces stay X/x (Z2)
        assert [p["move"] for p in answer] == [None, *JIEQI_MOVES]
        assert answer[3]["turn"] == "black"
        assert answer[3]["in_check"] is False
        client.cookies.clear()
        client.get("/api/me")
        assert client.get(f"/api/games/{game_id}/positions").status_code == 404
        client.cookies.clear()
        client.cookies.update(red_cookies)
        assert client.get(f"/api/games/{game_id}/positions").status_code == 200


def test_a_share_token_in_the_review_page_address_is_kept_out_of_the_logs_z3():
    from chuhan.server.logs import redact_path

    assert redact_path("/review/AbC-123_tok") == "/review/…"
    assert redact_path("/api/shared/AbC-123_tok") == "/api/shared/…"
    assert redact_path("/api/games/g_1/record?share=AbC") == "/api/games/g_1/record"


def test_share_links_and_a_cut_short_analysis_on_sqlite_and_postgresql(tmp_path, database):
    """The review tables behave alike on both databases; an analysis whose task was lost (a
    restart) goes on from the positions it had stored when it is asked for again."""
    from datetime import timedelta as later

    from sqlalchemy import update

    from chuhan.server.db.tables import game_analyses

    with server(tmp_path, ai=AnalysingAI(), analysis_nodes=300, database=database) as (
        client,
        ai,
        store,
    ):
        game = _play_local(client, CANNON_MATE)
        token = client.post(f"/api/games/{game['id']}/share").json()["token"]
        assert client.post(f"/api/games/{game['id']}/share").json()["token"] == token
        done = _analysis_done_after_post(client, game["id"])
        first_run = len([job for job in ai.jobs if job.kind == "analysis"])
        assert first_run == 6
        # As if the server had stopped after three positions, 40 seconds ago.
        with store.engine.begin() as conn:
            conn.execute(
                update(game_analyses)
                .where(game_analyses.c.game_id == game["id"])
                .values(
                    status="running",
                    evaluations=_stored_evaluations(store, game["id"])[:3],
                    updated_at=utcnow() - later(seconds=40),
                )
            )
        cut = client.get(f"/api/games/{game['id']}/analysis").json()  # asks: it goes on
        assert cut["status"] in ("running", "done")
        assert cut["progress"] >= 0.5
        again = _analysis_done(client, game["id"])
        assert [p["ply"] for p in again["plies"]] == [p["ply"] for p in done["plies"]]
        assert len([job for job in ai.jobs if job.kind == "analysis"]) == first_run + 3
        _stranger(client)
        assert client.get(f"/api/shared/{token}").json()["moves"] == CANNON_MATE


def _stored_evaluations(store: Store, game_id: str) -> list[dict[str, Any]]:
    from sqlalchemy import select

    from chuhan.server.db.tables import game_analyses

    with store.engine.connect() as conn:
        return list(
            conn.execute(
                select(game_analyses.c.evaluations).where(game_analyses.c.game_id == game_id)
            ).scalar_one()
        )


def test_a_move_is_written_in_the_games_notations_before_it_is_played_U4_N2_N3_Z2(tmp_path):
    """The confirm bar's "Play C2.5?": the server writes a legal move of the
    position now; an illegal one is refused, a stranger learns nothing, a finished game has
    no move to write, and a jieqi face-down piece stays face down (Z2)."""
    with server(tmp_path) as (client, _, _):
        game = _play_local(client, ["h3e3"])
        answer = client.get(f"/api/games/{game['id']}/notation", params={"move": "h10g8"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["notation"] == {"wxf": "H8+7", "chinese": "马8进7"}
        illegal = client.get(f"/api/games/{game['id']}/notation", params={"move": "h10h5"})
        assert illegal.status_code == 400, illegal.text
        assert illegal.json()["error"]["code"] == "bad_request"
        jieqi = _play_local(client, [], "jieqi")
        written = client.get(f"/api/games/{jieqi['id']}/notation", params={"move": "a1a2"})
        assert written.status_code == 200, written.text
        assert "(" not in written.json()["notation"]["wxf"]  # no "(R)": nothing revealed
        mated = _play_local(client, CANNON_MATE)
        over = client.get(f"/api/games/{mated['id']}/notation", params={"move": "a1a2"})
        assert over.json()["error"]["code"] == "game_over"
        _stranger(client)
        stranger = client.get(f"/api/games/{game['id']}/notation", params={"move": "h10g8"})
        assert stranger.status_code == 404

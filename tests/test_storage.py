"""Storage on SQLite and on PostgreSQL: migrations, players, exactly-once game changes,
the event log, and a whole game through the app (SPEC Z4, P2, P4, S1)."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from chuhan.server.records import Award, GameRecord, StaleGameError, utcnow
from chuhan.server.storage import MIGRATIONS_DIR, Store, iter_events
from test_server_support import create, game_socket, server

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def store(database):
    url, schema = database
    store = Store(url, schema)
    store.migrate()
    yield store
    store.dispose()


def _game(player_id: str, game_id: str = "g_1") -> GameRecord:
    now = utcnow()
    return GameRecord(
        id=game_id,
        kind="ai",
        variant="xiangqi",
        level="beginner",
        player_id=player_id,
        human_side=0,
        start_fen="rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        created_at=now,
        expires_at=now + timedelta(hours=24),
    )


def test_migrations_apply_once_and_again_without_harm(store, database):
    store.migrate()  # a second start finds everything in place
    tables = set(inspect(store.engine).get_table_names(schema=database[1]))
    assert {"players", "games", "game_events", "alembic_version"} <= tables
    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head
    assert store.ping()


def test_players_are_found_by_token_hash_only_S1(store):
    player = store.create_player("p_1", "a" * 64)
    assert store.player_by_token_hash("a" * 64) == player
    assert store.player_by_token_hash("b" * 64) is None
    store.set_player_name("p_1", "Mei")
    assert store.player("p_1").name == "Mei"  # type: ignore[union-attr]


def test_a_game_round_trips_with_its_first_event(store):
    store.create_player("p_1", "a" * 64)
    game = _game("p_1")
    store.insert_game(game, [{"type": "start"}])
    loaded = store.game("g_1")
    assert loaded is not None
    assert replace(loaded, updated_at=game.updated_at) == game
    assert [(e.seq, e.type) for e in store.events_after("g_1", 0)] == [(1, "start")]
    assert [g.id for g in store.ongoing_games("p_1", "ai")] == ["g_1"]


def test_a_change_from_a_stale_read_is_refused_so_each_move_applies_once_Z4(store):
    store.create_player("p_1", "a" * 64)
    game = _game("p_1")
    store.insert_game(game, [{"type": "start"}])
    after = replace(game, moves=["h3e3"], seq=2)
    store.commit_change(game, after, [{"type": "move", "move": "h3e3"}])
    with pytest.raises(StaleGameError):
        store.commit_change(game, after, [{"type": "move", "move": "h3e3"}])
    assert store.game("g_1").moves == ["h3e3"]  # type: ignore[union-attr]
    assert [e.seq for e in store.events_after("g_1", 0)] == [1, 2]


def test_concurrent_writers_of_the_same_change_apply_it_exactly_once_Z4_P4(store):
    store.create_player("p_1", "a" * 64)
    game = _game("p_1")
    store.insert_game(game, [{"type": "start"}])
    won = replace(game, status="finished", points_awarded=10, seq=2)
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def write() -> None:
        barrier.wait()
        try:
            store.commit_change(game, won, [{"type": "end"}], Award("p_1", "ai", 10))
            outcomes.append("committed")
        except StaleGameError:
            outcomes.append("stale")

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["committed", "stale", "stale", "stale"]
    assert store.player("p_1").ai_points == 10  # type: ignore[union-attr]
    assert store.count_events("g_1") == 2


def test_concurrent_writers_of_the_same_move_log_it_exactly_once_Z4(store):
    """Without points to award a change is one statement on PostgreSQL (the update and the
    events' insert together): still all or nothing, once."""
    store.create_player("p_1", "a" * 64)
    game = _game("p_1")
    store.insert_game(game, [{"type": "start"}])
    after = replace(game, moves=["h3e3"], seq=3)
    events = [{"type": "move", "ply": 0, "move": "h3e3"}, {"type": "draw_rejected"}]
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def write() -> None:
        barrier.wait()
        try:
            store.commit_change(game, after, events)
            outcomes.append("committed")
        except StaleGameError:
            outcomes.append("stale")

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["committed", "stale", "stale", "stale"]
    assert store.game("g_1").moves == ["h3e3"]  # type: ignore[union-attr]
    logged = [(e.seq, e.payload) for e in store.events_after("g_1", 0)]
    assert logged == [(1, {"type": "start"}), (2, events[0]), (3, events[1])]


def test_a_change_must_log_its_events(store):
    store.create_player("p_1", "a" * 64)
    game = _game("p_1")
    store.insert_game(game, [{"type": "start"}])
    with pytest.raises(ValueError):
        store.commit_change(game, replace(game, moves=["h3e3"]), [])


def test_the_event_log_reads_in_order_across_pages(store):
    store.create_player("p_1", "a" * 64)
    game = _game("p_1")
    store.insert_game(game, [{"type": "start"}])
    current = game
    for index in range(3):
        events = [{"type": "thinking", "n": index * 300 + k} for k in range(300)]
        after = replace(current, seq=current.seq + len(events))
        store.commit_change(current, after, events)
        current = after
    seqs = [e.seq for e in iter_events(store, "g_1", 0)]
    assert seqs == list(range(1, 902))
    assert [e.seq for e in store.events_after("g_1", 899)] == [900, 901]


def test_a_whole_saved_game_through_the_app_P2_P4(tmp_path, database):
    with server(tmp_path, database=database) as (client, ai, store):
        ai.script = {0: "pass"}
        game = create(client, kind="ai", variant="janggi", level="beginner", color="han")
        with game_socket(client, game["id"], last_seq=0) as (sock, _):
            sock.state_after_ply(1)
            sock.request("move", ply=1, move="pass")
            end = sock.wait_event(lambda e: e["type"] == "end")
        assert end["points_awarded"] == 10
        stored = store.game(game["id"])
        assert stored is not None and stored.moves == ["pass", "pass"]
        assert stored.status == "finished" and stored.result["reason"] == "double_pass"  # type: ignore[index]
        assert client.get("/api/me").json()["points"]["ai"] == 10


def test_two_server_instances_on_one_database_apply_each_move_once_Z4(tmp_path, database):
    """The same move sent at once to two instances (a retry through another server): both
    acknowledge it, the game holds it once."""
    from concurrent.futures import ThreadPoolExecutor

    with (
        server(tmp_path / "a", database=database) as (first, _, store),
        server(tmp_path / "b", database=database) as (second, _, _),
    ):
        game = create(first, kind="local", variant="xiangqi")
        second.cookies.set("chuhan_player", first.cookies["chuhan_player"])
        board_moves = ["h3e3", "h8e8", "h1g3", "h10g8", "i1h1", "i10h10"]
        with ThreadPoolExecutor(2) as threads:
            for ply, move in enumerate(board_moves):
                body = {"ply": ply, "move": move}
                url = f"/api/games/{game['id']}/moves"
                answers = list(
                    threads.map(lambda c, b=body, u=url: c.post(u, json=b), (first, second))
                )
                assert [a.json()["type"] for a in answers] == ["ack", "ack"], answers
        stored = store.game(game["id"])
        assert stored is not None and stored.moves == board_moves
        events = store.events_after(game["id"], 0)
        assert [e.type for e in events] == ["start"] + ["move"] * len(board_moves)


def test_a_failed_statement_on_the_fast_path_leaves_transactions_atomic(postgres_schema):
    """The statements of every move go straight to psycopg in autocommit (Store.driver). One
    that fails for a reason other than a dropped connection (a constraint, bad data) must
    still hand its connection back as SQLAlchemy expects it: in a transaction, so that a
    later change of several statements that rolls back leaves nothing behind."""
    url, schema = postgres_schema
    store = Store(url, schema)
    store.migrate()
    try:
        with pytest.raises(Exception, match="division by zero"), store.driver() as connection:
            connection.execute("SELECT 1 / 0")
        with store.engine.connect() as conn:
            conn.execute(text("CREATE TABLE IF NOT EXISTS atomic_probe (n integer)"))
            conn.commit()
            conn.execute(text("INSERT INTO atomic_probe VALUES (1)"))
            conn.rollback()
            assert conn.execute(text("SELECT count(*) FROM atomic_probe")).scalar_one() == 0
    finally:
        store.dispose()

"""The leaderboard's cost (SPEC B8): one walk of the index ``ratings(variant, rating)``,
against a player's own rating read by its primary key (the anchor, measured in the same run).

Builds a SQLite database (the server's migrations) with ``--players`` players, each rated in
every variant (a third established with enough games, the rest provisional or with few
games), then times ``LeaderboardStore.leaders`` (the top 50 of a variant) and
``RatingStore.of_player`` (one player's ratings) ``--repeat`` times each, and prints the
median of each and their ratio, then the leaderboard again with the index dropped.

    .venv/bin/python bench/leaderboard.py --players 30000

Measured figures: bench/RESULTS.md, under "bench/leaderboard.py".
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from chuhan.server.db.leaderboard import LeaderboardStore
from chuhan.server.db.ratings import RatingStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import players, ratings
from chuhan.server.players.leaderboard import LEADERBOARD_SIZE, MIN_GAMES
from chuhan.server.records import utcnow

VARIANTS = ("xiangqi", "janggi", "jieqi")


def fill(store: Store, count: int, seed: int = 1) -> list[str]:
    """``count`` players rated in every variant; returns their ids."""
    chance = random.Random(seed)
    now = utcnow()
    ids = [f"p{number:07d}" for number in range(count)]
    with store.engine.begin() as conn:
        conn.execute(
            players.insert(),
            [
                {"id": i, "token_hash": f"h{i}", "name": f"Player {i}", "created_at": now}
                for i in ids
            ],
        )
        rows = []
        for player_id in ids:
            for variant in VARIANTS:
                established = chance.random() < 1 / 3
                rows.append(
                    {
                        "player_id": player_id,
                        "variant": variant,
                        "rating": chance.gauss(1500, 250),
                        "deviation": chance.uniform(50, 110) if established else 200,
                        "volatility": 0.06,
                        "games": chance.randint(MIN_GAMES, 300) if established else 3,
                        "updated_at": now,
                    }
                )
        conn.execute(ratings.insert(), rows)
    return ids


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=30000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        store.migrate()
        ids = fill(store, args.players)
        board, rated = LeaderboardStore(store), RatingStore(store)
        chance = random.Random(2)
        assert len(board.leaders("xiangqi", MIN_GAMES, LEADERBOARD_SIZE)) == LEADERBOARD_SIZE
        top = median_ms(lambda: board.leaders("janggi", MIN_GAMES, LEADERBOARD_SIZE), args.repeat)
        own = median_ms(lambda: rated.of_player(chance.choice(ids)), args.repeat)
        with store.engine.begin() as conn:  # the same query without the index, for scale
            conn.exec_driver_sql("DROP INDEX ix_ratings_board")
        scan = median_ms(
            lambda: board.leaders("janggi", MIN_GAMES, LEADERBOARD_SIZE), max(5, args.repeat // 20)
        )
        store.dispose()
    print(f"{args.players} players × 3 variants, median of {args.repeat}")
    print(f"  one player's ratings (primary key, the anchor): {own:.3f} ms")
    print(f"  leaderboard, top {LEADERBOARD_SIZE}: {top:.3f} ms, {top / own:.1f}× the anchor")
    print(f"  the same without ix_ratings_board: {scan:.3f} ms, {scan / own:.1f}× the anchor")


if __name__ == "__main__":
    main()

"""The ``chuhan`` command line: ``serve``, ``ai-worker``, ``moves``, ``perft``, ``game``, ``uci``,
``record``, ``puzzles``.

The output of ``moves``, ``perft`` and ``game`` is a contract that other tools rely on
(see docs/rules.md): one line per FEN, the node count as the last line, one JSON object.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from .rules import VARIANTS, Board, FenError, RulesError, make_board
from .rules.janggi import SETUPS
from .rules.notation import NOTATIONS
from .rules.state import game_state


def _add_variant(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        default="xiangqi",
        choices=sorted(VARIANTS),
        help="game variant (default: xiangqi)",
    )


def _add_board_options(parser: argparse.ArgumentParser) -> None:
    """The variant, and the options that shape its starting position."""
    _add_variant(parser)
    parser.add_argument("--fen", help="starting position (default: the variant's start)")
    parser.add_argument(
        "--setup",
        help=f"janggi only: horse/elephant setups CHO:HAN, each {'|'.join(SETUPS)}",
    )
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="rule options: casual|wxf (xiangqi, jieqi: how repetitions are judged, E1), "
        "janggi: bikjang=off|points",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="jieqi only: seed for a reproducible face-down arrangement (never used online)",
    )


def _add_played_moves(parser: argparse.ArgumentParser) -> None:
    """A board (:func:`_add_board_options`) and the moves played on it (:func:`_played`)."""
    _add_board_options(parser)
    parser.add_argument(
        "moves", nargs="*", metavar="MOVE", help="moves in canonical text, e.g. h3e3"
    )


def board_from_args(args: argparse.Namespace) -> Board:
    """Build the board that ``--variant``, ``--fen`` and the variant options describe."""
    options: dict[str, Any] = {}
    if getattr(args, "setup", None):
        options["setup"] = args.setup
    for item in getattr(args, "rules", None) or []:
        name, _, value = item.partition("=") if "=" in item else ("rules", "=", item)
        if not value:
            raise RulesError(f"--rules expects NAME=VALUE, got {item!r}")
        options[name.strip()] = value.strip()
    if getattr(args, "seed", None) is not None:
        options["seed"] = args.seed
    return make_board(args.variant, getattr(args, "fen", None), **options)


def _command(
    sub: Any, name: str, run: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    """The subcommand ``name``, which ``run`` carries out. The first line of ``run``'s docstring
    is its line in ``chuhan --help`` (without its capital and full stop); the rest is its
    description in ``chuhan NAME --help``."""
    summary, _, description = (inspect.getdoc(run) or "").partition("\n\n")
    line = summary[:1].lower() + summary[1:].removesuffix(".")
    parser: argparse.ArgumentParser = sub.add_parser(name, help=line, description=description)
    parser.set_defaults(func=run)
    return parser


def _group(sub: Any, name: str, line: str, description: str) -> Any:
    """The command ``name`` of actions (``chuhan NAME ACTION``): ``line`` is its line in
    ``chuhan --help``, ``description`` its text in ``chuhan NAME --help``. Returns where its
    actions are added (with :func:`_command`)."""
    group = sub.add_parser(name, help=line, description=description)
    return group.add_subparsers(dest="action", required=True, metavar="ACTION")


def _cmd_moves(args: argparse.Namespace) -> int:
    """List legal moves for FENs read from stdin.

    Read one FEN per line on stdin; write one line per FEN with its legal moves,
    space-separated. An invalid FEN gets 'error: <reason>' and exit status 1.
    """
    status = 0
    for line in sys.stdin:
        fen = line.strip()
        if not fen:
            continue
        try:
            board = make_board(args.variant, fen)
        except (FenError, RulesError) as exc:
            print(f"error: {exc}")
            status = 1
            continue
        print(" ".join(board.legal_move_texts()))
    return status


def _cmd_perft(args: argparse.Namespace) -> int:
    """Count leaf nodes of the legal move tree.

    Count the positions reached after DEPTH half-moves; the count is the last line.
    --divide first prints each first move with its count.
    """
    board = board_from_args(args)
    if args.divide:
        total = 0
        for text, count in board.divide(args.depth):
            print(f"{text}: {count}")
            total += count
        print(total)
    else:
        print(board.perft(args.depth))
    return 0


def _played(args: argparse.Namespace, notation: str | None = None) -> tuple[Board, list[str]]:
    """The board after MOVE... from the start (or ``--fen``), and the moves written in
    ``notation`` (none without it). Raises RulesError naming the first move rejected and
    its index (from 1): ``main`` exits with status 2."""
    from .rules.notation import check_notation, write_move

    board = board_from_args(args)
    if notation:
        check_notation(board, notation)
    written: list[str] = []
    for index, text in enumerate(args.moves, start=1):
        try:
            if notation:
                written.append(write_move(board, text, notation))
            board.push(text)
        except RulesError as exc:
            raise RulesError(f"move {index} ({text!r}) rejected: {exc}") from None
    return board, written


def _cmd_game(args: argparse.Namespace) -> int:
    """Play moves and print the resulting state as JSON.

    Play MOVE... from the start (or --fen) and print one JSON object: fen, turn, status,
    winner, reason, in_check, legal_moves. An illegal move, or any move after the end, exits
    with status 2 naming the move and its index (from 1).
    """
    notation = getattr(args, "notation", None)
    board, written = _played(args, notation)
    state = game_state(board, getattr(args, "view", None))
    if notation:
        state["notation"] = written
    print(json.dumps(state, ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chuhan",
        description="Chu-Han: xiangqi, janggi and jieqi rules, AI and server.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_variant(_command(sub, "moves", _cmd_moves))

    perft = _command(sub, "perft", _cmd_perft)
    _add_board_options(perft)
    perft.add_argument("--depth", type=int, required=True, help="half-moves to search")
    perft.add_argument("--divide", action="store_true", help="print the count per first move")

    game = _command(sub, "game", _cmd_game)
    _add_played_moves(game)
    game.add_argument(
        "--view",
        choices=["red", "black", "all"],
        help="jieqi only: whose knowledge the output shows (default: all)",
    )
    game.add_argument(
        "--notation",
        choices=NOTATIONS,
        help="also print 'notation': the moves written in this notation (N1-N3; korean: janggi)",
    )
    _add_record_commands(sub)
    _add_puzzle_commands(sub)

    _command(sub, "uci", _cmd_uci)

    serve = _command(sub, "serve", _cmd_serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument("--data-dir", default="data", help="folder of the SQLite database")

    worker = _command(sub, "ai-worker", _cmd_ai_worker)
    worker.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: one per core; each runs one search at a time)",
    )
    worker.add_argument(
        "--redis-url",
        help="the Redis of the web instances (default: REDIS_URL)",
    )
    worker.add_argument(
        "--prefix",
        help="their CHUHAN_REDIS_PREFIX (default: that variable, else chuhan)",
    )

    return parser


def _add_record_commands(sub: Any) -> None:
    """``chuhan record export|import`` (N4)."""
    actions = _group(
        sub,
        "record",
        "export or import a game record (PGN-style text)",
        "Game records in the PGN-style text of xiangqi software (N4).",
    )
    export = _command(actions, "export", _cmd_record_export)
    _add_played_moves(export)
    export.add_argument(
        "--format",
        choices=NOTATIONS,
        help="notation of the moves (default: iccs; korean for janggi)",
    )
    export.add_argument(
        "--result",
        choices=["1-0", "0-1", "1/2-1/2", "*"],
        help="result of a game ended off the board (default: from the final position)",
    )
    export.add_argument("--termination", help="reason, e.g. resignation (default: from the board)")
    load = _command(actions, "import", _cmd_record_import)
    load.add_argument("file", help="the record file, or - for standard input")


def _add_puzzle_commands(sub: Any) -> None:
    """``chuhan puzzles load`` (B9)."""
    actions = _group(
        sub,
        "puzzles",
        "load the puzzles into the database",
        "The puzzles (B9): rows of the database loaded from the data files.",
    )
    load = _command(actions, "load", _cmd_puzzles_load)
    load.add_argument(
        "--dir",
        help="folder of the <variant>.jsonl files (default: CHUHAN_PUZZLES_DIR, else the "
        "package's own)",
    )
    load.add_argument(
        "--data-dir",
        default="data",
        help="folder of the SQLite database, as for serve (unless DATABASE_URL is set)",
    )


def _cmd_puzzles_load(args: argparse.Namespace) -> int:
    """Load the puzzle data files into the database and print the counts per variant.

    Read the <variant>.jsonl files, bring the database's tables up to date (the migrations,
    as the server does at start-up) and add the puzzles not stored yet; a stored puzzle
    keeps its rating and plays, and a line that does not fit is left out with a warning on
    stderr. Print one line per variant: the puzzles in the files, how many were added, how
    many the table holds now. The server does the same on its first puzzle request.
    """
    from pathlib import Path

    from .server.db.puzzle_store import PuzzleStore
    from .server.db.store import Store
    from .server.puzzles.catalog import VARIANTS, load_puzzles, usable_puzzles
    from .server.settings import Settings

    settings = Settings.from_env(data_dir=Path(args.data_dir))
    folder = Path(args.dir) if args.dir else settings.puzzles.data_dir
    if not folder.is_dir():
        raise ValueError(f"no folder {folder}")
    found = usable_puzzles(folder)
    if settings.database_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(settings.sqlalchemy_url(), settings.db_schema)
    try:
        store.migrate()
        puzzles = PuzzleStore(store)
        added = load_puzzles(puzzles, found)
        stored = puzzles.counts()
    finally:
        store.dispose()
    for variant in VARIANTS:
        in_files = sum(p.variant == variant for p in found)
        print(
            f"{variant}: {in_files} in the files, {added[variant]} added, "
            f"{stored.get(variant, 0)} in the table"
        )
    return 0


def _cmd_record_export(args: argparse.Namespace) -> int:
    """Print the record of MOVE... played from the start (or --fen).

    Play MOVE... (canonical text) and print the record: tags Game, Variant, FEN (when not the
    standard start), Result, Termination, Format, then the numbered moves. An illegal move
    exits with status 2 naming the move and its index (from 1).
    """
    from .rules.record import write_record

    board, _ = _played(args)
    text = write_record(board, args.format, result=args.result, termination=args.termination)
    sys.stdout.write(text)
    return 0


def _cmd_record_import(args: argparse.Namespace) -> int:
    """Read a record and print the final position as 'chuhan game' JSON.

    Read a record (ICCS, WXF, Chinese or Korean moves; UTF-8, GB18030 or CP949) and print the
    JSON of 'chuhan game' for its final position (the first game of a file of several). A bad
    record exits with status 2 naming the line and the reason.
    """
    from pathlib import Path

    from .rules.jieqi import JieqiBoard
    from .rules.record import decode_record, read_record

    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        record = read_record(decode_record(data))
    except RulesError as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 2
    board = record.board
    # A jieqi record without its arrangement knows only what the reveals told: Red's view.
    blind = isinstance(board, JieqiBoard) and not board.has_secret
    state = game_state(board, "red" if blind else None)
    if record.rules_end is not None:  # played on past our rules' end (E1–E3): say where
        state["rules_end"] = record.rules_end.as_json(board.SIDE_NAMES)
    print(json.dumps(state, ensure_ascii=False))
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    """Run the web server (games against the AI and on one device).

    Serve the API, the game WebSocket and the front end. SQLite in --data-dir unless
    DATABASE_URL names another database; JSON-lines logs on stderr.
    """
    from .server.run import serve

    return serve(args.host, args.port, args.data_dir)


def _cmd_ai_worker(args: argparse.Namespace) -> int:
    """Run AI worker processes on the shared queue (CHUHAN_AI_SHARED).

    Run --workers processes that take AI jobs (moves, hints, draw offers, janggi setups) one
    at a time from the shared Redis queue of the web instances started with CHUHAN_AI_SHARED=1,
    on this machine or another. A worker that dies is replaced; its job goes to another
    worker. SIGTERM or Ctrl-C stops them after their jobs.
    """
    from .server.ai.worker import run_workers
    from .server.settings import Settings

    settings = Settings.from_env()  # the environment is read there only
    redis_url = args.redis_url or settings.redis_url
    if not redis_url:
        raise ValueError("chuhan ai-worker needs REDIS_URL (or --redis-url)")
    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    prefix = args.prefix or settings.redis_prefix
    return run_workers(redis_url, prefix, args.workers, settings.analysis_engine)


def _cmd_uci(args: argparse.Namespace) -> int:
    """Run the AI as a UCI engine on stdin/stdout (A6).

    Speak UCI on stdin/stdout: options UCI_Variant (xiangqi|janggi|jieqi) and Level
    (beginner|intermediate|advanced); moves in canonical text.
    """
    from .engine.uci import main as uci_main

    return uci_main()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (RulesError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

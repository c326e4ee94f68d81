"""The ``chuhan`` command line: ``serve``, ``moves``, ``perft``, ``game``, ``uci``.

The output of ``moves``, ``perft`` and ``game`` is a contract that other tools rely on
(see the README): one line per FEN, the node count as the last line, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .rules import VARIANTS, Board, FenError, RulesError, make_board


def _add_variant(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        default="xiangqi",
        choices=sorted(VARIANTS),
        help="game variant (default: xiangqi)",
    )


def _add_board_options(parser: argparse.ArgumentParser) -> None:
    """Options that shape the starting position of a variant."""
    parser.add_argument("--fen", help="starting position (default: the variant's start)")
    parser.add_argument(
        "--setup",
        help="janggi only: horse/elephant setups CHO:HAN, each HEHE|EHEH|HEEH|EHHE",
    )
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="janggi only: rule options, e.g. bikjang=off|points",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="jieqi only: seed for a reproducible face-down arrangement (never used online)",
    )


def board_from_args(args: argparse.Namespace) -> Board:
    """Build the board that ``--variant``, ``--fen`` and the variant options describe."""
    options: dict[str, Any] = {}
    if getattr(args, "setup", None):
        options["setup"] = args.setup
    for item in getattr(args, "rules", None) or []:
        name, _, value = item.partition("=")
        if not value:
            raise RulesError(f"--rules expects NAME=VALUE, got {item!r}")
        options[name.strip()] = value.strip()
    if getattr(args, "seed", None) is not None:
        options["seed"] = args.seed
    return make_board(args.variant, getattr(args, "fen", None), **options)


def _cmd_moves(args: argparse.Namespace) -> int:
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


def game_state(board: Board, view: str | None = None) -> dict[str, Any]:
    """The JSON object of ``chuhan game`` for the board's current position."""
    outcome = board.outcome()
    names = board.SIDE_NAMES
    state: dict[str, Any] = {
        "fen": board.fen(),
        "turn": names[board.turn],
        "status": "finished" if outcome else "ongoing",
        "winner": names[outcome.winner] if outcome and outcome.winner is not None else None,
        "reason": outcome.reason if outcome else None,
        "in_check": board.is_check(),
        "legal_moves": [] if outcome else list(board.legal_move_texts()),
    }
    if outcome and outcome.points is not None:
        state["points"] = {names[0]: outcome.points[0], names[1]: outcome.points[1]}
    state.update(board.extra_state(view))
    return state


def _cmd_game(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    for index, text in enumerate(args.moves, start=1):
        try:
            board.push(text)
        except RulesError as exc:
            print(f"error: move {index} ({text!r}) rejected: {exc}", file=sys.stderr)
            return 2
    print(json.dumps(game_state(board, getattr(args, "view", None)), ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chuhan",
        description="Chu-Han: xiangqi, janggi and jieqi rules, AI and server.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    moves = sub.add_parser(
        "moves",
        help="list legal moves for FENs read from stdin",
        description="Read one FEN per line on stdin; write one line per FEN with its legal "
        "moves, space-separated. An invalid FEN gets 'error: <reason>' and exit status 1.",
    )
    _add_variant(moves)
    moves.set_defaults(func=_cmd_moves)

    perft = sub.add_parser(
        "perft",
        help="count leaf nodes of the legal move tree",
        description="Count the positions reached after DEPTH half-moves; the count is the "
        "last line. --divide first prints each first move with its count.",
    )
    _add_variant(perft)
    _add_board_options(perft)
    perft.add_argument("--depth", type=int, required=True, help="half-moves to search")
    perft.add_argument("--divide", action="store_true", help="print the count per first move")
    perft.set_defaults(func=_cmd_perft)

    game = sub.add_parser(
        "game",
        help="play moves and print the resulting state as JSON",
        description="Play MOVE... from the start (or --fen) and print one JSON object: fen, "
        "turn, status, winner, reason, in_check, legal_moves. An illegal move, or any "
        "move after the end, exits with status 2 naming the move and its index (from 1).",
    )
    _add_variant(game)
    _add_board_options(game)
    game.add_argument(
        "--view",
        choices=["red", "black", "all"],
        help="jieqi only: whose knowledge the output shows (default: all)",
    )
    game.add_argument("moves", nargs="*", metavar="MOVE", help="moves in canonical text, e.g. h3e3")
    game.set_defaults(func=_cmd_game)

    uci = sub.add_parser(
        "uci",
        help="run the AI as a UCI engine on stdin/stdout (A6)",
        description="Speak UCI on stdin/stdout: options UCI_Variant (xiangqi|janggi|jieqi) "
        "and Level (beginner|intermediate|advanced); moves in canonical text.",
    )
    uci.set_defaults(func=_cmd_uci)

    return parser


def _cmd_uci(args: argparse.Namespace) -> int:
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

"""SPEC U8: the learn content — lessons solvable by the rules, diagrams valid, three languages.

The lessons and diagrams are JSON under ``src/chuhan/web/learn/``; the browser judges an
exercise with the server's rules (``rules.js``: the move's from/to, then the position after it
through ``/api/analysis/moves``). These tests judge every exercise the same way with
``chuhan.rules`` directly, so a lesson whose answer the rules would refuse cannot ship.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chuhan.rules import Board, make_board

LEARN = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "learn"
LANGUAGES = ("en", "es", "pt")
VARIANTS = ("xiangqi", "janggi", "jieqi")
KINDS = {"K": "general", "A": "advisor", "B": "elephant", "N": "horse", "R": "chariot",
         "C": "cannon", "P": "soldier", "X": "hidden"}  # fmt: skip

LESSONS: dict[str, list[dict[str, Any]]] = json.loads((LEARN / "lessons.json").read_text())
DIAGRAMS: dict[str, dict[str, dict[str, str]]] = json.loads((LEARN / "diagrams.json").read_text())
TEXTS = {code: json.loads((LEARN / "text" / f"{code}.json").read_text()) for code in LANGUAGES}


def placement(fen: str) -> dict[str, str]:
    """Point name → FEN letter."""
    pieces = {}
    for index, row in enumerate(fen.split()[0].split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                pieces[f"{'abcdefghi'[file]}{10 - index}"] = ch
                file += 1
    return pieces


def fen_of(pieces: dict[str, str], side: str) -> str:
    rows = []
    for rank in range(10, 0, -1):
        row, empty = "", 0
        for file in "abcdefghi":
            letter = pieces.get(f"{file}{rank}")
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + f" {side} - - 0 1"


def split_move(text: str) -> tuple[str, str]:
    match = re.fullmatch(r"([a-i](?:10|[1-9]))([a-i](?:10|[1-9]))", text)
    assert match, text
    return match.group(1), match.group(2)


def fen_after(fen: str, move: str, reveal: str | None) -> str:
    """The position after a plain move, a face-down mover shown as ``reveal`` (as rules.js)."""
    pieces = placement(fen)
    if move == "pass":
        return fen_of(pieces, "b" if fen.split()[1] == "w" else "w")
    start, end = split_move(move)
    letter = pieces.pop(start)
    if letter in "Xx" and reveal:
        letter = reveal.upper() if letter == "X" else reveal.lower()
    pieces[end] = letter
    return fen_of(pieces, "b" if fen.split()[1] == "w" else "w")


def solves(variant: str, lesson: dict[str, Any], move: str) -> bool:
    """Does a legal move reach the lesson's goal? The same judgement as rules.js judgeGoal."""
    goal = lesson["goal"]
    if "move" in goal or move == "pass":
        return bool(move == goal.get("move"))
    start, end = split_move(move)
    if goal.get("from", start) != start or goal.get("to", end) != end:
        return False
    then = goal.get("then")
    if then is None:
        return True
    after = make_board(variant, fen_after(lesson["fen"], move, lesson.get("reveal")))
    replies = [text for text in after.legal_move_texts() if text != "pass"]
    return {
        "check": after.is_check(),
        "mate": after.is_check() and not replies,
        "stalemate": not after.is_check() and not after.legal_move_texts(),
    }[then]


def all_lessons() -> Iterator[tuple[str, dict[str, Any]]]:
    for variant in VARIANTS:
        for lesson in LESSONS[variant]:
            yield variant, lesson


LESSON_CASES = [pytest.param(v, lesson, id=lesson["id"]) for v, lesson in all_lessons()]


@pytest.mark.parametrize(("variant", "lesson"), LESSON_CASES)
def test_u8_every_exercise_is_solvable_by_the_rules_and_asks_for_a_choice(
    variant: str, lesson: dict[str, Any]
) -> None:
    board = make_board(variant, lesson["fen"])
    legal = list(board.legal_move_texts())
    solutions = [move for move in legal if solves(variant, lesson, move)]
    assert lesson["solution"] in solutions, f"{lesson['id']}: the stored answer does not solve it"
    assert len(solutions) < len(legal), f"{lesson['id']}: every legal move solves it"
    assert board.outcome() is None, "the exercise must start in a game still going on"


@pytest.mark.parametrize(("variant", "lesson"), LESSON_CASES)
def test_u8_a_capture_task_really_captures_and_mate_lessons_really_mate(
    variant: str, lesson: dict[str, Any]
) -> None:
    goal = lesson["goal"]
    pieces = placement(lesson["fen"])
    if "to" in goal and "then" not in goal:
        target = pieces.get(goal["to"])
        assert target is not None, "the task's target is an enemy piece"
        assert target.islower(), "the task's target is an enemy piece"
    if goal.get("then") == "mate":
        after = make_board(variant, fen_after(lesson["fen"], lesson["solution"], None))
        outcome = after.outcome()
        assert outcome is not None
        assert outcome.reason == "checkmate"
        assert outcome.winner == 0
    if goal.get("move") == "pass":  # J6, J8: two passes end the game on points, as the text says
        board = make_board(variant, lesson["fen"])
        board.push("pass")
        board.push("pass")
        outcome = board.outcome()
        assert outcome is not None
        assert outcome.winner == 0
        assert outcome.points is not None
    if goal.get("then") == "stalemate":
        after = make_board(variant, fen_after(lesson["fen"], lesson["solution"], None))
        outcome = after.outcome()
        assert outcome is not None
        assert outcome.reason == "stalemate"
        assert outcome.winner == 0


def test_u8_the_tutorial_covers_each_variant_and_the_headline_exercises() -> None:
    """Issue examples: capture the chariot with a cannon; mate with the flying general."""
    assert all(len(LESSONS[variant]) >= 5 for variant in VARIANTS)
    ids = [lesson["id"] for _, lesson in all_lessons()]
    assert len(ids) == len(set(ids)), "lesson ids are unique (they key the saved progress)"
    cannon = next(lesson for lesson in LESSONS["xiangqi"] if lesson["id"] == "xiangqi-cannon")
    assert placement(cannon["fen"])[cannon["goal"]["to"]] == "r"
    flying = next(x for x in LESSONS["xiangqi"] if x["id"] == "xiangqi-flying-general")
    after = make_board("xiangqi", fen_after(flying["fen"], flying["solution"], None))
    black_general = next(p for p, letter in placement(after.fen()).items() if letter == "k")
    escape = black_general[0] == "f" and "e" + black_general[1:]
    assert escape, "the e-file escape is empty"
    assert escape not in placement(after.fen()), "the e-file escape is empty"
    outcome = after.outcome()
    assert outcome is not None
    assert outcome.reason == "checkmate"


def test_u8_the_solution_of_a_plain_board_agrees_with_push() -> None:
    """fen_after (what the browser does) places pieces exactly as the rules' own push."""
    for variant, lesson in all_lessons():
        if variant == "jieqi":
            continue
        board: Board = make_board(variant, lesson["fen"])
        board.push(lesson["solution"])
        expected = fen_after(lesson["fen"], lesson["solution"], None)
        assert board.fen().split()[:2] == expected.split()[:2], lesson["id"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_u8_every_piece_has_a_diagram_with_moves(variant: str) -> None:
    """SPEC U8: a diagram of every piece's moves (jieqi: the face-down piece too)."""
    expected = {"general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"}
    if variant == "jieqi":
        expected.add("hidden")
    assert set(DIAGRAMS[variant]) == expected
    for code in LANGUAGES:
        assert set(TEXTS[code]["diagram_notes"][variant]) == expected, f"{code} diagram notes"
    for kind, spec in DIAGRAMS[variant].items():
        board = make_board(variant, spec["fen"])
        letter = placement(spec["fen"])[spec["from"]]
        assert KINDS[letter] == kind, f"{variant} {kind}: the diagram shows a {letter}"
        moves = [m for m in board.legal_move_texts() if m.startswith(spec["from"])]
        assert moves, f"{variant} {kind}: the piece has no move in its diagram"


def _shape(node: Any) -> Any:
    """The structure of a text tree: keys and list lengths, with the words left out."""
    if isinstance(node, dict):
        return {key: value if key == "kind" else _shape(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_shape(value) for value in node]
    return type(node)


def test_u8_every_text_exists_in_spanish_portuguese_and_english() -> None:
    english = _shape(TEXTS["en"])
    for code in ("es", "pt"):
        assert _shape(TEXTS[code]) == english, f"{code}.json differs in structure from en.json"
    for _variant, lesson in all_lessons():
        for field in ("title", "text", "task", "hint", "success"):
            for code in LANGUAGES:
                assert lesson[field][code].strip(), f"{lesson['id']}.{field} has no {code} text"
        assert lesson["text"]["es"] != lesson["text"]["en"] != lesson["text"]["pt"]


def _words(code: str, variant: str) -> str:
    return json.dumps(TEXTS[code]["rules"][variant], ensure_ascii=False).lower()


@pytest.mark.parametrize("code", LANGUAGES)
def test_u8_rules_pages_cover_what_the_spec_asks(code: str) -> None:
    """Board, pieces, check, mate, stalemate, flying general/bikjang, draws, points, faces,
    notation and an FAQ — checked by words each language must use."""
    topics = {
        "en": {
            "xiangqi": ["river", "palace", "flying general", "checkmate", "stalemate",
                        "perpetual check", "120 half-moves", "c2.5", "炮二平五"],
            "janggi": ["sangcharim", "bridge", "pass", "bikjang", "13", "1.5", "200 moves"],
            "jieqi": ["face down", "face up", "only the player who captured", "hash",
                      "60 moves"],
        },
        "es": {
            "xiangqi": ["río", "palacio", "general volador", "jaque mate", "ahogado",
                        "jaque perpetuo", "120 medias jugadas", "c2.5", "炮二平五"],
            "janggi": ["sangcharim", "puente", "pasar", "bikjang", "13", "1,5", "200 jugadas"],
            "jieqi": ["boca abajo", "boca arriba", "solo quien la captura", "hash",
                      "60 jugadas"],
        },
        "pt": {
            "xiangqi": ["rio", "palácio", "general voador", "xeque-mate", "afogamento",
                        "xeque perpétuo", "120 meios-lances", "c2.5", "炮二平五"],
            "janggi": ["sangcharim", "ponte", "passar", "bikjang", "13", "1,5", "200 lances"],
            "jieqi": ["virada para baixo", "virados para cima", "só quem a capturou", "hash",
                      "60 lances"],
        },
    }  # fmt: skip
    for variant, words in topics[code].items():
        text = _words(code, variant)
        missing = [word for word in words if word not in text]
        assert not missing, f"{code} {variant} rules page never mentions {missing}"
        assert len(TEXTS[code]["rules"][variant]["faq"]) >= 8


def test_u8_the_faq_answers_what_the_seed_pages_answer() -> None:
    """The seeds' FAQs ask: chess difference, cannon capture, elephant and river, flying
    general, stalemate, promotion, who starts, cannon over two pieces, perpetual check."""
    questions = " ".join(entry["q"].lower() for entry in TEXTS["en"]["rules"]["xiangqi"]["faq"])
    for topic in ("western chess", "cannon capture", "river", "generals face", "stalemate",
                  "promote", "moves first", "jump", "perpetual check"):  # fmt: skip
        assert topic in questions, topic

"""Every string of the web client exists in Spanish, Portuguese and English (SPEC U8).

Static checks of the shipped files, no browser: the keys the scripts use, the key families
they build at run time (piece kinds, sides, end reasons…) and the glyphs the board draws.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chuhan.server.protocol.errors import HTTP_ERRORS

WEB = Path(__file__).resolve().parent.parent / "src" / "chuhan" / "web"
LANGUAGES = ("en", "es", "pt")
# Keys the scripts build from data: family → the values the server and rules may send.
FAMILIES = {
    "variant": ["xiangqi", "janggi", "jieqi"],
    "level": ["beginner", "intermediate", "advanced"],
    "side": ["red", "black", "cho", "han"],
    "owner": ["red", "black", "cho", "han"],
    "kind": ["general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier", "hidden"],
    "setup": ["HEHE", "EHEH", "HEEH", "EHHE"],
    "reason": [
        "checkmate",
        "stalemate",
        "perpetual_check",
        "repetition",
        "no_capture_limit",
        "insufficient_material",
        "agreement",
        "resignation",
        "timeout",
        "points",
        "bikjang",
        "double_pass",
        "move_limit",
        "interrupted",
        "abandoned",
        "expired",
    ],
    "status": ["abandoned", "expired", "interrupted"],
    # Every error code the server sends (docs/protocol.md): shown translated, never the
    # server's English sentence (Z5, U8).
    "error": [
        "illegal_move",
        "stale_move",
        "not_your_turn",
        "game_over",
        "nothing_to_undo",
        "busy",
        "undo_reveals",
        "stale",
        "not_found",
        "other",
        "malformed",
        "too_large",
        "bad_request",
        "invalid_request",
        "unknown_type",
        "internal",
        "server_error",
        "http_error",
        "network",
        "no_player",
        "elsewhere",
        "not_now",
        "already_offered",
        "offer_pending",
        "too_soon",
        "no_offer",
        "time_out",
        "room_full",
        "room_closed",
        "password_taken",
        "wrong_password",
        "too_many_attempts",
        "too_many_rooms",
        "pending_game",
        "bad_password",
        "bad_password_length",
        "bad_password_characters",
        "bad_password_repeated",
        "bad_password_consecutive",
        "analysis_queue_full",
        "playing_online",
        "too_many_players",
        "too_many_games",
        "too_many_imports",
        "too_many_analyses",
    ],
    "settings.notation": ["coordinates", "wxf", "chinese", "korean"],
    "settings.style": ["characters", "illustrations"],
}


def strings(language: str) -> dict[str, str]:
    said: dict[str, str] = json.loads(
        (WEB / "i18n" / f"{language}.json").read_text(encoding="utf-8")
    )
    return said


def used_keys() -> set[str]:
    """Every string literal in the scripts shaped like a key of a known group ("undo.title"),
    the data-i18n keys of the page, and the keys built from FAMILIES."""
    groups = {key.split(".")[0] for key in strings("en")}
    keys: set[str] = set()
    for script in (WEB / "js").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        for key in re.findall(r'"([a-z]+\.[a-z_]+)"', text):
            if key.split(".")[0] in groups:
                keys.add(key)
    keys |= set(re.findall(r'data-i18n="([\w.]+)"', (WEB / "index.html").read_text("utf-8")))
    for family, values in FAMILIES.items():
        joiner = "_" if family.startswith("settings.") else "."
        keys |= {f"{family}{joiner}{value}" for value in values}
    # Every code of docs/protocol.md's HTTP errors table has its own text too.
    keys |= {f"error.{code}" for code in HTTP_ERRORS}
    return keys


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_the_client_uses_is_translated_U8(language: str) -> None:
    table = strings(language)
    missing = sorted(key for key in used_keys() if not table.get(key))
    assert missing == []


def test_the_three_languages_have_the_same_keys_and_placeholders_U8() -> None:
    english = strings("en")
    for language in ("es", "pt"):
        table = strings(language)
        assert set(table) == set(english), language
        for key, text in english.items():
            assert set(re.findall(r"\{\w+\}", table[key])) == set(re.findall(r"\{\w+\}", text)), key


def test_board_characters_ship_as_paths_with_their_licence_U2() -> None:
    """The board never depends on a CJK font: every character it draws is a path."""
    glyphs = (WEB / "js" / "glyphs.js").read_text(encoding="utf-8")
    for character in "帥將仕士相象傌馬俥車炮砲兵卒楚漢包河界":
        assert re.search(rf'"{character}": "M[\d ]', glyphs), character
    assert "SIL OPEN FONT LICENSE" in (WEB / "fonts" / "OFL.txt").read_text(encoding="utf-8")


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(foreground: str, background: str) -> float:
    """The WCAG 2 contrast ratio of two #rrggbb colours."""
    high, low = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# (text colour, background) pairs the stylesheet and the board use for text and pieces.
TEXT_PAIRS = {
    "body text": ("--ink", "--paper"),
    "secondary text": ("--muted", "--paper"),
    "primary button": ("--accent-ink", "--accent"),
    "links and danger buttons": ("--accent", "--card"),
    "notices": ("--warn-ink", "--warn-bg"),
}
BOARD_PAIRS = {
    "red piece characters": ("#a50e28", "#ecc98f"),
    "black piece characters": ("#1c1c1c", "#ecc98f"),
    "cho piece characters": ("#14479a", "#ecc98f"),
    "board coordinates": ("#3f2812", "#dcae6b"),
    "disabled buttons": ("#6b6259", "#f1ede6"),
    "top bar": ("#fff8ec", "#3b2412"),
}


def test_text_colours_meet_wcag_aa_contrast_U9() -> None:
    css = (WEB / "css" / "app.css").read_text(encoding="utf-8")
    variables = dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", css))
    pairs = {name: (variables[a], variables[b]) for name, (a, b) in TEXT_PAIRS.items()}
    pairs.update(BOARD_PAIRS)
    sources = css + "".join(p.read_text(encoding="utf-8") for p in (WEB / "js").glob("*.js"))
    for foreground, background in BOARD_PAIRS.values():
        assert foreground in sources
        assert background in sources
    ratios = {name: round(contrast(*pair), 2) for name, pair in pairs.items()}
    assert {name: ratio for name, ratio in ratios.items() if ratio < 4.5} == {}


# The marks on the board (WCAG 1.4.11 asks 3:1 for graphics) against both ends of its wood.
MARK_RULES = {
    "last move": r"\.mark-last \{[^}]*stroke: (#[0-9a-f]{6})",
    "check": r"\.mark-check \{[^}]*stroke: (#[0-9a-f]{6})",
    "selected": r"\.mark-selected \{[^}]*stroke: (#[0-9a-f]{6})",
    "destination": r"\.mark-destination \{[^}]*fill: (#[0-9a-f]{6})",
    "capture": r"\.mark-capture \{[^}]*stroke: (#[0-9a-f]{6})",
    "hint": r"\.mark-hint \{[^}]*stroke: (#[0-9a-f]{6})",
    "focus ring": r"--focus: (#[0-9a-f]{6})",
}
WOOD = ("#f0cf95", "#dcae6b")


def test_board_marks_stand_out_from_the_wood_U6_U9() -> None:
    css = (WEB / "css" / "app.css").read_text(encoding="utf-8")
    board = (WEB / "js" / "board.js").read_text(encoding="utf-8")
    assert all(stop in board for stop in WOOD)
    weak = {}
    for name, pattern in MARK_RULES.items():
        match = re.search(pattern, css)
        assert match, name
        ratio = min(contrast(match[1], wood) for wood in WOOD)
        if ratio < 3:
            weak[name] = round(ratio, 2)
    assert weak == {}

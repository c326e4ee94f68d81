"""Names a reader can trust (SPEC S1): what a player may call themselves,
and what an imported record's player and event tags may say.

- No invisible character: the Unicode default-ignorable code points (zero-width spaces and
  joiners, bidirectional controls, variation selectors, tag characters, the Hangul fillers
  U+115F, U+1160, U+3164 and U+FFA0…) and the braille blank U+2800. "Alice" and
  "Alice" + U+3164 look the same; a name of fillers alone looks like no name.
- At most :data:`MAX_MARKS` combining marks on one character: enough for any script's
  accents and vowel signs, not for "Zalgo" text running over the lines around it.
- A name needs a letter and may not pass for the site or its computer player ("Chu-Han AI
  (advanced)", "chu han ai", "ＣＨＵＨＡＮ"…). A record's tags need neither: a date has no
  letter, and a record of a game against the AI names it.

Text is kept in NFC, so that an accent composed into its letter counts as no mark.

Every player has a readable name (SPEC B7): until they choose one, :func:`default_name` gives
them an animal and a number, the same for everyone who sees them, in words that English,
Spanish and Portuguese spell alike ("Orca 4821").
"""  # noqa: RUF002 (the full-width look-alike is the example)

from __future__ import annotations

import hashlib
import unicodedata

from .refusal import GameActionError

MAX_NAME_LENGTH = 40
MAX_MARKS = 3  # combining marks on one character (Hebrew points, Thai vowels and tones fit)
# Unicode 15's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt), which a
# renderer draws as nothing, and the braille pattern blank, which is drawn as a blank.
INVISIBLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),  # Hangul choseong / jungseong fillers
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),  # braille pattern blank
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),  # tags and the variation selectors supplement
)
# Animals named alike in English, Spanish and Portuguese: a default name needs no translation.
DEFAULT_ANIMALS = (
    "Alpaca", "Cobra", "Dingo", "Jaguar", "Kiwi", "Mamba", "Manta", "Orca", "Panda", "Puma",
    "Tapir",
)  # fmt: skip
RESERVED_PREFIX = "chuhan"  # the site's and its AI's names, letters and digits only, folded
MARKS = ("Mn", "Me")


class BadText(GameActionError):
    """A name or tag refused: ``reason`` says which rule (``invisible``, ``marks``,
    ``no_letter``, ``reserved``, ``length``), the front end's text for it."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__("bad_name", message, reason=reason)
        self.reason = reason


def invisible(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in INVISIBLE)


def readable(text: str) -> str:
    """``text`` in NFC with its runs of white space made one space; raises :class:`BadText`
    when it holds an invisible or unprintable character or a character under too many marks."""
    text = " ".join(unicodedata.normalize("NFC", text).split())
    marks = 0
    for char in text:
        if invisible(char) or not char.isprintable():
            raise BadText("invisible", f"U+{ord(char):04X} is invisible or not printable")
        marks = marks + 1 if unicodedata.category(char) in MARKS else 0
        if marks > MAX_MARKS:
            raise BadText("marks", f"at most {MAX_MARKS} combining marks on one character")
    return text


def display_name(name: str) -> str | None:
    """The name to keep for a player (None: blank, no name); raises :class:`BadText`."""
    name = readable(name)
    if not name:
        return None
    if len(name) > MAX_NAME_LENGTH:
        raise BadText("length", f"a name has 1 to {MAX_NAME_LENGTH} characters")
    if not any(unicodedata.category(char).startswith("L") for char in name):
        raise BadText("no_letter", "a name needs at least one letter")
    folded = "".join(c for c in unicodedata.normalize("NFKC", name).casefold() if c.isalnum())
    if folded.startswith(RESERVED_PREFIX):
        raise BadText("reserved", "this name belongs to the site and its computer player")
    return name


def default_name(player_id: str) -> str:
    """SPEC B7: the name of a player who has not chosen one, from their id: an animal of
    :data:`DEFAULT_ANIMALS` and a number from 1000 to 9999 ("Orca 4821")."""
    digest = int.from_bytes(hashlib.sha256(player_id.encode()).digest()[:8], "big")
    animal = DEFAULT_ANIMALS[digest % len(DEFAULT_ANIMALS)]
    return f"{animal} {1000 + digest // len(DEFAULT_ANIMALS) % 9000}"

"""Room passwords (SPEC R2): what is accepted, and the one form they are compared in."""

from __future__ import annotations

from itertools import pairwise

MIN_LENGTH = 3
MAX_LENGTH = 20


class PasswordError(ValueError):
    """A password the rules refuse; the message says why, for the player to read, and
    ``reason`` (``length``, ``characters``, ``repeated``, ``consecutive``) for translations."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def normalize_password(text: str) -> str:
    """The password as stored and compared: lower case, surrounding spaces removed.

    Raises PasswordError when it is not 3–20 letters or digits, is one repeated digit
    (``777``), or is a run of consecutive digits up or down (``1234``, ``987``).
    """
    password = text.strip().lower()
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise PasswordError(
            "length", f"a password has {MIN_LENGTH} to {MAX_LENGTH} letters or digits"
        )
    if not (password.isascii() and password.isalnum()):
        raise PasswordError("characters", "a password has only letters (a–z) and digits (0–9)")
    if password.isdigit():
        steps = {int(b) - int(a) for a, b in pairwise(password)}
        if steps == {0}:
            raise PasswordError("repeated", "one digit repeated (like 777) is too easy to guess")
        if steps in ({1}, {-1}):
            raise PasswordError(
                "consecutive", "consecutive digits (like 1234 or 987) are too easy to guess"
            )
    return password

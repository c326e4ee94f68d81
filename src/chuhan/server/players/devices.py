"""Identity across devices without sign-up (SPEC B6, S1 kept): the secrets that sign another
browser in as the same player, and what a player is shown of their devices. No I/O here: the
rows are ``db/devices.py``'s, the routes ``players/device_routes.py``'s.

- A **device link** is a code of 192 random bits, single use, valid :data:`LINK_MINUTES`
  minutes. It travels in the fragment of ``/device#<code>`` (the link and its QR code), which
  a browser never sends to a server: it reaches no log, no proxy, no ``Referer``.
- The **recovery code** is :data:`RECOVERY_GROUPS` groups of four letters and digits (120
  random bits) from :data:`RECOVERY_ALPHABET`, which has no 0/O or 1/I to misread. It is
  shown once; issuing another revokes it. It stays valid until then: it is the player's
  way back after every cookie is gone.
- Both are stored as their SHA-256 only (high-entropy secrets need no slow hash); signing in
  with one makes the browser a new device of the player with a cookie of its own, which
  "sign out this device" deletes.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

LINK_MINUTES = 10
LINK_CODE_BYTES = 24  # 192 bits, 32 URL-safe characters
RECOVERY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 symbols: 5 bits each
RECOVERY_GROUPS = 6  # of 4 symbols: 24 symbols, 120 bits
MAX_CODE_LENGTH = 64  # what a sign-in body may carry
_LINK_CODE = re.compile(r"[A-Za-z0-9_-]{32}")


@dataclass(frozen=True)
class DeviceLimits:
    """Budgets per ``window_seconds`` (SPEC Z5; 0 turns one off): device links and recovery
    codes a player may issue, and sign-in attempts (link or recovery code) an address block
    may make. The codes cannot be guessed; the limits keep their tables and the logs small."""

    links_per_player: int = 30
    recoveries_per_player: int = 10
    sign_ins_per_address: int = 60
    window_seconds: float = 3600.0


def new_link_code() -> str:
    """A device link's code: 32 URL-safe characters, 192 random bits."""
    return secrets.token_urlsafe(LINK_CODE_BYTES)


def new_recovery_code() -> str:
    """A recovery code as shown: ``ABCD-EFGH-…``, :data:`RECOVERY_GROUPS` groups of four."""
    symbols = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(4 * RECOVERY_GROUPS))
    return "-".join(symbols[i : i + 4] for i in range(0, len(symbols), 4))


def link_code(text: str) -> str | None:
    """``text`` if it has the shape of a device link's code, else None."""
    return text if _LINK_CODE.fullmatch(text) else None


def recovery_code(text: str) -> str | None:
    """The recovery code typed as ``text`` in its stored form (capitals, groups joined by
    ``-``), forgiving case, spaces and dashes; None when it cannot be one."""
    symbols = "".join(char for char in text.upper() if char not in " -\t\n")
    if len(symbols) != 4 * RECOVERY_GROUPS or any(c not in RECOVERY_ALPHABET for c in symbols):
        return None
    return "-".join(symbols[i : i + 4] for i in range(0, len(symbols), 4))


_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser/", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS/", "Firefox"),
    ("CriOS/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)


def device_label(user_agent: str) -> str:
    """What a player is shown of a device: its browser and system from its ``User-Agent``
    ("Firefox · Android"), product names that need no translation; "" when neither is
    known (the list then says "a browser")."""
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), "")
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), "")
    return " · ".join(part for part in (browser, system) if part)

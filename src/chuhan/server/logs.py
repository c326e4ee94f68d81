"""Structured logs: one JSON object per line on stderr."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

_STANDARD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}
# Paths that carry a secret (an invite token, SPEC Z3; a share token) must not reach the logs.
_SECRET_PATH = re.compile(r"(/room/i/|/api/rooms/invite/|/api/shared/|/review/)[^/?#\s]+")
_SLASHES = re.compile(r"//+")


def redact_path(path: str) -> str:
    """The path as logged: decoded as the router reads it (``/api/%73hared/…`` is the shared
    route; repeated slashes as one), invite and share tokens replaced by ``…``, the query
    string dropped."""
    path = path.partition("?")[0]
    for _ in range(3):  # an escape of an escape too
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    return _SECRET_PATH.sub(r"\1…", _SLASHES.sub("/", path))


class RedactSecrets(logging.Filter):
    """Rewrites uvicorn's access-log arguments ``(client, method, path, version, status)``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact_path(args[2]), *args[3:])
        return True


class JsonLinesFormatter(logging.Formatter):
    """Formats a record as one JSON line: time, level, logger, message and any ``extra``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_FIELDS and not key.startswith("_"):
                entry[f"extra_{key}" if key in entry else key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def log_config(level: str = "INFO") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the app and uvicorn, all as JSON lines."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": sys.stderr}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonLinesFormatter"}},
        "filters": {"secrets": {"()": f"{__name__}.RedactSecrets"}},
        "handlers": {"stderr": handler},
        "loggers": {
            "chuhan": {"handlers": ["stderr"], "level": level, "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {
                "handlers": ["stderr"],
                "filters": ["secrets"],
                "level": level,
                "propagate": False,
            },
        },
    }

"""Where a request comes from (SPEC Z6): whether a browser says it is another site's page,
and whether its body is one an HTML form can send. Pure functions of an ASGI scope, used by
the guard in front of the app (``http/guard.py``) and by the identity of a request
(``identity.py``: only the site's own pages make a player).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import Scope

FORM_BODY_TYPES = frozenset(
    ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
)  # what an HTML form can send
CLIENT_HEADER = b"x-chuhan-client"  # a header no form and no no-cors fetch can send (Z6)


def header(scope: Scope, name: bytes) -> str | None:
    """The value of a request header (the first of that name), or None."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _netloc(scheme: str, host: str) -> str:
    """``host[:port]`` lower-cased, without the scheme's default port."""
    host = host.strip().lower()
    default = {"http": ":80", "https": ":443", "ws": ":80", "wss": ":443"}.get(scheme)
    if default and host.endswith(default):
        host = host[: -len(default)]
    return host


def same_site(origin: str, host: str | None, scope_scheme: str, allowed: Iterable[str]) -> bool:
    """Whether a WebSocket's ``Origin`` is this site: the Host it asked for, or allowed."""
    if origin.rstrip("/").lower() in {o.rstrip("/").lower() for o in allowed}:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or host is None:
        return False
    host_scheme = "https" if scope_scheme in ("https", "wss") else "http"
    return _netloc(parts.scheme, parts.netloc) in (
        _netloc(parts.scheme, host),
        _netloc(host_scheme, host),
    )


def foreign_request(scope: Scope, allowed: Iterable[str]) -> bool:
    """SPEC Z6: whether a browser says this request comes from a page of another origin. The
    ``Origin`` decides when there is one (``null``, e.g. a sandboxed frame, is foreign), else
    ``Sec-Fetch-Site``; a client that sends neither (not a browser) is not foreign."""
    origin = header(scope, b"origin")
    if origin is not None:
        return not same_site(origin, header(scope, b"host"), scope.get("scheme", "http"), allowed)
    fetch_site = header(scope, b"sec-fetch-site")
    return fetch_site is not None and fetch_site not in ("same-origin", "none")


def form_body(scope: Scope) -> bool:
    """SPEC Z6: a body type an HTML form can send, without the header a form cannot add."""
    content_type = (header(scope, b"content-type") or "").split(";")[0].strip().lower()
    return content_type in FORM_BODY_TYPES and header(scope, CLIENT_HEADER) is None

"""Chu-Han: xiangqi, janggi and jieqi against a server-side AI or a friend."""

__version__ = "0.1.0"

from . import native as _native

_native.activate()  # the compiled rules and search, when built and up to date

"""A bare ``key=`` is a credential when the same constructor call also names a server (held-out wave 57).

Some SDKs take their API key as a keyword named only ``key``: python-redmine's ``Redmine(url, key=...)`` ("key:
API key", https://python-redmine.com/configuration.html), the Trello, Pushover and Google Maps clients likewise. The
word ``key`` alone is no credential (a dict key, a sort key, a cipher's key: ``SecretBox(key=k)``), so it counts
only beside an endpoint in the same call, and only when its value is computed (a name, an attribute, a lookup):
a string literal such as ``key="id"`` names a field, not a secret. Used by
:mod:`~faultlib.detect.serving.blocking.inferred`.
"""

from __future__ import annotations

import ast

__all__ = ["keyed_server"]

KEY_KEYWORDS = frozenset({"key", "apikey"})
"""Keyword names that carry an API key when the call also gives a server."""


def keyed_server(call: ast.Call) -> bool:
    """Whether ``call`` (already known to give a server) gives an API key as a computed ``key=`` keyword."""
    return any(k.arg in KEY_KEYWORDS and not isinstance(k.value, ast.Constant)
                                for k in call.keywords)

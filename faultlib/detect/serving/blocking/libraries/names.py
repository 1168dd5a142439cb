"""Helpers the library tables share to spell their entries."""

from __future__ import annotations

HTTP_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request")


def names(kind: str, source: str, prefix: str, *members: str) -> dict[str, tuple[str, str]]:
    """``{prefix.member: (kind, source)}`` for each member (``names(K, URL, "requests", "get")``)."""
    return {f"{prefix}.{m}": (kind, source) for m in members}

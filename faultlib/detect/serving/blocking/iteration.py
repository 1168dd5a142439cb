"""A sync ``for`` over an object whose iteration waits or computes: each ``next()`` blocks the thread.

``for text in streamer`` over a ``transformers.TextIteratorStreamer`` waits on its queue for each token the
generating thread puts there (https://huggingface.co/docs/transformers/internal/generation_utils#transformers.
TextIteratorStreamer; ``AsyncTextIteratorStreamer`` with ``async for`` is the loop's twin): on the loop, the loop
waits for the whole generation. A type's iteration blocks when the vocabulary gives it a ``__next__`` kind
(``Family(..., {"__next__": kind})``). Used by :mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.sites import Site

__all__ = ["waiting_iterations"]


def waiting_iterations(func: Func, index) -> list[Site]:
    """A site for each sync ``for``/comprehension in ``func`` over a value whose ``__next__`` blocks."""
    found = []
    for node in func.nodes:
        if not isinstance(node, (ast.For, ast.comprehension)) or getattr(node, "is_async", 0) or not isinstance(
                node.iter, (ast.Name, ast.Attribute)):  # a value (streamer, self.streamer), not a call's result
            continue
        owner = index.type_of(node.iter, func)
        kind = index.vocab.family_kind(owner, "__next__") if isinstance(owner, str) else None
        if kind is not None:
            at = node if isinstance(node, ast.For) else node.iter
            found.append(Site(kind[0], f"iterating a {owner} (each item waits)", func, at))
    return found

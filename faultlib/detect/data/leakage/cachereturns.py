"""A branch that hands back a result read from a cache file, for the static leakage analysis.

Feature code often starts with a short cut::

    def create_feature(self, force=False):
        if not force and is_latest([self.train_path, self.test_path]):
            self._load()                          # read the tables an earlier run saved
            return self.train, self.test
        self.calculate()                          # else compute them (and save them)
        self._save()
        return self.train, self.test

The test is unknown statically, and both paths run in practice: the first run computes and saves, later runs read
the saved tables back. The computation after the branch is how those tables came to be, so the analysis goes on
past the ``return`` as it does past a guard clause (``Interpreter.follow_guard_returns``, which follows only a
branch that returns nothing or a constant). A branch is a cache read when it calls a file reader (``read_pickle``,
``joblib.load``, ``np.load``: :data:`~faultlib.detect.data.leakage.vocab.FILE_READERS`) or a function named for
loading (``self._load()``, ``load_features(path)``) and ends in its only ``return`` (Python language reference,
8.1 "The if statement": one branch runs; a memoised computation is the pattern of ``functools.lru_cache`` written
by hand with files). Wave 72: a fraud competition's feature classes whose base class returned the cached tables
before ``calculate`` ran, so their frequencies over train and test stacked were never followed.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab


def _callee(call: ast.Call) -> str:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name.lstrip("_").lower()


def cache_exit(body: list[ast.stmt]) -> bool:
    """``body`` reads a file (or calls a loader) and ends in its only ``return``: a cached result handed back."""
    last = body[-1] if body else None
    if not isinstance(last, ast.Return) or any(isinstance(n, ast.Return) for s in body[:-1] for n in ast.walk(s)):
        return False
    calls = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Call)]
    return any(_callee(c) in vocab.FILE_READERS or _callee(c).startswith(("load", "read_")) for c in calls)


class CachedResults:
    """Follows the code after a branch that returns a cached result (see the module docstring)."""

    def _branch(self, body: list[ast.stmt], frame: Any, follow: bool | None = None) -> None:
        if follow is None and cache_exit(body):
            follow = True
        super()._branch(body, frame, follow)  # type: ignore[misc]


__all__ = ["CachedResults", "cache_exit"]

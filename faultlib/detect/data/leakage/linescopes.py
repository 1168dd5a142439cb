"""Which assignments of a name the code on one line can see, by Python's scoping rule read from the syntax.

A syntactic map of a module's assignments (``name -> every line that binds it``) mixes the scopes: in ::

    def report(model, test):
        predictions = model.predict(test)          # a local of report()
        ...
    def macro_f1(labels, predictions):
        predictions = predictions.reshape(4, -1).argmax(axis=0)
        return f1_score(labels, predictions, average="macro")

the ``predictions`` that ``macro_f1`` scores is its own parameter, reshaped, never ``report``'s prediction of the
test rows. Python resolves a name in the innermost function that binds it (a parameter or an assignment: "If a name
is bound in a block, it is a local variable of that block", the language reference, *Execution model*, 4.2.2); only
a name the function never binds is looked up at the module level. :class:`LineScopes` applies that rule to the
bindings a reader collected: :meth:`LineScopes.visible` keeps the function's own assignments of a local, the
module-level ones of a global, and says when a name is a parameter (its rows are whatever a caller passes, which the
syntax of the function does not tell). A name bound only inside other functions keeps them all (a closure, or a
``global`` statement the map does not follow), as :func:`.wrapped.scoped_bindings` does for call arguments.
"""

from __future__ import annotations

import ast
from typing import Sequence, TypeVar

from faultlib.pyflow.walk import walk_once

B = TypeVar("B", bound=tuple)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    a = fn.args
    return frozenset(p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))])


class LineScopes:
    """The functions of one module, for :meth:`visible`.

    Args:
        tree: the parsed module.
    """

    def __init__(self, tree: ast.Module):
        self._spans = sorted(((f.lineno, f.end_lineno or f.lineno, f) for f in walk_once(tree)
                              if isinstance(f, _FUNCTIONS)), key=lambda s: s[0])
        self._params: dict[int, frozenset[str]] = {id(f): _parameters(f) for _, _, f in self._spans}
        self._memo: dict[int, ast.AST | None] = {}

    def at(self, line: int) -> ast.AST | None:
        """The innermost function whose body holds ``line``; ``None`` at the module level."""
        if line not in self._memo:
            inner = None
            for start, end, fn in self._spans:
                if start > line:
                    break
                if line <= end:
                    inner = fn  # sorted by start: a later one that holds the line is nested inside
            self._memo[line] = inner
        return self._memo[line]

    def visible(self, name: str, line: int, binds: Sequence[B]) -> tuple[list[B], bool]:
        """The entries of ``binds`` (tuples whose first item is the line of an assignment of ``name``) that code on
        ``line`` sees, and whether ``name`` is a parameter of the function around ``line`` (then the caller's
        rows come before its own assignments)."""
        here = self.at(line)
        own = [b for b in binds if self.at(b[0]) is here]
        param = here is not None and name in self._params[id(here)]
        if own or param:
            return own, param
        module = [b for b in binds if self.at(b[0]) is None]
        return (module or list(binds)), False


__all__ = ["LineScopes"]

"""A flag that switches a helper between fitting and only transforming, for the static leakage analysis.

One helper serves the training rows and the held-out rows when a flag picks the call (mlops course code):

    def preprocess(df, dv, fit_dv=False):
        if fit_dv:
            X = dv.fit_transform(dicts)
        else:
            X = dv.transform(dicts)

The same switch is written with an early return, the code after the ``if`` serving as its ``else``::

    if train:
        return np.hstack([self.encoder.fit_transform(cats), nums])
    return np.hstack([self.encoder.transform(cats), nums])

(issue 17 wave 90: a sales forecaster's preprocessor, called with ``train=True`` for the training items and
``train=False`` for the validation items).

The caller passes ``fit_dv=True`` for the training month and ``False`` (or nothing) for the others, so with a
literal ``True``/``False`` bound to the flag only the branch that runs is followed (scikit-learn's own
``fit_transform`` / ``transform`` split: "fit on the training data, transform the test data"). Any other ``if``
on a literal flag runs both branches as before: a cache switch (``if read_cached: load ... else: compute and
save``) reads what the other branch wrote, so its lineage lives in the branch not taken.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it overrides
:meth:`faultlib.pyflow.interp.Interpreter._flag_picks`).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab


def _methods(body: list[ast.stmt]) -> set[str]:
    return {n.func.attr for s in body for n in ast.walk(s)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def _following(tree: ast.AST) -> dict[int, list[ast.stmt]]:
    """For each ``if`` without ``else`` whose body ends in ``return``/``raise``: the statements after it in its
    block, which run only when the body does not (its ``else``)."""
    out: dict[int, list[ast.stmt]] = {}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, s in enumerate(block):
                if isinstance(s, ast.If) and not s.orelse and s.body and isinstance(s.body[-1], (ast.Return, ast.Raise)):
                    out[id(s)] = block[i + 1:]
    return out


class FitSwitches:
    """A literal flag picks between a fitting branch and a transform-only one (see the module docstring)."""

    def _flag_picks(self, node: ast.If) -> bool:
        orelse = node.orelse
        if not orelse:
            following = self.__dict__.get("_switch_following")
            if following is None:
                following = self.__dict__["_switch_following"] = _following(self.tree)  # type: ignore[attr-defined]
            orelse = following.get(id(node), [])
        if not orelse:
            return False
        fitting = {vocab.FIT, *vocab.FIT_TRANSFORM}
        body, other = _methods(node.body), _methods(orelse)
        return bool(body & fitting and not other & fitting and other & vocab.TRANSFORM or
                    other & fitting and not body & fitting and body & vocab.TRANSFORM)

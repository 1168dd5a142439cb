"""A flag that switches a helper between fitting and only transforming, for the static leakage analysis.

One helper serves the training rows and the held-out rows when a flag picks the call (mlops course code):

    def preprocess(df, dv, fit_dv=False):
        if fit_dv:
            X = dv.fit_transform(dicts)
        else:
            X = dv.transform(dicts)

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


class FitSwitches:
    """A literal flag picks between a fitting branch and a transform-only one (see the module docstring)."""

    def _flag_picks(self, node: ast.If) -> bool:
        if not node.orelse:
            return False
        fitting = {vocab.FIT, *vocab.FIT_TRANSFORM}
        body, other = _methods(node.body), _methods(node.orelse)
        return bool(body & fitting and not other & fitting and other & vocab.TRANSFORM or
                    other & fitting and not body & fitting and body & vocab.TRANSFORM)

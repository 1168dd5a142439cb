"""A dictionary of candidate models picked by a key the analysis cannot know, for the static leakage analysis.

Helpers that train "the model named by the caller" keep the candidates in a literal dictionary and pick one by a
parameter::

    def train_and_score(name, params, X_tr, y_tr, X_te, y_te):
        models = {"forest": RandomForestClassifier(), "svm": SVC(), "knn": KNeighborsClassifier()}
        model = models[name]
        model.set_params(**params)
        model.fit(X_tr, y_tr)
        return accuracy_score(y_te, model.predict(X_te))

Whatever the key, the value is one of the models: it is fitted and scored like any of them. Without this the
pick was an unknown value and the helper's fit and score were invisible, so a search that calls the helper once
per candidate (a loop, an optuna objective: :mod:`.objectives`) and keeps the best by the test score it returns
was silent. Only a dictionary whose every value is a model is read so (a mix of scalers and functions is not
one kind of thing); the value is a new model named by the expression (``models[name]``).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import Const, Container


class ModelRegistries:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _subscript(self, base: Any, index_node: ast.expr, frame: Any, line: int) -> Any:
        if isinstance(base, Container) and base.items and isinstance(index_node, (ast.Name, ast.Attribute)) and all(
                isinstance(v, Est) and v.category == "model" for v in base.items.values()):
            index = self._expr(index_node, frame)  # type: ignore[attr-defined]
            if not isinstance(index, Const):
                supervised = any(v.supervised for v in base.items.values())
                return Est(f"{ast.unparse(index_node)[:30]} of {len(base.items)} models", "model",
                           supervised=supervised)
        return super()._subscript(base, index_node, frame, line)  # type: ignore[misc]


__all__ = ["ModelRegistries"]

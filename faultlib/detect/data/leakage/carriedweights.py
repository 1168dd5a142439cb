"""One Keras model fitted again on each pass of a loop that draws a new split: ``trained_on_test``.

Keras' ``Model.fit`` does not reset the weights: it "trains the model for a fixed number of epochs" starting from
the weights the model has (keras.io, "Model training APIs"; a second ``fit`` goes on training). scikit-learn's
``fit`` starts afresh ("calling fit() more than once will overwrite what was learned by any previous fit()",
scikit-learn glossary, *fit*); a Keras model does not. So repeated random splits or K folds that reuse one model
built before the loop::

    model = keras.Sequential([...]); model.compile(...)
    for i in range(5):
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5)   # or: for tr, te in KFold(5).split(X)
        model.fit(X_tr, y_tr, epochs=100)                                  # resumes from the last pass's weights
        print(model.evaluate(X_te, y_te))

score each pass's test rows with a model that was already trained on many of them in the earlier passes (their
training parts overlap this pass's test part): the average is optimistic (Kaufman, Rosset, Perlich & Stitelman,
"Leakage in data mining", TKDD 2012: information from the evaluation rows in the trained model). The fix builds
(or ``clone_model``s, or ``set_weights`` back to the initial weights) the model inside the loop.

:func:`carried_weights` finds this syntactically in one function or module: a ``for`` loop whose iterable walks a
splitter's folds or whose body calls ``train_test_split``; inside it ``m.fit(...)`` on a name ``m`` the loop
never rebinds (built before the loop, or a parameter of the function), with Keras evidence (``epochs=`` on the
call, or ``m.evaluate``/``m.compile`` in the module, or ``m`` built by ``Sequential``/``Model``), then
``m.evaluate``/``m.predict`` in the same loop; no reset of the weights in the loop (``set_weights``,
``load_weights``, ``clone_model``, ``reset_states``). A model built inside the loop, a loop over one fixed split
(more epochs scored on the same rows: :mod:`.kerasmodels`' rule), and a scikit-learn model stay silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

_SCORES = frozenset({"evaluate", "predict", "predict_classes", "predict_proba", "score"})
_RESETS = frozenset({"set_weights", "load_weights", "clone_model", "reset_states", "reset_parameters",
                     "build_model", "create_model", "make_model", "get_model"})
#: fit keywords only Keras takes (LightGBM, CatBoost and XGBoost also take `callbacks`, some `batch_size`: they
#: retrain from scratch on every `fit`)
_KERAS_FIT_KEYWORDS = frozenset({"epochs", "validation_split"})


@dataclass(frozen=True)
class CarriedFit:
    """``model.fit`` on ``fit_line`` inside the re-splitting loop starting at ``loop_line``, scored on ``score_line``."""

    model: str
    fit_line: int
    fit_column: int
    loop_line: int
    score_line: int


def _resplits(loop: ast.For) -> bool:
    if any(isinstance(c, ast.Call) and (call_name(c) == "split" or call_name(c) in vocab.SPLITTERS)
           for c in ast.walk(loop.iter)):
        return True
    return any(isinstance(c, ast.Call) and call_name(c) in vocab.SPLIT_FUNCTIONS
               for stmt in loop.body for c in ast.walk(stmt))


def _bound_in(loop: ast.For, name: str) -> bool:
    for n in (n for stmt in [loop.target, *loop.body] for n in ast.walk(stmt)):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
            return True
    return False


def _keras_names(tree: ast.Module) -> set[str]:
    """Names the module treats as Keras models: ``compile``d or ``evaluate``d, or built by ``Sequential``/``Model``."""
    out: set[str] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("compile", "evaluate") \
                and isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and call_name(n.value) in (
                "Sequential", "Model"):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return out


def carried_weights(tree: ast.Module) -> list[CarriedFit]:
    """Every :class:`CarriedFit` of ``tree`` (see the module docstring), the innermost re-splitting loop each."""
    keras = _keras_names(tree)
    out: dict[int, CarriedFit] = {}
    loops = sorted((n for n in walk_once(tree) if isinstance(n, ast.For) and _resplits(n)),
                   key=lambda n: -n.lineno)  # innermost (latest start) first
    for loop in loops:
        calls = [c for stmt in loop.body for c in ast.walk(stmt) if isinstance(c, ast.Call)]
        if any(call_name(c) in _RESETS for c in calls):
            continue
        for fit in calls:
            if not (isinstance(fit.func, ast.Attribute) and fit.func.attr == "fit" and isinstance(fit.func.value,
                                                                                                ast.Name)):
                continue
            name = fit.func.value.id
            if name in ("self", "cls"):  # the class's own fit method: what it rebuilds is the project's code
                continue
            if (fit.lineno, fit.col_offset) in {(f.fit_line, f.fit_column) for f in out.values()} or _bound_in(
                    loop, name):
                continue
            if not (name in keras or any(k.arg in _KERAS_FIT_KEYWORDS for k in fit.keywords)):
                continue
            score = next((c for c in calls if c.lineno >= fit.lineno and isinstance(c.func, ast.Attribute)
                          and c.func.attr in _SCORES and isinstance(c.func.value, ast.Name)
                          and c.func.value.id == name and c.args and not (isinstance(c.args[0], ast.Name)
                                                                          and vocab.looks_like_train(c.args[0].id))),
                         None)  # model.evaluate(X_train, ...): the training fit, not the held-out score
            if score is not None:
                out[id(fit)] = CarriedFit(name, fit.lineno, fit.col_offset, loop.lineno, score.lineno)
    return sorted(out.values(), key=lambda f: f.fit_line)


__all__ = ["CarriedFit", "carried_weights"]

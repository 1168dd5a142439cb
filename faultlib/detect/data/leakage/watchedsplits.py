"""Validation splits that choose nothing, for the static leakage analysis's split design.

A network is trained on overlapping windows of one series; the windows are split twice with shuffling::

    X1, X_test, y1, y_test = train_test_split(X, y, test_size=0.2)          # the reported test part
    X_train, X_val, y_train, y_val = train_test_split(X1, y1, test_size=0.2)
    history = model.fit(X_train, y_train, epochs=50, validation_data=(X_val, y_val))
    plt.plot(history.history["val_loss"])

The first split holds out the windows the test error is reported on: shuffled, neighbouring windows that share most
of their samples sit on both sides (``shuffled_time_split``). The second one carves validation windows out of the
training part, and they only feed ``validation_data`` of a ``fit`` with no callback: Keras then computes the
validation loss after each epoch and does nothing else with it (Keras API, ``Model.fit``: "Data on which to
evaluate the loss and any model metrics at the end of each epoch. The model will not be trained on this data";
only a callback -- ``EarlyStopping``, ``ModelCheckpoint``, ``ReduceLROnPlateau`` -- acts on it). No epoch, weight
or parameter is chosen by those rows and no score of them is reported, so the shuffle of that split leaks into
nothing (issue 17, wave 85: an hourly load forecaster; the house rule is that a validation split counts when its
score chooses, wave 84).

:func:`unwatched_validation_splits` finds such splits: a ``train_test_split`` assigned to two or four names, whose
first argument is the training part of another such split, and whose held-out names (the second and fourth) are
bound only there and read only inside ``validation_data=`` of ``fit`` calls that pass no ``callbacks``.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_SPLITS = frozenset({"train_test_split"})


def _split_names(node: ast.Assign) -> tuple[list[str], list[str], ast.expr | None] | None:
    """``(training names, held-out names, first argument)`` of ``a, b[, c, d] = train_test_split(x, ...)``."""
    value = node.value
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Tuple) or not isinstance(value, ast.Call):
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    elts = node.targets[0].elts
    if name not in _SPLITS or len(elts) not in (2, 4) or not all(isinstance(e, ast.Name) for e in elts):
        return None
    names = [e.id for e in elts]  # type: ignore[attr-defined]
    return names[0::2], names[1::2], value.args[0] if value.args else None


def _watched_only(node: ast.Call) -> bool:
    """A ``fit`` that passes no ``callbacks``: its validation data is evaluated, never acted on."""
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in ("fit", "fit_generator") and not any(
        k.arg == "callbacks" or k.arg is None for k in node.keywords)


def unwatched_validation_splits(tree: ast.AST) -> frozenset[int]:
    """The lines of the validation splits whose held-out rows choose nothing (see the module docstring)."""
    splits: list[tuple[ast.Assign, list[str], list[str], ast.expr | None]] = []
    stores: dict[str, int] = {}
    loads: dict[str, list[ast.Name]] = {}
    watched: set[int] = set()  # ids of the names read in validation_data= of a fit without callbacks
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and (found := _split_names(node)) is not None:
            splits.append((node, *found))
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append(node)
            else:
                stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            stores[node.arg] = stores.get(node.arg, 0) + 2
        elif isinstance(node, ast.Call) and _watched_only(node):
            for keyword in node.keywords:
                if keyword.arg == "validation_data":
                    watched.update(id(n) for n in ast.walk(keyword.value) if isinstance(n, ast.Name))
    training = {name for _, trains, _, _ in splits for name in trains}
    out: set[int] = set()
    for node, _, held, first in splits:
        if not isinstance(first, ast.Name) or first.id not in training:
            continue
        if all(stores.get(name) == 1 and loads.get(name) and all(id(n) in watched for n in loads[name])
               for name in held):
            out.add(node.value.lineno)
    return frozenset(out)


__all__ = ["unwatched_validation_splits"]

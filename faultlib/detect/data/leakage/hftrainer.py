"""Hugging Face ``Trainer`` runs that keep the best checkpoint by their evaluation set, for the static leakage
analysis (:mod:`~faultlib.detect.data.leakage.earlystop` reports them as ``tuned_on_test`` when that set is the
test part).

``trainer = Trainer(model=m, args=TrainingArguments(..., load_best_model_at_end=True, metric_for_best_model='f1'),
train_dataset=ds['train'], eval_dataset=ds['test'])`` then ``trainer.train()``: the run evaluates every epoch (or
``eval_steps``) on ``eval_dataset`` and, at the end, loads the checkpoint with the best metric on it (transformers
API reference, ``TrainingArguments.load_best_model_at_end``: "Whether or not to load the best model found during
training at the end of training"); ``EarlyStoppingCallback`` stops on the same metric and needs that flag
("Use with TrainingArguments metric_for_best_model and load_best_model_at_end"). The evaluation set chose the
weights, as Keras' ``EarlyStopping(restore_best_weights=True)`` on ``validation_data`` does. Without the flag and
the callback, the evaluations are only printed: nothing is chosen.

``ds['test']``: a ``DatasetDict`` keys its splits by name (datasets API reference, ``Dataset.train_test_split``
returns ``{'train', 'test'}``), so the key names the rows as a variable name would.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.spread import spread_key
from faultlib.detect.data.leakage.targets import node_name

#: trainer classes with the ``Trainer`` signature (transformers ``Trainer``/``Seq2SeqTrainer``; trl's subclasses)
TRAINERS = frozenset({"Trainer", "Seq2SeqTrainer", "SFTTrainer"})
_BEST = "load_best_model_at_end"


def _keyword(call: ast.Call, key: str, tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> ast.expr | None:
    found = next((k.value for k in call.keywords if k.arg == key), None)
    return found if found is not None else spread_key(call, key, tree, bindings)


def _calls(node: ast.expr | None, bindings: dict[str, list[ast.expr]], depth: int = 3) -> list[ast.Call]:
    """The calls ``node`` is, or a name was assigned (``depth`` assignments back)."""
    if isinstance(node, ast.Call):
        return [node]
    if isinstance(node, ast.Name) and depth:
        return [c for v in bindings.get(node.id, [])[:4] for c in _calls(v, bindings, depth - 1)]
    return []


def best_checkpoint(receiver: ast.expr, tree: ast.Module,
                    bindings: dict[str, list[ast.expr]]) -> tuple[ast.Call, ast.expr, str] | None:
    """``(trainer call, eval_dataset expression, how)`` when ``receiver`` (of ``.train()``) is a ``Trainer`` that
    keeps its best checkpoint by ``eval_dataset``; else ``None``."""
    for call in _calls(receiver, bindings):
        if node_name(call.func) not in TRAINERS:
            continue
        evaluated = _keyword(call, "eval_dataset", tree, bindings)
        if evaluated is None:
            continue
        callbacks = _keyword(call, "callbacks", tree, bindings)
        if callbacks is not None and any(isinstance(n, ast.Call) and node_name(n.func) == "EarlyStoppingCallback"
                                         for n in ast.walk(callbacks)):
            return call, evaluated, "EarlyStoppingCallback(...)"
        for arguments in _calls(_keyword(call, "args", tree, bindings) or (call.args[1] if len(call.args) > 1
                                                                            else None), bindings):
            best = _keyword(arguments, _BEST, tree, bindings)
            if isinstance(best, ast.Constant) and best.value is True:
                return call, evaluated, f"{_BEST}=True"
    return None


__all__ = ["TRAINERS", "best_checkpoint"]

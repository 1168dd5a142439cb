"""A Hugging Face ``Trainer`` whose reported score is the best checkpoint's own score on the set that chose it.

:mod:`~faultlib.detect.data.leakage.hftrainer` finds a ``Trainer`` that keeps its best checkpoint by
``eval_dataset`` (``load_best_model_at_end=True`` or an ``EarlyStoppingCallback``); :mod:`.earlystop` reports it
when that set is named for testing. A set named for validation (``tokenized_val``, ``ds['validation_matched']``)
is silent there, because the script usually scores a separate test set afterwards. This module answers the case
where it does not::

    trainer = Trainer(model=m, args=TrainingArguments(..., load_best_model_at_end=True),
                      train_dataset=tok_train, eval_dataset=tok_val)
    trainer.train()
    results = trainer.evaluate()          # no dataset: eval_dataset again

``Trainer.evaluate()`` without a dataset scores ``eval_dataset`` (transformers API reference, ``Trainer.evaluate``:
"eval_dataset ... If it is not provided, it will use self.eval_dataset"), i.e. the very rows whose score picked the
checkpoint, and the script scores no other rows with that trainer: the reported number is the best of every
epoch's look at them (Cawley & Talbot, JMLR 11, 2010). Issue 17, wave 74 (a course's NLI fine-tuning notebook,
four trainers) and wave 42 (the same pattern on a set named ``test``).

Silent: the trainer also evaluates or predicts on a dataset it is given (``trainer.evaluate(test_ds)``,
``trainer.predict(test_ds)``): that later score is the reported one and the evaluation set was a validation set.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: the trainer's methods that score rows
_SCORERS = frozenset({"evaluate", "predict"})


def _scoring_calls(tree: ast.Module, name: str) -> list[ast.Call]:
    return [n for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in _SCORERS and isinstance(n.func.value, ast.Name) and n.func.value.id == name]


def _given_rows(call: ast.Call) -> bool:
    """``evaluate(ds)`` / ``evaluate(eval_dataset=ds)`` / ``predict(ds)``: rows other than ``eval_dataset``."""
    return bool(call.args) or any(k.arg in ("eval_dataset", "test_dataset") or k.arg is None for k in call.keywords)


def rescored_alone(receiver: ast.expr, tree: ast.Module) -> bool:
    """``receiver`` (of ``.train()``) is a name whose ``evaluate()`` is called without a dataset, and which never
    evaluates or predicts on a dataset it is given (see the module docstring)."""
    if not isinstance(receiver, ast.Name):
        return False
    calls = _scoring_calls(tree, receiver.id)
    plain = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "evaluate"]
    return any(not _given_rows(c) for c in plain) and not any(_given_rows(c) for c in calls)


__all__ = ["rescored_alone"]

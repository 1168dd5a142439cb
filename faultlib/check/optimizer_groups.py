"""``faultlib check state-dict CKPT --model F:NAME --optimizer F:NAME``: the saved optimizer state vs the
optimizer the resume code rebuilds.

``FACTORY(model)`` from ``FILE.py`` returns a ``torch.optim.Optimizer`` over the model that ``--model``
built (read and run like ``--model``: :mod:`faultlib.readers.pymodule`). Its groups (parameter names from
``model.named_parameters()``, shapes) are compared with every optimizer state in the checkpoint by
:func:`faultlib.detect.checkpoints.optimizer_state.check_optimizer_groups`: group count, group sizes, and
the per-parameter state at each position; the findings name the group and parameter that would get the
wrong state and propose the mapping (by ``param_names``, or by unique shapes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from faultlib.check.base import CheckResult
from faultlib.errors import InputError

POSITIONAL = ("optimizer_state_order", "optimizer_state_mismatch")


def rebuild_optimizer(target: str, model: Any) -> Any:
    """``FACTORY(model)`` from ``FILE.py:FACTORY``.

    Raises:
        InputError: not ``FILE.py:FACTORY``, does not import, no ``FACTORY``, it raised, or it did not return a
            ``torch.optim.Optimizer``.
    """
    import torch

    from faultlib.readers.pymodule import load_module, resolve, user_code, user_line

    file, sep, name = target.rpartition(":")
    if not sep or not file or not name:
        raise InputError(f"--optimizer must be FILE.py:FACTORY, got {target!r}", field="--optimizer")
    path = Path(file)
    with user_code(path):
        factory = resolve(load_module(path, option="--optimizer"), path, name, "--optimizer")
        if not callable(factory):
            raise InputError(f"{name} is a {type(factory).__name__}: FACTORY must be a function of the model",
                             path=str(path), field=name)
        try:
            optimizer = factory(model)
        except Exception as exc:  # noqa: BLE001 - the user's code
            raise InputError(f"{name}(model) raised {type(exc).__name__}: {exc}", path=str(path),
                             line=user_line(exc, path), field=name) from None
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise InputError(f"{name}(model) returned a {type(optimizer).__name__}, not a torch.optim.Optimizer",
                         path=str(path), field=name)
    return optimizer


def check_rebuilt_optimizer(result: CheckResult, content: Any, model: Any, target: str, rules: list) -> None:
    """Add ``rebuilt_optimizer`` (the report on the checkpoint's first optimizer state) and its findings to
    ``result``; ``rules`` is the checkpoint's key remap (saved ``param_names`` are renamed by it).

    Raises:
        InputError: the checkpoint holds no optimizer state, or ``FACTORY`` is wrong (see :func:`rebuild_optimizer`).
    """
    from faultlib.detect.checkpoints.optimizer_state import Param, check_optimizer_groups
    from faultlib.detect.checkpoints.remap import apply_rules
    from faultlib.detect.checkpoints.state_dict import find_optimizer_states

    states = find_optimizer_states(content)
    if not states:
        raise InputError("holds no optimizer state ({'state', 'param_groups'}) to check against --optimizer",
                         path=result.fields["checkpoint"], field="--optimizer")
    optimizer = rebuild_optimizer(target, model)
    names = {id(p): n for n, p in model.named_parameters()}
    current = [[Param(names.get(id(p), f"<unnamed {i}>"), tuple(p.shape), p.requires_grad)
                for i, p in enumerate(group["params"])] for group in optimizer.param_groups]
    location, saved = states[0]
    report = check_optimizer_groups(saved, current, location=location or "(top level)",
                                    rename=lambda name: apply_rules(rules, name))
    result.fields["rebuilt_optimizer"] = report.fields()
    # the positional check of ``compare`` assumes the optimizer was built over the model's parameters in
    # order; the rebuilt optimizer is the real order, so its findings replace those
    result.findings[:] = [f for f in result.findings if f.kind not in POSITIONAL] + report.findings()

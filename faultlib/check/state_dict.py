"""``faultlib check state-dict CKPT (--model FILE.py:FACTORY | --reference CKPT2) [--key PATH]``.

Does a checkpoint fit a model, and if not, which key remap makes it fit? The checkpoint is read with
``torch.load(weights_only=True)`` (or the safetensors header parser) after its bytes are identified
(:mod:`faultlib.detect.checkpoints.reader`); the state dict is found inside trainer checkpoints by
itself; keys and shapes are compared with the model's (``--model``: ``FACTORY()`` from ``FILE.py``,
or ``--reference``: another checkpoint's state dict) and the remap is inferred
(:mod:`faultlib.detect.checkpoints.remap`); a saved optimizer state is checked against the model's parameter
order (:mod:`faultlib.detect.checkpoints.optimizer_state`).

JSON fields (besides ``detector``, ``ok``, ``findings``): ``checkpoint``, ``format``,
``state_dict_location`` (dotted, ``""`` = the file is the state dict), ``candidates``, ``reference``,
``remap`` (``[{kind, from, to, cause, keys}]``, applied in order), ``before`` (``{missing,
unexpected}`` counts without the remap), ``missing``, ``unexpected``, ``shape_mismatch`` (``{model
key: {checkpoint, model, checkpoint_key}}``) after the remap, ``renamed`` (keys the remap changes),
``optimizer`` (``{location, source, parameters, groups, order_ok, moved, moved_count, mismatched,
count_problem}`` or ``null``); with ``--optimizer``, ``rebuilt_optimizer`` (``{location, saved_sizes,
current_sizes, misplaced, misplaced_count, mapping, mapping_source}``, see
:mod:`faultlib.check.optimizer_groups`).

Importing the user's file is what ``--model`` is for: ``FILE.py`` is read through the hardened
reader and executed with importlib as a fresh module, its directory first on ``sys.path`` while it
runs (see :func:`faultlib.check.batching.load_module`); nothing goes through a shell. Its prints go
to stderr so ``--json`` stays one object on stdout.

Exit codes: 0 when the checkpoint fits as it is (no finding at or above ``--fail-on``), 1 when it
needs a remap or does not fit, 2 when a file is not what it claims (empty, truncated, not a
checkpoint, a pickle with unsafe globals: nothing unpickles arbitrary objects), holds no state dict,
``--key`` is wrong, or ``FILE.py:FACTORY`` cannot be loaded (the message names the file and key).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.errors import InputError

__getattr__ = lazy_kinds("faultlib.detect.checkpoints.state_dict")
__all__ = ["KINDS", "command", "load_model", "reference_params"]

BUFFER_LEAVES = ("running_mean", "running_var", "num_batches_tracked", "_extra_state")






def load_model(target: str) -> tuple[Any, dict[str, Any]]:
    """``FACTORY()`` from ``FILE.py:FACTORY``: a ``torch.nn.Module`` (a class or a zero-argument function).

    Returns:
        ``(model, {"model": target, "class": class name})``.

    Raises:
        InputError: not ``FILE.py:FACTORY``, not a ``.py`` file, missing, does not import, no ``FACTORY``,
            ``FACTORY()`` raised, or returned something that is not a ``torch.nn.Module``.
    """
    from torch import nn

    from faultlib.readers.pymodule import load_module, resolve, user_code, user_line

    file, sep, name = target.rpartition(":")
    if not sep or not file or not name:
        raise InputError(f"--model must be FILE.py:FACTORY, got {target!r}", field="--model")
    path = Path(file)
    with user_code(path):
        module = load_module(path, option="--model")
        factory = resolve(module, path, name, "--model")
        if not callable(factory):
            raise InputError(f"{name} is a {type(factory).__name__}: FACTORY must be a Module class or a "
                             "zero-argument function", path=str(path), field=name)
        try:
            model = factory()
        except Exception as exc:  # noqa: BLE001 - the user's constructor
            raise InputError(f"{name}() raised {type(exc).__name__}: {exc}", path=str(path),
                             line=user_line(exc, path), field=name) from None
    if not isinstance(model, nn.Module):
        raise InputError(f"{name}() returned a {type(model).__name__}, not a torch.nn.Module", path=str(path),
                         field=name)
    return model, {"model": target, "class": type(model).__name__}


def reference_params(content: Any, state_dict: dict[str, Any]) -> list:
    """The parameter order of a reference checkpoint: its optimizer's ``param_names`` when it has them, else its
    state-dict keys without buffers (``running_mean``, ``running_var``, ``num_batches_tracked``, extra state)."""
    from faultlib.detect.checkpoints.optimizer_state import Param
    from faultlib.detect.checkpoints.state_dict import find_optimizer_states, shapes_of

    shapes = shapes_of(state_dict)
    for _, optimizer in find_optimizer_states(content):
        names = [n for g in optimizer["param_groups"] for n in (g.get("param_names") or [])]
        if names and all(n in shapes for n in names):
            return [Param(n, shapes[n]) for n in names]
    return [Param(k, s) for k, s in shapes.items() if not k.endswith(BUFFER_LEAVES)]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    where = f"{f['state_dict_location']!r} in" if f["state_dict_location"] else "the whole of"
    lines = [("state dict", f"{where} {f['checkpoint']} ({f['format']})")]
    ref = f["reference"]
    if "checkpoint" in ref:   # --reference: another checkpoint, not a model
        at = f"{ref['state_dict_location']!r} in " if ref["state_dict_location"] else ""
        lines.append(("compared with", f"the reference checkpoint's state dict ({at}{ref['checkpoint']})"))
    else:
        lines.append(("compared with", f"the model {ref['model']} ({ref['class']})"))
    for rule in f["remap"]:
        lines.append(("remap", f"{rule['kind']} {rule['from']!r} -> {rule['to']!r} ({rule['keys']} keys)"))
    lines.append(("before remap", f"{f['before']['missing']} missing, {f['before']['unexpected']} unexpected"))
    lines.append(("after remap", f"{len(f['missing'])} missing, {len(f['unexpected'])} unexpected, "
                                 f"{len(f['shape_mismatch'])} shape mismatches"))
    if f["optimizer"]:
        o = f["optimizer"]
        lines.append(("optimizer", f"{o['location']}: {o['parameters']} parameters, order "
                                   f"{'ok' if o['order_ok'] else 'differs'} ({o['source']})"))
    if f.get("rebuilt_optimizer"):
        r = f["rebuilt_optimizer"]
        lines.append(("rebuilt optimizer", f"groups {r['current_sizes']} vs saved {r['saved_sizes']}, "
                                           f"{r['misplaced_count']} misplaced"
                                           + (f", mapping by {r['mapping_source']}" if r["mapping"] else "")))
    return lines


@check_command("state-dict", summary=_summary,
               help="Does checkpoint CKPT fit a model? Finds the state dict inside trainer checkpoints, compares "
                    "keys and shapes with --model FILE.py:FACTORY (FACTORY() returns the nn.Module) or with "
                    "--reference CKPT2, infers the remap (module. / _orig_mod. / wrapper prefixes, infixes, renamed "
                    "layers) and checks that a saved optimizer state lands on the right parameters.")
@click.argument("checkpoint", metavar="CKPT")
@click.option("--model", "model_target", metavar="FILE.py:FACTORY", default=None,
              help="The model: FACTORY() in FILE.py returns the torch.nn.Module (a class or a function).")
@click.option("--reference", metavar="CKPT2", default=None, help="Compare with this checkpoint's state dict instead.")
@click.option("--key", metavar="PATH", default=None,
              help="Where the state dict is inside CKPT (dotted: state_dict, model, checkpoint.model); default: found.")
@click.option("--optimizer", "optimizer_target", metavar="FILE.py:FACTORY", default=None,
              help="With --model: FACTORY(model) rebuilds the optimizer as the resume code does; the saved optimizer "
                   "state's group count, group sizes and per-parameter state are checked against it.")
def command(checkpoint: str, model_target: str | None, reference: str | None, key: str | None,
            optimizer_target: str | None = None) -> CheckResult:
    """Compare CKPT with the model or the reference (see the module docstring).

    Raises:
        InputError: exit 2 (see the module docstring).
    """
    from faultlib.detect.checkpoints.reader import read_checkpoint
    from faultlib.detect.checkpoints.optimizer_state import Param
    from faultlib.detect.checkpoints.state_dict import compare, select, shapes_of

    if (model_target is None) == (reference is None):
        raise InputError("give exactly one of --model FILE.py:FACTORY or --reference CKPT2", field="--model")
    loaded = read_checkpoint(checkpoint)
    if model_target is not None:
        model, described = load_model(model_target)
        shapes = shapes_of(model.state_dict())
        params = [Param(n, tuple(p.shape), p.requires_grad) for n, p in model.named_parameters()]
    else:
        other = read_checkpoint(reference)
        location, state_dict, _ = select(other.content, path=reference)
        shapes = shapes_of(state_dict)
        params = reference_params(other.content, dict(state_dict))
        described = {"checkpoint": reference, "state_dict_location": location}
    report = compare(loaded.content, shapes, params=params, key=key, path=checkpoint,
                     against="model" if model_target is not None else "reference")
    result = CheckResult("state-dict", report.findings(),
                         {"checkpoint": checkpoint, "format": loaded.format, "reference": described, **report.fields()})
    if optimizer_target is not None:
        from faultlib.check.optimizer_groups import check_rebuilt_optimizer

        if model_target is None:
            raise InputError("--optimizer needs --model (FACTORY(model) builds the optimizer)", field="--optimizer")
        check_rebuilt_optimizer(result, loaded.content, model, optimizer_target, report.remap.rules)
    return result

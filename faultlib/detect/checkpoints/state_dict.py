"""Does a checkpoint fit a model? Where its state dict is, the remap that makes it fit, what still does not.

A checkpoint saved by a trainer is rarely the bare ``model.state_dict()``: it sits under
``state_dict`` (Lightning), ``model`` (fairseq, detectron2), ``model_state_dict`` (the PyTorch
tutorial), ``module`` (DeepSpeed), beside the optimizer, the step and the RNG states. Its keys carry
the wrappers the training run had (``module.`` from DataParallel/DDP, ``_orig_mod.`` from
``torch.compile``, ``model.`` from a LightningModule) and the names of layers before a refactor.
``model.load_state_dict(sd)`` then fails with a wall of missing and unexpected keys, or, with
``strict=False``, loads nothing and serves a randomly initialised model.

- :func:`find_state_dicts` lists every state dict inside a loaded checkpoint (a mapping of string
  keys to tensors), known names first; :func:`select` picks the one that fits the model best.
- :func:`compare` infers the remap (:mod:`faultlib.detect.checkpoints.remap`) and checks the optimizer state
  (:mod:`faultlib.detect.checkpoints.optimizer_state`); :class:`StateDictReport` gives the findings (kinds in
  :data:`KINDS`) and the JSON fields of ``faultlib check state-dict``.
- :func:`safe_load_state_dict` (also ``faultlib.safe_load_state_dict``) reads the file safely,
  applies the remap, loads with ``strict=True``, and raises :class:`StateDictMismatch` when anything
  is still missing or of another shape.

Files are read only through :func:`faultlib.detect.checkpoints.reader.read_checkpoint`
(``torch.load(weights_only=True)`` or the safetensors parser).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from faultlib.detect.checkpoints.optimizer_state import (GROUP_KINDS, OptimizerReport, Param, check_optimizer_order,
                                                        is_optimizer_state)
from faultlib.detect.checkpoints.remap import Remap, RemapRule, apply_rules, describe, evaluate, infer_remap
from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

__all__ = ["KINDS", "LoadReport", "StateDictMismatch", "StateDictReport", "compare", "find_optimizer_states",
           "find_state_dicts", "is_state_dict", "safe_load_state_dict", "select", "shapes_of"]

DETECTOR = "state-dict"
KINDS = {
    "wrapper_prefix": "every key carries (or lacks) a wrapper prefix: `module.` (DataParallel/DDP), `_orig_mod.` "
                      "(torch.compile), or a wrapper attribute (`model.`, `backbone.`); the remap fixes it",
    "key_infix": "keys carry a wrapper segment in the middle (a submodule was wrapped or compiled); the remap fixes it",
    "renamed_layer": "a layer's keys fit a differently named layer of the model by parameter names, shapes and "
                     "position; the remap renames it: confirm it is the same layer",
    "missing_keys": "model keys that no checkpoint key lands on, even after the remap: load_state_dict(strict=True) "
                    "raises, strict=False leaves them randomly initialised",
    "unexpected_keys": "checkpoint keys that fit no model key, even after the remap",
    "shape_mismatch": "a checkpoint tensor lands on a model key of another shape (e.g. a new number of classes)",
    "optimizer_state_order": "the saved optimizer state would land on other parameters: load_state_dict matches by "
                             "position and the layers were declared in another order",
    "optimizer_state_mismatch": "the saved optimizer state does not fit the model's parameters (count or shapes)",
    **GROUP_KINDS,  # check state-dict --optimizer: the rebuilt optimizer's groups
}
#: where trainers keep the model's state dict, tried in this order
STATE_DICT_NAMES = ("state_dict", "model_state_dict", "model", "module", "model_state", "net", "network", "weights",
                    "params", "generator", "state_dict_ema", "model_ema", "ema")
MAX_DEPTH = 4
MAX_LISTED = 50
MAX_RULE_FINDINGS = 20


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "numel")


def is_state_dict(value: Any) -> bool:
    """A non-empty mapping of string keys to tensors (``*._extra_state`` entries may be anything)."""
    return (isinstance(value, Mapping) and len(value) > 0 and all(isinstance(k, str) for k in value)
            and any(_is_tensor(v) for v in value.values())
            and all(_is_tensor(v) or k.endswith("_extra_state") for k, v in value.items()))


def shapes_of(state_dict: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """``{key: shape}`` of a state dict, in its order (``()`` for non-tensor extra state)."""
    return {k: tuple(v.shape) if _is_tensor(v) else () for k, v in state_dict.items()}


def _walk(content: Any, depth: int = 0, path: tuple[str, ...] = ()) -> Iterable[tuple[str, Any]]:
    """``(dotted location, value)`` of every mapping and sequence element, breadth by depth."""
    yield ".".join(path), content
    if depth >= MAX_DEPTH or is_state_dict(content) or is_optimizer_state(content):
        return
    if isinstance(content, Mapping):
        items = [(str(k), v) for k, v in content.items() if isinstance(k, (str, int))]
    elif isinstance(content, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(content)]
    else:
        return
    for name, value in items:
        yield from _walk(value, depth + 1, path + (name,))


def _priority(location: str) -> tuple[int, int, str]:
    last = location.rsplit(".", 1)[-1]
    rank = STATE_DICT_NAMES.index(last) if last in STATE_DICT_NAMES else len(STATE_DICT_NAMES)
    return location.count(".") + (location != ""), rank, location


def find_state_dicts(content: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """Every state dict in a loaded checkpoint, as ``(location, state dict)``, shallowest and best-named first.

    ``location`` is the dotted path of keys (list positions as numbers) from the top of the file:
    ``""`` when the file is the state dict itself, ``state_dict``, ``model``, ``checkpoint.model``...
    Optimizer states are never state dicts; nothing deeper than 4 levels is searched.
    """
    found = [(loc, value) for loc, value in _walk(content) if is_state_dict(value)]
    return sorted(found, key=lambda item: _priority(item[0]))


def find_optimizer_states(content: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """Every ``optimizer.state_dict()`` in a loaded checkpoint, as ``(location, state)``, shallowest first."""
    return [(loc, value) for loc, value in _walk(content) if is_optimizer_state(value)]


def _resolve(content: Any, key: str) -> Any:
    value = content
    remaining = key
    while remaining:
        if isinstance(value, Mapping) and remaining in value:
            return value[remaining]
        head, _, rest = remaining.partition(".")
        if isinstance(value, Mapping) and head in value:
            value = value[head]
        elif isinstance(value, (list, tuple)) and head.isdigit() and int(head) < len(value):
            value = value[int(head)]
        else:
            raise KeyError(key)
        remaining = rest
    return value


def _fit(state_dict: Mapping[str, Any], model_shapes: Mapping[str, Sequence[int]]) -> int:
    remap = infer_remap(shapes_of(state_dict), model_shapes)
    return sum(1 for k, v in remap.mapping.items() if v in model_shapes and k not in remap.unexpected) \
        - len(remap.shape_mismatch)


def select(content: Any, *, key: str | None = None, model_shapes: Mapping[str, Sequence[int]] | None = None,
           path: Path | str | None = None) -> tuple[str, Mapping[str, Any], list[str]]:
    """The state dict to compare: the one at ``key``, or the candidate that fits ``model_shapes`` best.

    Args:
        content: a loaded checkpoint.
        key: dotted location to use (``--key``), skipping the search.
        model_shapes: the model's ``{key: shape}``; among several candidates (``model`` and ``ema``) the one
            with most keys landing on a model key of the same shape wins, ties by name (:data:`STATE_DICT_NAMES`).
        path: the file, for messages.

    Returns:
        ``(location, state dict, every candidate location)``.

    Raises:
        InputError: no state dict in the file, or ``key`` missing or not a state dict (the message lists the
            candidates).
    """
    candidates = find_state_dicts(content)
    names = [loc for loc, _ in candidates]
    listed = ", ".join(repr(n) for n in names) or "none"
    if key is not None:
        try:
            value = _resolve(content, key)
        except KeyError:
            raise InputError(f"no {key!r} in the checkpoint; state dicts found at: {listed}", path=path,
                             field=key) from None
        if not is_state_dict(value):
            raise InputError(f"{key!r} is a {type(value).__name__}, not a state dict (string keys to tensors); "
                             f"state dicts found at: {listed}", path=path, field=key)
        return key, value, names
    if not candidates:
        top = sorted(map(str, content))[:12] if isinstance(content, Mapping) else type(content).__name__
        raise InputError(f"holds no state dict (a mapping of names to tensors) within {MAX_DEPTH} levels; it holds "
                         f"{top}", path=path)
    if model_shapes is None or len(candidates) == 1:
        return candidates[0][0], candidates[0][1], names
    best = max(candidates, key=lambda item: (_fit(item[1], model_shapes), -names.index(item[0])))
    return best[0], best[1], names


@dataclass
class StateDictReport:
    """What :func:`compare` found: location, remap, what still does not fit, and the optimizer check.

    Attributes:
        location: where the state dict is in the file (``""``: the file is the state dict).
        candidates: every state-dict location in the file.
        remap: the inferred :class:`~faultlib.detect.checkpoints.remap.Remap`.
        optimizer: the :class:`~faultlib.detect.checkpoints.optimizer_state.OptimizerReport`, or None without optimizer state.
        path: the checkpoint file, for finding locations.
        against: what the checkpoint is compared with, in the messages: ``model`` (a model's ``state_dict()``)
            or ``reference`` (another checkpoint's state dict, ``--reference``).
    """

    location: str
    candidates: list[str]
    remap: Remap
    optimizer: OptimizerReport | None = None
    path: str | None = None
    state_dict: Mapping[str, Any] | None = field(default=None, repr=False)
    against: str = "model"

    def findings(self) -> list[Finding]:
        """One finding per remap rule (the first 20; the rest in one more), then missing / unexpected (one each),
        one per shape mismatch (the first 50), then the optimizer's (see :data:`KINDS`)."""
        out = []  # locations name keys: the file is the check's own `checkpoint` field
        names = {k: k for k in self.remap.mapping}
        rules, rest = self.remap.rules[:MAX_RULE_FINDINGS], self.remap.rules[MAX_RULE_FINDINGS:]
        for rule in rules:
            kind, cause = describe(rule.kind, rule.source, rule.target)
            example = None
            for original, name in names.items():
                names[original] = rule.apply(name)
                if example is None and names[original] != name:
                    example = original
            out.append(Finding(DETECTOR, Severity.WARNING,
                               f"{rule.keys} keys: {cause}; remap {rule.kind} {rule.source!r} -> {rule.target!r}",
                               {"key": example} if example else {},
                               {"rule": rule.to_json(), "example": ({"checkpoint": example,
                                                                     "model": self.remap.mapping[example]}
                                                                    if example else None)}, kind=kind))
        if rest:
            kinds = sorted({describe(rule.kind, rule.source, rule.target)[0] for rule in rest})
            out.append(Finding(DETECTOR, Severity.WARNING,
                               f"{len(rest)} more remap rules ({sum(rule.keys for rule in rest)} keys), "
                               f"{', '.join(kinds)}: this many renames suggests another model than the one that "
                               "saved the checkpoint", {}, {"rules": [rule.to_json() for rule in rest[:MAX_LISTED]]},
                               kind="renamed_layer" if kinds == ["renamed_layer"] else kinds[0]))
        r = self.remap
        if r.missing:
            out.append(Finding(DETECTOR, Severity.ERROR,
                               f"{len(r.missing)} {self.against} keys get no checkpoint tensor even after the remap "
                               f"(first: {r.missing[0]})", {"key": r.missing[0]},
                               {"count": len(r.missing), "keys": r.missing[:MAX_LISTED]}, kind="missing_keys"))
        if r.unexpected:
            out.append(Finding(DETECTOR, Severity.WARNING,
                               f"{len(r.unexpected)} checkpoint keys fit no {self.against} key even after the remap "
                               f"(first: {r.unexpected[0]})", {"key": r.unexpected[0]},
                               {"count": len(r.unexpected), "keys": r.unexpected[:MAX_LISTED]}, kind="unexpected_keys"))
        for model_key, shapes in list(r.shape_mismatch.items())[:MAX_LISTED]:
            out.append(Finding(DETECTOR, Severity.ERROR,
                               f"{shapes['checkpoint_key']} has shape {shapes['checkpoint']}, the {self.against}'s {model_key} "
                               f"has {shapes['model']}", {"key": model_key}, dict(shapes),
                               kind="shape_mismatch"))
        if self.optimizer is not None:
            out.extend(self.optimizer.findings())
        return out

    def fields(self) -> dict[str, Any]:
        """The JSON fields of ``faultlib check state-dict`` (besides detector, ok, findings)."""
        r = self.remap
        return {"state_dict_location": self.location, "candidates": self.candidates,
                "remap": [rule.to_json() for rule in r.rules], "before": dict(r.before),
                "missing": r.missing, "unexpected": r.unexpected, "shape_mismatch": r.shape_mismatch,
                "renamed": len(r.renamed()),
                "optimizer": self.optimizer.fields() if self.optimizer else None}


def compare(content: Any, model_shapes: Mapping[str, Sequence[int]], *, params: Sequence[Param] | None = None,
            key: str | None = None, remap: Sequence[RemapRule] | None = None,
            path: Path | str | None = None, against: str = "model") -> StateDictReport:
    """Compare a loaded checkpoint with a model's keys and shapes, and its optimizer state with the model's
    parameter order.

    Args:
        content: the loaded checkpoint (:attr:`Checkpoint.content`).
        model_shapes: the model's ``{state-dict key: shape}`` in ``state_dict()`` order.
        params: the model's parameters in ``named_parameters()`` order; without them the optimizer is not checked.
        key: the state dict's location (``--key``), else found by :func:`select`.
        remap: rules to use instead of inferring them.
        path: the checkpoint file, for messages and finding locations.
        against: ``model`` or ``reference``: what ``model_shapes`` came from, in the messages.

    Returns:
        :class:`StateDictReport`.

    Raises:
        InputError: no state dict found, or ``key`` is wrong; ValueError from hand-written rules that send
            two keys to one name.
    """
    location, state_dict, candidates = select(content, key=key, model_shapes=model_shapes, path=path)
    shapes = shapes_of(state_dict)
    result = infer_remap(shapes, model_shapes) if remap is None else evaluate(remap, shapes, model_shapes)
    optimizer = None
    if params is not None:
        found = find_optimizer_states(content)
        if found:
            opt_location, opt_state = found[0]
            param_names = {p.name for p in params}
            saved = [result.mapping[k] for k in state_dict if result.mapping[k] in param_names]
            optimizer = check_optimizer_order(opt_state, saved_params=saved, params=params,
                                              rename=lambda name: apply_rules(result.rules, name),
                                              location=opt_location, detector=DETECTOR)
    return StateDictReport(location, candidates, result, optimizer, str(path) if path is not None else None,
                           state_dict, against)


# ------------------------------------------------------------------------------------------------- loading


class StateDictMismatch(InputError):
    """The checkpoint does not fit the model even after the remap (raised by :func:`safe_load_state_dict`).

    Attributes:
        report: the :class:`StateDictReport` (missing, unexpected, shape_mismatch, rules).
    """

    def __init__(self, message: str, *, path: Path | str | None, key: str | None, report: StateDictReport):
        self.report = report
        super().__init__(message, path=path, field=key)


@dataclass
class LoadReport:
    """What :func:`safe_load_state_dict` did.

    Attributes:
        location: where the state dict was in the file.
        rules: the remap rules applied, in order.
        before: ``{"missing", "unexpected"}`` counts without the remap.
        loaded: number of tensors loaded.
        ignored: checkpoint keys left out (only with ``allow_unexpected=True``).
    """

    location: str
    rules: list[RemapRule]
    before: dict[str, int]
    loaded: int
    ignored: list[str]


def _listed(keys: Sequence[str], n: int = 5) -> str:
    return ", ".join(keys[:n]) + (f" (+{len(keys) - n} more)" if len(keys) > n else "")


def safe_load_state_dict(model: Any, source: Path | str | Mapping[str, Any], *, key: str | None = None,
                         remap: Sequence[RemapRule | Mapping[str, str]] | None = None,
                         allow_unexpected: bool = False) -> LoadReport:
    """Load a checkpoint into ``model`` through the inferred key remap, or fail loudly.

    The file is read with :func:`~faultlib.detect.checkpoints.reader.read_checkpoint`
    (``torch.load(weights_only=True)``, or safetensors), the state dict is found inside it
    (:func:`select`), the remap is inferred against ``model.state_dict()`` (or ``remap`` is used), and
    the remapped tensors are loaded with ``model.load_state_dict(..., strict=True)``. Loading happens
    only when every model key gets a tensor of its shape.

    Args:
        model: a ``torch.nn.Module`` (bare, DataParallel-wrapped or compiled: its own keys are the target).
        source: a checkpoint path, or an already loaded checkpoint (``Checkpoint.content``, a dict).
        key: where the state dict is inside the file (dotted), else found automatically.
        remap: rules (``RemapRule`` or ``{"kind", "from", "to"}`` dicts) to apply instead of inferring them.
        allow_unexpected: leave out checkpoint keys that fit no model key instead of raising (default False).

    Returns:
        :class:`LoadReport`.

    Raises:
        StateDictMismatch: model keys still missing, tensors of another shape, or (unless
            ``allow_unexpected``) leftover checkpoint keys; nothing was loaded.
        UnloadableCheckpoint: the file is empty, truncated, not a checkpoint, or imports unsafe globals.
        InputError: the file cannot be read safely, or holds no state dict.
    """
    from faultlib.detect.checkpoints.reader import read_checkpoint

    if isinstance(source, (str, Path)):
        path: Path | None = Path(source)
        content = read_checkpoint(source).content
    else:
        path, content = None, source
    target = model.state_dict()
    rules = None if remap is None else [r if isinstance(r, RemapRule) else RemapRule.from_json(r) for r in remap]
    report = compare(content, shapes_of(target), key=key, remap=rules, path=path)
    result = report.remap
    problems = []
    if result.missing:
        problems.append(f"{len(result.missing)} model keys missing ({_listed(result.missing)})")
    if result.shape_mismatch:
        problems.append(f"{len(result.shape_mismatch)} of another shape (" + ", ".join(
            f"{k}: {v['checkpoint']} vs {v['model']}" for k, v in list(result.shape_mismatch.items())[:5]) + ")")
    if result.unexpected and not allow_unexpected:
        problems.append(f"{len(result.unexpected)} checkpoint keys fit nothing ({_listed(result.unexpected)}; "
                        "allow_unexpected=True leaves them out)")
    if problems:
        applied = ", ".join(f"{r.source!r}->{r.target!r}" for r in result.rules) or "none"
        first = (result.missing or list(result.shape_mismatch) or result.unexpected or [None])[0]
        raise StateDictMismatch(f"does not fit {type(model).__name__} (state dict at "
                                f"{report.location or 'top level'}, remap {applied}): " + "; ".join(problems)
                                + "; nothing was loaded", path=path, key=first, report=report)
    remapped = OrderedDict((result.mapping[k], v) for k, v in report.state_dict.items()
                           if result.mapping[k] in target)
    model.load_state_dict(remapped, strict=True)
    return LoadReport(report.location, list(result.rules), dict(result.before), len(remapped), list(result.unexpected))


"""Will a saved optimizer state land on the right parameters?

``optimizer.load_state_dict`` matches saved state to parameters **by position**: the i-th saved
entry (Adam's ``exp_avg`` / ``exp_avg_sq``, SGD's momentum buffer) goes to the i-th parameter of the
new optimizer's group. A model whose layers are now declared in another order, with the same shapes,
loads without a word and trains every moved layer with another layer's moments. Different shapes
fail later, at the first ``step()``.

:func:`check_optimizer_order` compares the saved parameter order with the current model's:

- the saved order is ``param_groups[g]["param_names"]`` when the optimizer was built from
  ``model.named_parameters()`` (PyTorch >= 2.6 records them), with the checkpoint's key remap applied;
  otherwise it is the order of the saved model's parameters in its state dict, assuming the
  optimizer was built over them in order (``model.parameters()``, or contiguous groups);
- the current order is the model's ``named_parameters()`` order; with ``param_names`` each group is
  compared with the model's parameters of that group, so decay / no-decay groups are fine;
- all parameters are tried first, then only those with ``requires_grad`` (an optimizer over the
  trainable ones); when neither count fits the saved state the counts themselves are the finding.

:func:`align_optimizer_state` is the mitigation: it re-keys the saved state by name so that
``optimizer.load_state_dict`` puts every entry on the parameter it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from faultlib.findings import Finding, Severity

MAX_LISTED = 50


@dataclass(frozen=True)
class Param:
    """A current model parameter: dotted name, shape, and whether it is trainable."""

    name: str
    shape: tuple[int, ...]
    trainable: bool = True


def is_optimizer_state(value: Any) -> bool:
    """True for what ``torch.optim.Optimizer.state_dict()`` returns: ``{"state": {...}, "param_groups": [...]}``."""
    return (isinstance(value, Mapping) and isinstance(value.get("state"), Mapping)
            and isinstance(value.get("param_groups"), (list, tuple))
            and all(isinstance(g, Mapping) and isinstance(g.get("params"), (list, tuple))
                    for g in value["param_groups"]))


def _state_shapes(entry: Any) -> dict[str, list[int]]:
    """Shapes of the per-parameter state tensors with a dimension (``exp_avg``...; not the scalar ``step``)."""
    out = {}
    if isinstance(entry, Mapping):
        for name, value in entry.items():
            shape = getattr(value, "shape", None)
            if shape is not None and len(shape):
                out[str(name)] = list(shape)
    return out


@dataclass
class OptimizerReport:
    """What :func:`check_optimizer_order` found.

    Attributes:
        location: where the optimizer state is in the checkpoint (``optimizer``, ``optimizer_states.0``).
        source: ``param_names`` or ``checkpoint_order`` (where the saved order came from).
        parameters: entries in the saved ``param_groups``.
        groups: number of parameter groups.
        moved: ``[{index, saved, current, state_shapes, param_shape}]``: entry ``index`` (saved for
            parameter ``saved``) would be loaded into ``current``.
        mismatched: ``[{index, current, state_shapes, param_shape}]``: state shapes that do not fit
            the parameter they would land on.
        count_problem: why saved and current parameters could not be aligned, or None.
    """

    location: str
    source: str
    parameters: int
    groups: int
    moved: list[dict[str, Any]] = field(default_factory=list)
    mismatched: list[dict[str, Any]] = field(default_factory=list)
    count_problem: str | None = None
    detector: str = "state-dict"

    @property
    def order_ok(self) -> bool:
        return not self.moved and not self.mismatched and self.count_problem is None

    def fields(self) -> dict[str, Any]:
        return {"location": self.location, "source": self.source, "parameters": self.parameters,
                "groups": self.groups, "order_ok": self.order_ok, "moved": self.moved[:MAX_LISTED],
                "moved_count": len(self.moved), "mismatched": self.mismatched[:MAX_LISTED],
                "count_problem": self.count_problem}

    def findings(self) -> list[Finding]:
        out = []
        if self.moved:
            first = self.moved[0]
            silent = sum(1 for m in self.moved if all(s == m["param_shape"] for s in m["state_shapes"].values()))
            out.append(Finding(
                self.detector, Severity.ERROR,
                f"{len(self.moved)} of {self.parameters} parameters would receive another parameter's optimizer "
                f"state ({silent} silently, same shapes): optimizer.load_state_dict matches by position, so "
                f"`{first['current']}` would get the state saved for `{first['saved']}`; the layers were declared "
                "in another order. Re-key the state by name (faultlib.detect.checkpoints.optimizer_state.align_optimizer_state) "
                "or build the optimizer in the saved order",
                {"key": first["current"]},
                {"location": self.location, "source": self.source, "moved": self.moved[:MAX_LISTED],
                 "silent": silent}, kind="optimizer_state_order"))
        if self.mismatched or self.count_problem:
            message = self.count_problem or (
                f"{len(self.mismatched)} saved optimizer state entries do not fit the shape of the parameter they "
                f"would land on (first: `{self.mismatched[0]['current']}` {self.mismatched[0]['param_shape']} gets "
                f"{self.mismatched[0]['state_shapes']}): the first optimizer step would fail")
            key = {"key": self.mismatched[0]["current"]} if self.mismatched else {}
            out.append(Finding(self.detector, Severity.ERROR, message, key,
                               {"location": self.location, "mismatched": self.mismatched[:MAX_LISTED]},
                               kind="optimizer_state_mismatch"))
        return out


def _saved_names(optimizer: Mapping[str, Any], saved_params: Sequence[str],
                 rename) -> tuple[list[list[str]] | None, str]:
    groups = optimizer["param_groups"]
    if all(isinstance(g.get("param_names"), (list, tuple)) and len(g["param_names"]) == len(g["params"])
           for g in groups):
        return [[rename(str(n)) for n in g["param_names"]] for g in groups], "param_names"
    flat = list(saved_params)
    sizes = [len(g["params"]) for g in groups]
    if sum(sizes) != len(flat):
        return None, "checkpoint_order"
    out, start = [], 0
    for size in sizes:
        out.append(flat[start:start + size])
        start += size
    return out, "checkpoint_order"


def check_optimizer_order(optimizer: Mapping[str, Any], *, saved_params: Sequence[str], params: Sequence[Param],
                          rename=lambda name: name, location: str = "optimizer",
                          detector: str = "state-dict") -> OptimizerReport:
    """Compare the saved parameter order of an optimizer state with the current model's (module docstring).

    Args:
        optimizer: a saved ``optimizer.state_dict()`` (``{"state": {int: {...}}, "param_groups": [...]}``).
        saved_params: the saved model's parameter names in its state-dict order, already remapped to
            the current model's names (buffers left out); used when the groups carry no ``param_names``.
        params: the current model's parameters in ``named_parameters()`` order.
        rename: maps a saved parameter name to the current model's name (the checkpoint's key remap).
        location: where the optimizer state is in the checkpoint, for messages.
        detector: the ``detector`` of the findings.

    Returns:
        :class:`OptimizerReport` (its ``findings()`` are of kinds ``optimizer_state_order`` and
        ``optimizer_state_mismatch``).
    """
    groups = optimizer["param_groups"]
    state = optimizer["state"]
    ids = [list(g["params"]) for g in groups]
    total = sum(len(g) for g in ids)
    report = OptimizerReport(location, "checkpoint_order", total, len(groups), detector=detector)
    filters = [("all", list(params)), ("trainable", [p for p in params if p.trainable])]
    chosen = next((current for _, current in filters if len(current) == total), None)
    names = {p.name for p in chosen or ()}
    saved_groups, report.source = _saved_names(optimizer, [n for n in saved_params if n in names], rename)
    if saved_groups is None or chosen is None:
        trainable = len(filters[1][1])
        report.count_problem = (
            f"the optimizer state ({location}) holds {total} parameters in {len(groups)} group(s); the model has "
            f"{len(params)} ({trainable} trainable)" + (f" and the checkpoint {len(saved_params)}" if saved_groups
                                                        is None else "")
            + ": optimizer.load_state_dict raises, or the state cannot be matched to parameters")
        return report
    by_name = {p.name: p for p in chosen}
    order = {p.name: i for i, p in enumerate(chosen)}
    if report.source == "param_names":
        current_groups = [sorted((n for n in group if n in by_name), key=order.__getitem__) for group in saved_groups]
        if [len(g) for g in current_groups] != [len(g) for g in saved_groups]:
            unknown = sorted({n for group in saved_groups for n in group} - set(by_name))[:8]
            report.count_problem = (f"the optimizer state ({location}) names parameters the model does not have: "
                                    f"{', '.join(unknown)}")
            return report
    else:
        current_groups, start = [], 0
        for group in saved_groups:
            current_groups.append([p.name for p in chosen[start:start + len(group)]])
            start += len(group)
    index = 0
    for gid, saved_group, current_group in zip(ids, saved_groups, current_groups):
        for slot, saved_name, current_name in zip(gid, saved_group, current_group):
            shapes = _state_shapes(state.get(slot))
            param_shape = list(by_name[current_name].shape)
            if saved_name != current_name:
                report.moved.append({"index": index, "saved": saved_name, "current": current_name,
                                     "state_shapes": shapes, "param_shape": param_shape})
            if any(s != param_shape for s in shapes.values()):
                report.mismatched.append({"index": index, "current": current_name, "state_shapes": shapes,
                                          "param_shape": param_shape})
            index += 1
    return report


def align_optimizer_state(optimizer: Mapping[str, Any], saved_names: Sequence[str],
                          current_names: Sequence[str]) -> dict[str, Any]:
    """Re-key a saved optimizer state so ``optimizer.load_state_dict`` puts each entry on its own parameter.

    Args:
        optimizer: the saved ``optimizer.state_dict()`` with one parameter group.
        saved_names: the parameter each saved position belonged to (``param_names``, or the saved
            model's parameter order), in the current model's naming.
        current_names: the new optimizer's parameters in order (``[n for n, _ in model.named_parameters()]``).

    Returns:
        A new optimizer state dict (tensors shared, not copied) whose position i holds the state saved
        for ``current_names[i]``; ``param_names`` (when present) is rewritten to ``current_names``.

    Raises:
        ValueError: several groups, or the two name lists are not the same set.
    """
    groups = optimizer["param_groups"]
    if len(groups) != 1:
        raise ValueError(f"align_optimizer_state handles one parameter group, the state has {len(groups)}")
    if sorted(saved_names) != sorted(current_names) or len(saved_names) != len(groups[0]["params"]):
        raise ValueError("saved and current parameter names differ: remap the names first")
    slot_of = dict(zip(saved_names, groups[0]["params"]))
    state = optimizer["state"]
    new_state = {i: state[slot_of[name]] for i, name in enumerate(current_names) if slot_of[name] in state}
    group = dict(groups[0])
    group["params"] = list(range(len(current_names)))
    if "param_names" in group:
        group["param_names"] = list(current_names)
    return {"state": new_state, "param_groups": [group]}

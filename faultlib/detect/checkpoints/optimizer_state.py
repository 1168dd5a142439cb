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


GROUP_KINDS = {
    "optimizer_group_count": "the saved optimizer state has another number of parameter groups than the rebuilt "
                             "optimizer: optimizer.load_state_dict raises without saying which group is new",
    "optimizer_group_size": "a saved parameter group holds another number of parameters than the rebuilt one (a "
                            "backbone unfrozen, a head added, a weight-decay split changed): load_state_dict raises",
    "optimizer_state_misplaced": "same group sizes, but the state at a position belongs to another parameter (by "
                                 "param_names, or its shape does not fit): load_state_dict puts Adam moments on the "
                                 "wrong tensors, silently when the shapes agree",
}


@dataclass
class GroupReport:
    """What :func:`check_optimizer_groups` found.

    Attributes:
        location: where the optimizer state is in the checkpoint.
        saved_sizes / current_sizes: parameters per group, saved and rebuilt.
        misplaced: ``[{group, index, current, saved, state_shapes, param_shape}]``: position ``index`` of group
            ``group`` would load the state saved for ``saved`` (a name, or ``None`` without ``param_names``)
            into ``current`` whose shape is ``param_shape``.
        mapping: proposed ``{current parameter: [saved group, saved index]}``, by ``param_names`` when the
            checkpoint has them, else by state shapes where a shape is unique; ``None`` when neither decides.
        mapping_source: ``param_names``, ``unique_shapes`` or ``None``.
    """

    location: str
    saved_sizes: list[int]
    current_sizes: list[int]
    misplaced: list[dict[str, Any]] = field(default_factory=list)
    mapping: dict[str, list[int]] | None = None
    mapping_source: str | None = None
    detector: str = "state-dict"

    def fields(self) -> dict[str, Any]:
        return {"location": self.location, "saved_sizes": self.saved_sizes, "current_sizes": self.current_sizes,
                "misplaced": self.misplaced[:MAX_LISTED], "misplaced_count": len(self.misplaced),
                "mapping": self.mapping, "mapping_source": self.mapping_source}

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        fix = (f"; proposed mapping by {self.mapping_source}: re-key the saved state so each parameter gets its own "
               "(evidence.mapping)" if self.mapping else "; no mapping is decidable (no param_names, shapes not "
               "unique): rebuild the optimizer with the saved groups")
        evidence = {"location": self.location, "saved_sizes": self.saved_sizes, "current_sizes": self.current_sizes,
                    "mapping": self.mapping}
        if len(self.saved_sizes) != len(self.current_sizes):
            out.append(Finding(self.detector, Severity.ERROR,
                               f"the saved optimizer state ({self.location}) has {len(self.saved_sizes)} parameter "
                               f"group(s) of sizes {self.saved_sizes}, the rebuilt optimizer "
                               f"{len(self.current_sizes)} of sizes {self.current_sizes}{fix}", {}, evidence,
                               kind="optimizer_group_count"))
            return out
        for g, (saved, current) in enumerate(zip(self.saved_sizes, self.current_sizes)):
            if saved != current:
                out.append(Finding(self.detector, Severity.ERROR,
                                   f"parameter group {g}: saved with {saved} parameters, rebuilt with {current}: "
                                   f"optimizer.load_state_dict raises{fix}", {"index": g}, evidence,
                                   kind="optimizer_group_size"))
        if self.misplaced:
            first = self.misplaced[0]
            silent = sum(1 for m in self.misplaced if all(s == m["param_shape"] for s in m["state_shapes"].values()))
            saved = f"the state saved for `{first['saved']}`" if first["saved"] else \
                f"state of shape {first['state_shapes']}"
            out.append(Finding(self.detector, Severity.ERROR,
                               f"{len(self.misplaced)} parameter(s) would receive another parameter's optimizer "
                               f"state ({silent} silently, same shapes): group {first['group']} position "
                               f"{first['index']}, `{first['current']}` {first['param_shape']}, would get {saved}{fix}",
                               {"key": first["current"], "index": first["group"]},
                               {**evidence, "misplaced": self.misplaced[:MAX_LISTED], "silent": silent},
                               kind="optimizer_state_misplaced"))
        return out


def check_optimizer_groups(optimizer: Mapping[str, Any], current: Sequence[Sequence[Param]], *,
                           location: str = "optimizer", rename=lambda name: name,
                           detector: str = "state-dict") -> GroupReport:
    """Compare a saved optimizer state with the optimizer the code rebuilds (group count, sizes, per-position state).

    ``optimizer.load_state_dict`` pairs groups by index and parameters by position inside each group
    (PyTorch ``Optimizer.load_state_dict``); this check says which group and parameter would get the
    wrong state, before a run does.

    Args:
        optimizer: the saved ``optimizer.state_dict()``.
        current: the rebuilt optimizer's groups, each its parameters in order (name, shape).
        location: where the state is in the checkpoint, for messages.
        rename: maps a saved ``param_names`` entry to the current model's name (the checkpoint's key remap).
        detector: the ``detector`` of the findings.

    Returns:
        :class:`GroupReport`; its ``findings()`` are of the kinds in :data:`GROUP_KINDS`.
    """
    groups = optimizer["param_groups"]
    state = optimizer["state"]
    report = GroupReport(location, [len(g["params"]) for g in groups], [len(g) for g in current], detector=detector)
    named = all(isinstance(g.get("param_names"), (list, tuple)) and len(g["param_names"]) == len(g["params"])
                for g in groups)
    saved_slots = [(gi, i, slot, rename(str(g["param_names"][i])) if named else None,
                    _state_shapes(state.get(slot))) for gi, g in enumerate(groups) for i, slot in enumerate(g["params"])]
    # the mapping: by name when the checkpoint has names, else by a state shape that only one parameter has
    params = [p for group in current for p in group]
    if named:
        where = {name: [gi, i] for gi, i, _, name, _ in saved_slots}
        if {p.name for p in params} <= set(where):
            report.mapping, report.mapping_source = {p.name: where[p.name] for p in params}, "param_names"
    else:
        by_shape: dict[tuple, list] = {}
        for gi, i, _, _, shapes in saved_slots:
            if shapes:
                by_shape.setdefault(tuple(next(iter(shapes.values()))), []).append([gi, i])
        counts: dict[tuple, int] = {}
        for p in params:
            counts[tuple(p.shape)] = counts.get(tuple(p.shape), 0) + 1
        if params and all(counts[tuple(p.shape)] == 1 and len(by_shape.get(tuple(p.shape), [])) == 1 for p in params):
            report.mapping = {p.name: by_shape[tuple(p.shape)][0] for p in params}
            report.mapping_source = "unique_shapes"
    if report.saved_sizes != report.current_sizes:
        return report
    for (gi, i, _, saved_name, shapes), param in zip(saved_slots, params):
        wrong_name = named and saved_name != param.name
        wrong_shape = any(s != list(param.shape) for s in shapes.values())
        if wrong_name or wrong_shape:
            report.misplaced.append({"group": gi, "index": i, "current": param.name, "saved": saved_name,
                                     "state_shapes": shapes, "param_shape": list(param.shape)})
    return report

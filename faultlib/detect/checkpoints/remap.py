"""The key remap that makes a checkpoint's state dict fit a model: inferred from keys and shapes alone.

One algorithm (the steps below), kept whole in one module: its helpers share the search state and read in order.
The rules themselves and the result type are in :mod:`~faultlib.detect.checkpoints.remap_rules`.

A state dict saved from a wrapped model does not load into the bare one, and the other way round:
``nn.DataParallel`` and ``DistributedDataParallel`` put ``module.`` in front of every key,
``torch.compile`` puts ``_orig_mod.``, a training wrapper puts its attribute name (``model.``,
``backbone.``); wrapping a submodule puts the segment in the middle of its keys
(``encoder._orig_mod.layer.weight``); a refactor renames a layer (``classifier`` -> ``head``).
:func:`infer_remap` compares the two key sets (pure Python, no torch) and returns the rules that
fix them, and what still does not fit after them.

Rules (:class:`RemapRule`) apply **in order**, each to the key the previous ones produced:

- ``prefix``: a key starting with ``from`` gets ``to`` instead (``{"from": "_orig_mod.module.", "to": ""}``);
  ``from`` and ``to`` are ``""`` or whole segments ending in ``.``;
- ``infix``: every occurrence of the segment run ``from`` (written ``.module.``) in the key's module
  path (never in the parameter name) becomes ``to`` (``.``, or ``.other.``);
- ``rename``: as ``prefix``, for one layer matched by shape and position (``classifier.`` -> ``head.``):
  a guess the user should confirm, as opposed to the wrapper rules.

How they are found (greedy, each step checked against every key):

0. A run of known wrapper segments (``_orig_mod.module.``) that every checkpoint key still unmatched
   starts with, and no model key does, is stripped first, so that what it hid is seen next.
1. Candidates from evidence: for every checkpoint key that fits no model key, the longest tail of
   segments it shares with an unmatched model key gives a prefix rule (what precedes the tail on each
   side); dropping one to three segments of its module path, swapping one container segment (same
   shape), or inserting segments after one, that lands on an unmatched model key gives an infix
   rule. Each candidate counts the keys that vote for it.
2. The most-voted candidate (ties: more equal shapes, then the one that keeps the key order) that
   (a) moves no key that already fits, (b) never sends two checkpoint keys to one name, and (c)
   makes more keys fit, is accepted; votes are recounted; repeat.
3. What is left is grouped by layer (module path); layers whose parameter names and shapes are equal
   are paired in the order they appear (state-dict order is registration order); each pair that
   passes (a)-(c) becomes a ``rename``; renames that share a parent rename collapse into it. A layer
   renamed *and* reshaped is not guessed (it stays missing and unexpected: it may be a new layer).

A key that already fits stays where it is, so a model with a real submodule called ``module`` is
not rewritten. Cost: O(keys x depth) per accepted rule, typically a few milliseconds for 1,000 keys.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from faultlib.detect.checkpoints.remap_rules import (RULE_KINDS, WRAPPERS, Remap, RemapRule, Shape, apply_rules,
                                                      as_prefix, describe, key_segments)

__all__ = ["RULE_KINDS", "WRAPPERS", "Remap", "RemapRule", "apply_rules", "describe", "evaluate", "infer_remap"]

#: most candidates tried per round; most model keys one shared tail may vote for
MAX_CANDIDATES = 64
MAX_FANOUT = 8
MAX_INFIX_SEGMENTS = 3
MAX_ROUNDS = 32
MAX_COLLAPSE = 256  # renames beyond this are left as they are (collapsing is quadratic in their number)


class _State:
    """Current names of the checkpoint keys while rules are inferred."""

    def __init__(self, checkpoint: Mapping[str, Shape], model: Mapping[str, Shape]):
        self.checkpoint = checkpoint
        self.model = model
        self.current = {k: k for k in checkpoint}

    def unmatched(self) -> tuple[dict[str, str], dict[str, Shape]]:
        """``({original: current name}, {model key: shape})`` of the keys that fit nothing yet."""
        taken = {c for c in self.current.values() if c in self.model}
        return ({o: c for o, c in self.current.items() if c not in self.model},
                {m: s for m, s in self.model.items() if m not in taken})

    def trial(self, rule: RemapRule, *, need_gain: bool = True) -> tuple[dict[str, str], int] | None:
        """The names after ``rule`` and how many keys it moved, if it passes (a)-(c) of the module docstring
        (``need_gain=False`` waives (c), for a wrapper prefix that every unmatched key carries)."""
        new: dict[str, str] = {}
        moved = gained = 0
        for original, name in self.current.items():
            after = rule.apply(name)
            if after != name:
                if name in self.model:
                    return None  # (a) never move a key that already fits
                moved += 1
                gained += after in self.model
            new[original] = after
        if not moved or (need_gain and not gained) or len(set(new.values())) != len(new):
            return None  # (c) must help; (b) never two keys onto one name
        return new, moved

    def accept(self, rule: RemapRule, new: dict[str, str], moved: int, rules: list[RemapRule]) -> None:
        self.current = new
        rules.append(RemapRule(rule.kind, rule.source, rule.target, rule.cause, moved))


def _rule(kind: str, source: str, target: str) -> RemapRule:
    return RemapRule(kind, source, target, describe(kind, source, target)[1])


def _candidates(unmatched_c: Mapping[str, str], unmatched_m: Mapping[str, Shape],
                checkpoint: Mapping[str, Shape]) -> list[RemapRule]:
    """Candidate rules with their votes, best first (see step 1 of the module docstring)."""
    votes: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    position_c = {o: i for i, o in enumerate(unmatched_c)}  # ties go to the candidate that keeps the order
    position_m = {m: i for i, m in enumerate(unmatched_m)}
    tails: dict[tuple[str, ...], list[tuple[int, str]]] = defaultdict(list)
    for m in unmatched_m:
        segs = tuple(m.split("."))
        for j in range(len(segs)):
            tails[segs[j:]].append((j, m))
    by_name = {c: o for o, c in unmatched_c.items()}

    def vote(kind: str, source: str, target: str, original: str, model_key: str, seen: set) -> None:
        key = (kind, source, target)
        if key in seen or source == target:
            return
        seen.add(key)
        votes[key][0] += 1
        votes[key][1] += tuple(checkpoint[original]) == tuple(unmatched_m[model_key])
        votes[key][2] += abs(position_c[original] - position_m[model_key])

    for original, name in unmatched_c.items():
        segs = tuple(name.split("."))
        seen: set = set()
        for i in range(len(segs)):
            hits = tails.get(segs[i:])
            if not hits:
                continue
            if len(hits) <= MAX_FANOUT:
                tail = segs[i:]
                for j, m in hits:
                    msegs = m.split(".")
                    if len(tail) == 1 and i and j:
                        continue  # a bare parameter name under two different paths says nothing
                    vote("prefix", as_prefix(segs[:i]), as_prefix(msegs[:j]), original, m, seen)
                    if len(tail) >= 2:
                        vote("prefix", as_prefix(segs[:i + 1]), as_prefix(msegs[:j + 1]), original, m, seen)
            break  # the longest shared tail only
        path = segs[:-1]
        for i in range(len(path)):
            for n in range(1, MAX_INFIX_SEGMENTS + 1):
                if i + n > len(path):
                    break
                dropped = ".".join(path[:i] + path[i + n:] + segs[-1:])
                if dropped in unmatched_m:
                    vote("infix", "." + ".".join(path[i:i + n]) + ".", ".", original, dropped, seen)
    # one container segment swapped (``blocks`` -> ``layers``) with the same shape; a layer's own name is left
    # to the rename step, which compares every parameter of the layer
    patterns: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)
    for m in unmatched_m:
        segs = m.split(".")
        for p in range(len(segs) - 2):
            patterns[tuple(segs[:p] + ["\0"] + segs[p + 1:])].append((segs[p], m))
    for original, name in unmatched_c.items():
        segs = name.split(".")
        seen = set()
        for p in range(len(segs) - 2):
            hits = patterns.get(tuple(segs[:p] + ["\0"] + segs[p + 1:]), [])
            if 0 < len(hits) <= MAX_FANOUT:
                for seg, m in hits:
                    if tuple(checkpoint[original]) == tuple(unmatched_m[m]):
                        vote("infix", f".{segs[p]}.", f".{seg}.", original, m, seen)
    for m in unmatched_m:
        segs = m.split(".")
        path = segs[:-1]
        for i in range(1, len(path)):
            for n in range(1, MAX_INFIX_SEGMENTS + 1):
                if i + n > len(path):
                    break
                name = ".".join(path[:i] + path[i + n:] + segs[-1:])
                original = by_name.get(name)
                if original is not None:
                    anchor = path[i - 1]
                    vote("infix", f".{anchor}.", "." + ".".join([anchor, *path[i:i + n]]) + ".", original, m, set())
    rank = {"prefix": 0, "infix": 1}
    ordered = sorted(votes.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[1][2], rank[kv[0][0]],
                                                   len(kv[0][1]) + len(kv[0][2]), kv[0]))
    return [_rule(*key) for key, _ in ordered[:MAX_CANDIDATES]]


def _common_wrappers(names: Sequence[str], model: Mapping[str, Shape]) -> list[str]:
    """The leading run of known wrapper segments (:data:`WRAPPERS`) every name starts with, when no model key
    starts with a wrapper segment: stripped first, so that what it hides (an infix, a rename) is seen next."""
    if not names:
        return []
    run: list[str] = []
    split = [n.split(".") for n in names]
    while all(len(s) > len(run) + 1 for s in split) and len({s[len(run)] for s in split}) == 1 \
            and split[0][len(run)] in WRAPPERS:
        run.append(split[0][len(run)])
    if run and any(m.split(".", 1)[0] in WRAPPERS for m in model):
        return []  # the model has wrapper segments of its own: let the votes pair them
    return run


def _layers(names: Iterable[tuple[str, str]], shapes: Mapping[str, Shape], skip_paths: set[str]):
    """``{path: [(leaf, shape), ...]}`` in order of first appearance, without the paths in ``skip_paths``."""
    layers: dict[str, list[tuple[str, Shape]]] = {}
    for name, shape_key in names:
        path, _, leaf = name.rpartition(".")
        if path and path not in skip_paths:
            layers.setdefault(path, []).append((leaf, tuple(shapes[shape_key])))
    return layers


def _rename_pairs(state: _State) -> list[tuple[str, str]]:
    """Layer pairs (checkpoint path, model path) matched by signature and position (step 3)."""
    unmatched_c, unmatched_m = state.unmatched()
    fitting_c = {c.rpartition(".")[0] for c in state.current.values() if c in state.model}
    fitting_m = {m.rpartition(".")[0] for m in state.model if m not in unmatched_m}
    layers_c = _layers(((c, o) for o, c in unmatched_c.items()), state.checkpoint, fitting_c)
    layers_m = _layers(((m, m) for m in unmatched_m), state.model, fitting_m)
    pairs: list[tuple[str, str]] = []
    groups_c: dict[tuple, list[str]] = defaultdict(list)
    groups_m: dict[tuple, list[str]] = defaultdict(list)
    for path, leaves in layers_c.items():
        groups_c[tuple(sorted(leaves))].append(path)
    for path, leaves in layers_m.items():
        groups_m[tuple(sorted(leaves))].append(path)
    for signature, paths_c in groups_c.items():
        pairs.extend(zip(paths_c, groups_m.get(signature, [])))
    order = {path: i for i, path in enumerate(_layers(((c, o) for o, c in unmatched_c.items()),
                                                      state.checkpoint, set()))}
    return sorted(pairs, key=lambda p: order.get(p[0], 0))


def _collapse(rules: list[RemapRule], checkpoint_keys: Sequence[str]) -> list[RemapRule]:
    """Renames sharing a parent rename (``classifier.0.`` -> ``head.0.``) become that parent's rule when the
    resulting mapping is identical."""
    reference = {k: apply_rules(rules, k) for k in checkpoint_keys}
    changed = True
    while changed:
        changed = False
        for rule in [r for r in rules if r.kind == "rename"]:
            s, t = key_segments(rule.source), key_segments(rule.target)
            k = 0
            while k < min(len(s), len(t)) - 1 and s[-1 - k] == t[-1 - k]:
                k += 1
            if not k:
                continue
            parent = _rule("rename", as_prefix(s[:-k]), as_prefix(t[:-k]))
            members = [r for r in rules if r.kind == "rename" and r.source.startswith(parent.source)
                       and r.target.startswith(parent.target)
                       and r.source[len(parent.source):] == r.target[len(parent.target):]]
            first = rules.index(members[0])
            trial = [r for r in rules if r not in members]
            trial.insert(first, RemapRule("rename", parent.source, parent.target, parent.cause,
                                          sum(r.keys for r in members)))
            if all(apply_rules(trial, k2) == v for k2, v in reference.items()):
                rules, changed = trial, True
                break
    return rules


def infer_remap(checkpoint: Mapping[str, Sequence[int]], model: Mapping[str, Sequence[int]]) -> Remap:
    """Infer the rules that map ``checkpoint`` keys onto ``model`` keys (see the module docstring).

    Args:
        checkpoint: checkpoint key -> tensor shape, in the file's order (a state dict's order is its
            modules' registration order, which the layer pairing of step 3 relies on).
        model: model key -> shape, in the model's ``state_dict()`` order.

    Returns:
        :class:`Remap`: the rules in application order, the mapping of every checkpoint key (never two
        onto one), and the missing, unexpected and shape-mismatched keys that remain after the rules.
    """
    checkpoint = {k: tuple(v) for k, v in checkpoint.items()}
    model = {k: tuple(v) for k, v in model.items()}
    state = _State(checkpoint, model)
    rules: list[RemapRule] = []
    wrappers = _common_wrappers(list(state.unmatched()[0].values()), model)
    if wrappers:
        rule = _rule("prefix", as_prefix(wrappers), "")
        outcome = state.trial(rule, need_gain=False)
        if outcome is not None:
            state.accept(rule, *outcome, rules)
    for _ in range(MAX_ROUNDS):
        unmatched_c, unmatched_m = state.unmatched()
        if not unmatched_c or not unmatched_m:
            break
        for candidate in _candidates(unmatched_c, unmatched_m, checkpoint):
            outcome = state.trial(candidate)
            if outcome is not None:
                state.accept(candidate, *outcome, rules)
                break
        else:
            break
    _renames(state, rules)
    if sum(r.kind == "rename" for r in rules) <= MAX_COLLAPSE:
        rules = _collapse(rules, list(checkpoint))
    return _result(rules, checkpoint, model)


def _renames(state: _State, rules: list[RemapRule]) -> None:
    """Step 3: accept each layer pair that passes (a)-(c). A rename only touches keys under its layer, found by
    bisection in the sorted names, so thousands of layers cost O(keys log keys), not O(keys x layers)."""
    origin = {name: original for original, name in state.current.items()}
    names = sorted(origin)
    for cpath, mpath in _rename_pairs(state):
        source, target = cpath + ".", mpath + "."
        start = end = bisect.bisect_left(names, source)
        while end < len(names) and names[end].startswith(source):
            end += 1
        affected = names[start:end]
        if not affected or any(n in state.model for n in affected):
            continue  # (a)
        moved = [target + n[len(source):] for n in affected]
        if any(m in origin for m in moved) or not any(m in state.model for m in moved):
            continue  # (b), (c)
        del names[start:end]
        for old, new in zip(affected, moved):
            original = origin.pop(old)
            origin[new] = original
            state.current[original] = new
            bisect.insort(names, new)
        rules.append(RemapRule("rename", source, target, describe("rename", source, target)[1], len(affected)))


def evaluate(rules: Sequence[RemapRule], checkpoint: Mapping[str, Sequence[int]],
             model: Mapping[str, Sequence[int]]) -> Remap:
    """What given ``rules`` (inferred or written by hand) leave missing, unexpected and mismatched.

    Raises:
        ValueError: the rules send two checkpoint keys to one name.
    """
    return _result(list(rules), {k: tuple(v) for k, v in checkpoint.items()}, {k: tuple(v) for k, v in model.items()})


def _result(rules: list[RemapRule], checkpoint: dict[str, Shape], model: dict[str, Shape]) -> Remap:
    mapping = {k: apply_rules(rules, k) for k in checkpoint}
    landed: dict[str, str] = {}
    for original, name in mapping.items():
        if name in landed:
            raise ValueError(f"remap sends both {landed[name]!r} and {original!r} to {name!r}")
        landed[name] = original
    position = {m: i for i, m in enumerate(model)}
    mismatch = {name: {"checkpoint": list(checkpoint[o]), "model": list(model[name]), "checkpoint_key": o}
                for name, o in landed.items() if name in model and checkpoint[o] != model[name]}
    return Remap(rules=rules, mapping=mapping,
                 missing=[m for m in model if m not in landed],
                 unexpected=[o for o, name in mapping.items() if name not in model],
                 shape_mismatch=dict(sorted(mismatch.items(), key=lambda kv: position[kv[0]])),
                 before={"missing": sum(1 for m in model if m not in checkpoint),
                         "unexpected": sum(1 for c in checkpoint if c not in model)})

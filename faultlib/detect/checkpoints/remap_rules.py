"""Remap rules and the result of :func:`~faultlib.detect.checkpoints.remap.infer_remap`: what a rule is, how it
rewrites a key, and how it reads for people (the search that finds rules is in ``remap``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["RULE_KINDS", "WRAPPERS", "Remap", "RemapRule", "Shape", "apply_rules", "describe"]

Shape = tuple[int, ...]

RULE_KINDS = ("prefix", "infix", "rename")
#: wrapper attribute names and what puts them there
WRAPPERS = {
    "module": "DataParallel/DistributedDataParallel",
    "_orig_mod": "torch.compile",
    "_fsdp_wrapped_module": "FullyShardedDataParallel",
    "_checkpoint_wrapped_module": "activation checkpointing",
}
def key_segments(text: str) -> list[str]:
    return [s for s in text.strip(".").split(".") if s] if text.strip(".") else []


def as_prefix(segments: Sequence[str]) -> str:
    """Segments as a prefix: ``""`` or ``a.b.``."""
    return "".join(f"{s}." for s in segments)


@dataclass(frozen=True)
class RemapRule:
    """One rewrite of checkpoint keys (see the module docstring for the three kinds).

    Attributes:
        kind: ``prefix``, ``infix`` or ``rename``.
        source: ``from``: for ``prefix``/``rename`` ``""`` or segments ending in ``.``; for ``infix``
            a segment run written with dots on both sides (``.module.``).
        target: ``to``, in the same form (``""`` / ``.`` for nothing).
        cause: what most likely produced the difference, for people.
        keys: how many checkpoint keys this rule rewrote (0 when built by hand).

    Raises:
        ValueError: an unknown kind, or ``from``/``to`` not in the form of its kind.
    """

    kind: str
    source: str
    target: str
    cause: str = ""
    keys: int = 0

    def __post_init__(self) -> None:
        if self.kind not in RULE_KINDS:
            raise ValueError(f"remap rule kind {self.kind!r} must be one of {RULE_KINDS}")
        for name, value in (("from", self.source), ("to", self.target)):
            if not isinstance(value, str) or ".." in value:
                raise ValueError(f"remap rule {name} {value!r} must be dotted segments")
            if self.kind == "infix":
                if not (value.startswith(".") and value.endswith(".")) or (name == "from" and value == "."):
                    raise ValueError(f"infix rule {name} {value!r} must be written '.seg.' ('.' alone only for 'to')")
            elif value and (value.startswith(".") or not value.endswith(".")):
                raise ValueError(f"{self.kind} rule {name} {value!r} must be '' or segments ending in '.'")
        if self.source == self.target:
            raise ValueError(f"remap rule from and to are both {self.source!r}")

    def apply(self, key: str) -> str:
        """``key`` after this rule (unchanged when the rule does not match it)."""
        if self.kind != "infix":
            return self.target + key[len(self.source):] if key.startswith(self.source) else key
        segments = key.split(".")
        path, leaf = segments[:-1], segments[-1]
        source, target = key_segments(self.source), key_segments(self.target)
        out: list[str] = []
        i = 0
        while i < len(path):
            if path[i:i + len(source)] == source:
                out.extend(target)
                i += len(source)
            else:
                out.append(path[i])
                i += 1
        return ".".join([*out, leaf])

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "from": self.source, "to": self.target, "cause": self.cause, "keys": self.keys}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RemapRule":
        """A rule from ``{"from", "to"}`` (``kind`` defaults to ``prefix``; ``cause``/``keys`` optional).

        Raises:
            ValueError: a missing field or a malformed rule.
        """
        if not isinstance(data, Mapping) or "from" not in data or "to" not in data:
            raise ValueError(f"a remap rule needs 'from' and 'to', got {data!r}")
        return cls(str(data.get("kind", "prefix")), data["from"], data["to"], str(data.get("cause", "")),
                   int(data.get("keys", 0)))


def apply_rules(rules: Iterable[RemapRule], key: str) -> str:
    """``key`` after every rule, in order."""
    for rule in rules:
        key = rule.apply(key)
    return key


@dataclass
class Remap:
    """The result of :func:`infer_remap`.

    Attributes:
        rules: the rules, in the order they apply.
        mapping: every checkpoint key -> its key after the rules (injective).
        missing: model keys no checkpoint key lands on, in model order.
        unexpected: checkpoint keys (as in the file) that land on no model key, in checkpoint order.
        shape_mismatch: model key -> ``{"checkpoint": [dims], "model": [dims], "checkpoint_key": str}``.
        before: ``{"missing": n, "unexpected": n}`` comparing the keys as they are.
    """

    rules: list[RemapRule]
    mapping: dict[str, str]
    missing: list[str]
    unexpected: list[str]
    shape_mismatch: dict[str, dict[str, Any]]
    before: dict[str, int] = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        """True when every model key gets a checkpoint tensor of its shape and nothing is left over."""
        return not (self.missing or self.unexpected or self.shape_mismatch)

    def renamed(self) -> dict[str, str]:
        """Only the checkpoint keys the rules change: ``{checkpoint key: model key}``."""
        return {k: v for k, v in self.mapping.items() if k != v}


def describe(kind: str, source: str, target: str) -> tuple[str, str]:
    """``(finding kind, cause)`` of a rule: ``wrapper_prefix``, ``key_infix`` or ``renamed_layer``."""

    def wrappers(segments: Sequence[str]) -> str:
        named = [f"{WRAPPERS[s]} (`{s}.`)" if s in WRAPPERS else f"a wrapper attribute `{s}.`" for s in segments]
        return " around ".join(named) if named else "nothing"

    s, t = key_segments(source), key_segments(target)
    if kind == "rename":
        return "renamed_layer", f"layer `{source.rstrip('.')}` is `{target.rstrip('.')}` in the model (matched by " \
                                "parameter names, shapes and position: confirm it is the same layer)"
    if kind == "infix":
        if not t:
            return "key_infix", f"{wrappers(s)} inside the module path of the saved model"
        if len(s) == len(t) == 1 and s[0] not in WRAPPERS and t[0] not in WRAPPERS:
            return "renamed_layer", f"layers called `{s[0]}` are called `{t[0]}` in the model (matched by the rest " \
                                    "of their keys)"
        return "key_infix", f"the segment `{'.'.join(s)}` is `{'.'.join(t)}` in the model's module paths"
    common = 0
    while common < min(len(s), len(t)) and s[common] == t[common]:
        common += 1
    if common:
        under = ".".join(s[:common])
        rest_s, rest_t = s[common:], t[common:]
        if not rest_t:
            return "key_infix", f"{wrappers(rest_s)} wrapped `{under}` when the checkpoint was saved"
        if not rest_s:
            return "key_infix", f"the model wraps `{under}` in {wrappers(rest_t)}; the checkpoint has the bare module"
        return "key_infix", f"`{under}.{'.'.join(rest_s)}` is `{under}.{'.'.join(rest_t)}` in the model"
    if not t:
        return "wrapper_prefix", f"the checkpoint was saved through {wrappers(s)}"
    if not s:
        return "wrapper_prefix", f"the model is wrapped in {wrappers(t)}; the checkpoint has the bare module"
    return "wrapper_prefix", f"the saved model's wrapper `{'.'.join(s)}.` is `{'.'.join(t)}.` in the model"

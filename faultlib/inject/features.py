"""Feature-config faults: serve with a feature config that drifted from the one the model was trained with."""

from __future__ import annotations

import copy
from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector

_EDIT = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "feature": {"type": "string", "minLength": 1, "description": "the feature to change (set / unset)"},
        "set": {"type": "object", "minProperties": 1,
                "description": "keys of the feature's definition and their new values"},
        "unset": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "insert": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}},
                   "description": "a whole feature definition (with its name) to insert"},
        "after": {"type": "string", "minLength": 1, "description": "insert after this feature (default: at the end)"},
        "remove": {"type": "string", "minLength": 1, "description": "the feature to remove"},
        "move": {"type": "string", "minLength": 1, "description": "the feature to move to position 'to'"},
        "to": {"type": "integer", "minimum": 0},
    },
    "oneOf": [{"required": ["feature", "set"]}, {"required": ["feature", "unset"]}, {"required": ["insert"]},
              {"required": ["remove"]}, {"required": ["move", "to"]}],
}


def _features(config: Any) -> list[dict[str, Any]]:
    items = config.get("features") if isinstance(config, dict) else config
    if not isinstance(items, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str) for f in items):
        raise InjectionError("feature_config_edit needs a config holding a list of features, each a mapping with a "
                             "'name' (a list, or {features: [...]})")
    return items


def apply_edits(config: Any, edits: list[dict[str, Any]]) -> Any:
    """A deep copy of ``config`` with ``edits`` applied in order.

    Args:
        config: a list of feature mappings (each with ``name``) or ``{"features": [...], ...}``.
        edits: each one of ``{feature, set: {key: value}}``, ``{feature, unset: [keys]}``,
            ``{insert: {name, ...}, after?: NAME}``, ``{remove: NAME}``, ``{move: NAME, to: POSITION}``.

    Raises:
        InjectionError: the config has no feature list, or an edit names a feature it does not have
            (or inserts one it already has).
    """
    out = copy.deepcopy(config)
    features = _features(out)

    def index(name: str) -> int:
        for i, f in enumerate(features):
            if f["name"] == name:
                return i
        raise InjectionError(f"feature_config_edit: no feature {name!r} in the config "
                             f"({', '.join(f['name'] for f in features)})")

    for edit in edits:
        if "set" in edit:
            features[index(edit["feature"])].update(copy.deepcopy(edit["set"]))
        elif "unset" in edit:
            target = features[index(edit["feature"])]
            for key in edit["unset"]:
                target.pop(key, None)
        elif "insert" in edit:
            new = copy.deepcopy(edit["insert"])
            if any(f["name"] == new["name"] for f in features):
                raise InjectionError(f"feature_config_edit: feature {new['name']!r} is already in the config")
            at = index(edit["after"]) + 1 if "after" in edit else len(features)
            features.insert(at, new)
        elif "remove" in edit:
            features.pop(index(edit["remove"]))
        elif "move" in edit:
            moved = features.pop(index(edit["move"]))
            features.insert(min(edit["to"], len(features)), moved)
    return out


class FeatureConfigEdit(WindowedInjector):
    """Serve with an edited feature config for a window of steps.

    Models a serving feature config that drifted from training's (a feature repo change that only
    the serving side picked up): bin edges moved, a fill value changed, a feature inserted or
    removed, shifting every encoded position after it. At each step (fault point ``step``) the
    attached object's config holds the edited copy inside the window and the original outside it,
    like a config deploy and its rollback. Nothing fails: the encoded vector keeps its type and,
    when the edits keep the width, its shape.

    Params:
        attribute (str): the attached object's attribute holding the config (a list of features, or
            ``{features: [...], ...}``), default ``config``.
        edits (list): applied in order, each one of ``{feature, set: {key: value}}``,
            ``{feature, unset: [keys]}``, ``{insert: {name, ...}, after: NAME}``, ``{remove: NAME}``,
            ``{move: NAME, to: POSITION}``.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "feature_config_edit"
    summary = "serve with an edited feature config (bins, fill values, features inserted/removed/moved) for a window"
    params_schema = WindowedInjector.schema(
        ["edits"], attribute={"type": "string", "default": "config"},
        edits={"type": "array", "minItems": 1, "items": _EDIT})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.attribute: str = params.get("attribute", "config")
        self.edits: list[dict[str, Any]] = list(params["edits"])
        self._owner: Any = None
        self._original: Any = None
        self._recorded = False

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        if owner is None or not hasattr(owner, self.attribute):
            raise InjectionError(f"feature_config_edit needs the attached object to hold its feature config in "
                                 f"{self.attribute!r}")
        original = copy.deepcopy(getattr(owner, self.attribute))
        edited = apply_edits(original, self.edits)  # fails here, before any step, on a bad edit
        if edited == original:
            raise InjectionError("feature_config_edit: the edits leave the config unchanged")
        self._owner, self._original = owner, original

        def reached(_point: str, attributes: dict[str, Any]) -> None:
            active = self.active_at(attributes.get("step"))
            setattr(owner, self.attribute, copy.deepcopy(edited if active else original))
            if active:
                self.hits += 1
                if not self._recorded:
                    self._recorded = True
                    target.record_fault(self.name, step=attributes.get("step"), edits=len(self.edits),
                                        attribute=self.attribute)

        target.subscribe("step", reached)

    def revert(self) -> None:
        if self._owner is not None:
            setattr(self._owner, self.attribute, copy.deepcopy(self._original))
        self._owner = None

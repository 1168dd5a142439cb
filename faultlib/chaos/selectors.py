"""Which pods a rendered Chaos Mesh object selects: every pod selector in it, and whether one
matches a pod of known namespace and labels.

Used before anything is created, to prove that a run's chaos acts on the run's own pods: each
selector of each chaos object must match at least one pod template the run renders (the faulted
Job's pod, or a Deployment of the case's topology). A selector that matches nothing is the bug
where the chaos is "injected" on no pod at all and the faulted run silently runs without its fault.

What can be decided from a pod *template* (before any pod exists) is decided: ``namespaces``,
``labelSelectors`` and ``expressionSelectors`` (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``).
A template has no name, so a selector listing ``pods`` by name matches none. Conditions on nodes,
fields, annotations and pod phases depend on the cluster and are not evaluated here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from faultlib.chaos.render import EMBEDDED_FIELDS, POD_KINDS


@dataclass(frozen=True)
class PodSelector:
    """One pod selector found in a chaos object.

    Attributes:
        path: where it sits in the object, e.g. ``("spec", "target", "selector")``.
        kind: the chaos kind that owns it (the embedded kind inside a Schedule or Workflow).
        selector: the Chaos Mesh ``PodSelectorSpec``.
    """

    path: tuple[str | int, ...]
    kind: str
    selector: Mapping[str, Any]


def _walk(kind: str, spec: Any, path: tuple[str | int, ...]) -> Iterator[PodSelector]:
    if not isinstance(spec, dict):
        return
    if kind in POD_KINDS:
        if isinstance(spec.get("selector"), Mapping):
            yield PodSelector((*path, "selector"), kind, spec["selector"])
        target = spec.get("target")
        if kind == "NetworkChaos" and isinstance(target, Mapping) and isinstance(target.get("selector"), Mapping):
            yield PodSelector((*path, "target", "selector"), kind, target["selector"])
    elif kind == "Schedule":
        inner = spec.get("type")
        field = EMBEDDED_FIELDS.get(inner or "")
        if field:
            yield from _walk(inner, spec.get(field), (*path, field))
    elif kind == "Workflow":
        for index, template in enumerate(spec.get("templates") or []):
            if not isinstance(template, dict):
                continue
            for inner, field in EMBEDDED_FIELDS.items():
                if isinstance(template.get(field), dict):
                    yield from _walk(inner, template[field], (*path, "templates", index, field))


def pod_selectors(obj: Mapping[str, Any]) -> list[PodSelector]:
    """Every pod selector of a rendered chaos object (``spec.selector``, a NetworkChaos's
    ``spec.target.selector``, and those of specs embedded in a Schedule or Workflow), in order."""
    return list(_walk(str(obj.get("kind")), obj.get("spec"), ("spec",)))


def _expression_holds(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator = expression.get("key"), expression.get("operator")
    values = list(expression.get("values") or [])
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False  # an operator Kubernetes does not know selects nothing


def selects(selector: Mapping[str, Any], *, namespace: str, labels: Mapping[str, str]) -> bool:
    """Whether ``selector`` picks a pod in ``namespace`` carrying ``labels``.

    Args:
        selector: a Chaos Mesh ``PodSelectorSpec``.
        namespace: the pod's namespace.
        labels: the pod's labels (a pod template's ``metadata.labels``).

    Returns:
        True when every condition that a pod template can answer holds (see the module docstring).
    """
    namespaces = selector.get("namespaces") or []
    wanted = selector.get("labelSelectors") or {}
    expressions = selector.get("expressionSelectors") or []
    if not isinstance(wanted, Mapping) or not isinstance(expressions, list) or not isinstance(namespaces, list):
        return False  # malformed: the CRD schema check names it
    if (namespaces and namespace not in namespaces) or selector.get("pods"):
        return False
    if any(labels.get(key) != value for key, value in wanted.items()):
        return False
    return all(isinstance(e, Mapping) and _expression_holds(e, labels) for e in expressions)

"""Label faults: serve with the class names in another order than the model was trained with."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector

ORDERS = ("sorted", "reversed", "rotate", "swap")


def reorder(labels: list[Any], order: str, *, shift: int = 1, swap: tuple[int, int] = (0, 1)) -> list[Any]:
    """``labels`` in another order.

    Args:
        labels: the class names by output index.
        order: ``sorted`` (alphabetically, as ``sorted(set(names))`` or a ``LabelEncoder`` on strings
            regenerates them), ``reversed``, ``rotate`` (by ``shift``: an index offset, e.g. a dropped
            background class) or ``swap`` (two indices exchanged).

    Raises:
        InjectionError: an unknown order or a swap index out of range.
    """
    out = list(labels)
    if order == "sorted":
        return sorted(out, key=str)
    if order == "reversed":
        return out[::-1]
    if order == "rotate":
        k = shift % len(out) if out else 0
        return out[k:] + out[:k]
    if order == "swap":
        i, j = swap
        if not (0 <= i < len(out) and 0 <= j < len(out)):
            raise InjectionError(f"label_order: swap {list(swap)} is out of range for {len(out)} labels")
        out[i], out[j] = out[j], out[i]
        return out
    raise InjectionError(f"label_order: unknown order {order!r}; choose one of {', '.join(ORDERS)}")


class LabelOrder(WindowedInjector):
    """Replace the attached service's class-name list by a reordered copy for a window of steps.

    Models a serving config whose ``class_names`` were regenerated in another order than the
    training head's (``sorted(set(names))``, a dict serialised by label, a dropped class shifting
    every index): every prediction still decodes to *a* label, nothing crashes, and accuracy
    collapses. At each step (fault point ``step``) the attribute holds the reordered list inside
    the window and the original outside it, like a config reload and its rollback.

    Params:
        attribute (str): the attached object's attribute holding the list, default ``class_names``.
        order (str): ``sorted`` (default), ``reversed``, ``rotate`` or ``swap``.
        shift (int): for ``rotate``, default 1.
        swap (list[int, int]): for ``swap``, default ``[0, 1]``.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "label_order"
    summary = "serve with the class-name list reordered (sorted, reversed, rotated, swapped) for a window of steps"
    params_schema = WindowedInjector.schema(
        [], attribute={"type": "string", "default": "class_names"}, order={"enum": list(ORDERS), "default": "sorted"},
        shift={"type": "integer", "default": 1},
        swap={"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2,
              "default": [0, 1]})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.attribute: str = params.get("attribute", "class_names")
        self.order: str = params.get("order", "sorted")
        self.shift = int(params.get("shift", 1))
        self.swap = tuple(params.get("swap", [0, 1]))
        self._owner: Any = None
        self._original: list[Any] | None = None
        self._recorded = False

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        labels = getattr(owner, self.attribute, None) if owner is not None else None
        if not isinstance(labels, (list, tuple)) or not labels:
            raise InjectionError(f"label_order needs the attached object to hold a list of class names in "
                                 f"{self.attribute!r}; found {type(labels).__name__}")
        self._owner, self._original = owner, list(labels)
        reordered = reorder(self._original, self.order, shift=self.shift, swap=self.swap)
        if reordered == self._original:
            raise InjectionError(f"label_order: order {self.order!r} leaves {self.attribute} unchanged")

        def reached(_point: str, attributes: dict[str, Any]) -> None:
            active = self.active_at(attributes.get("step"))
            setattr(owner, self.attribute, list(reordered) if active else list(self._original))
            if active:
                self.hits += 1
                if not self._recorded:
                    self._recorded = True
                    moved = sum(a != b for a, b in zip(reordered, self._original))
                    target.record_fault(self.name, step=attributes.get("step"), order=self.order, moved=moved,
                                        attribute=self.attribute)

        target.subscribe("step", reached)

    def revert(self) -> None:
        if self._owner is not None and self._original is not None:
            setattr(self._owner, self.attribute, list(self._original))
        self._owner = None

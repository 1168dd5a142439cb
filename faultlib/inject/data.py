"""Data faults: shims that change what a repro's data pipeline hands on at a named fault point.

A repro passes a value through a data fault point with :func:`through`; in the control phase the value
comes back unchanged, in the faulted phase every shim subscribed to that point (and, for sources, to that
source) replaces it, and records a ``faultlib.fault`` span saying what it changed::

    events = through(ctx, "data.source", events, source="events")     # a pandas DataFrame
    collate = through(ctx, "data.collate", pad_collate)               # the DataLoader's collate_fn

Shims (all deterministic):

- ``collate_override`` (``data.collate``): the collate function becomes ``torch.utils.data.default_collate``,
  which stacks samples and fails on unequal lengths (a refactor that dropped ``collate_fn=``);
- ``key_format`` (``data.source``): a key column rewritten as another system writes it: zero-padded text,
  surrounding whitespace, upper or lower case, or plain text;
- ``clock_skew`` (``data.source``): a timestamp column written by a skewed clock (``offset_ms``) and/or as
  naive local wall-clock time of ``local_zone`` (daylight-saving time included);
- ``duplicate_rows`` (``data.source``): a fraction of rows delivered twice (retries), each copy right
  after its original.

``key_format``, ``clock_skew`` and ``duplicate_rows`` take ``where: {column, equals}`` to act only on the
rows of one subsystem (``{column: site, equals: B}``); shims on the same point apply in case.yaml order.
"""

from __future__ import annotations

from typing import Any, ClassVar

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, Injector

_WHERE = {"type": "object", "additionalProperties": False, "required": ["column", "equals"],
          "properties": {"column": {"type": "string"}, "equals": {"type": ["string", "number", "boolean"]}}}


class Slot:
    """The mutable holder a data fault point passes to its shims: they replace ``value``."""

    def __init__(self, value: Any):
        self.value = value


def through(ctx: Any, point: str, value: Any, **attributes: Any) -> Any:
    """Pass ``value`` through the data fault point ``point``; returns it, replaced by any shim subscribed there.

    Args:
        ctx: the :class:`faultlib.repro.ReproContext` (faults applied by ``ctx.attach`` first).
        point: ``data.source`` or ``data.collate`` (or another point a shim subscribes to).
        value: what flows through (a DataFrame for sources, a function for collate).
        **attributes: what shims match on, e.g. ``source="events"``.

    Raises:
        InjectionError: the phase has faults and ``ctx.attach`` has not applied them yet, or a shim cannot
            act on ``value`` (a missing column).
    """
    slot = Slot(value)
    ctx.fault_point(point, slot=slot, **attributes)
    return slot.value


class DataShim(Injector):
    """A shim that replaces the value flowing through one data fault point (see :func:`through`)."""

    point: ClassVar[str] = "data.source"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._target: FaultTarget | None = None
        self.hits = 0

    def apply(self, target: FaultTarget) -> None:
        self._target = target
        target.subscribe(self.point, self._reached)

    def matches(self, attributes: dict[str, Any]) -> bool:
        source = self.params.get("source")
        return source is None or attributes.get("source") == source

    def _reached(self, point: str, attributes: dict[str, Any]) -> None:
        if self._target is None or not self.matches(attributes):
            return
        slot = attributes.get("slot")
        if not isinstance(slot, Slot):
            raise InjectionError(f"shim {self.name!r}: fault point {point!r} was reached without a value: pass it "
                                 "with faultlib.inject.data.through(ctx, point, value, ...)")
        slot.value, details = self.transform(slot.value)
        self.hits += 1
        self._target.record_fault(self.name, point=point, **{k: v for k, v in attributes.items() if k != "slot"},
                                  **details)

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        """The faulted value and a few JSON scalars describing the change."""
        raise NotImplementedError

    def revert(self) -> None:
        self._target = None


class CollateOverride(DataShim):
    """Replace the DataLoader's collate function with ``torch.utils.data.default_collate``.

    Params:
        collate (str): ``default_collate`` (the only choice: what a DataLoader uses without ``collate_fn``).
    """

    name = "collate_override"
    summary = "replace the collate_fn with torch's default_collate (stacks; fails on unequal lengths)"
    point = "data.collate"
    params_schema = {"type": "object", "additionalProperties": False,
                     "properties": {"collate": {"enum": ["default_collate"], "default": "default_collate"}}}

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        from torch.utils.data import default_collate

        replaced = getattr(getattr(value, "func", value), "__qualname__", type(value).__name__)
        return default_collate, {"collate": "default_collate", "replaced": replaced}


def _rows(frame: Any, where: dict[str, Any] | None, shim: str) -> Any:
    import numpy as np

    if where is None:
        return np.ones(len(frame), dtype=bool)
    if where["column"] not in frame.columns:
        raise InjectionError(f"shim {shim!r}: where.column {where['column']!r} is not a column of the source "
                             f"({', '.join(map(str, frame.columns))})")
    return (frame[where["column"]] == where["equals"]).to_numpy(dtype=bool)


def _column(frame: Any, column: str, shim: str) -> None:
    if column not in frame.columns:
        raise InjectionError(f"shim {shim!r}: column {column!r} is not a column of the source "
                             f"({', '.join(map(str, frame.columns))})")


class KeyFormat(DataShim):
    """Rewrite a key column the way another system writes it.

    Params:
        source (str): the source name passed to :func:`through` (``source=...``).
        column (str): the key column.
        style (str): ``zero_pad`` (``42`` -> ``"000042"``, ``width`` digits), ``whitespace`` (``" 42 "``),
            ``upper``, ``lower``, or ``string`` (text, unchanged otherwise).
        width (int): digits for ``zero_pad``, default 6.
        where (object): ``{column, equals}``: only those rows (default: all).

    The column becomes text (object dtype) when any row changes, as a CSV or JSON writer would keep it.
    """

    name = "key_format"
    summary = "rewrite a key column as another system writes it (zero-padded, whitespace, case, text)"
    params_schema = {"type": "object", "additionalProperties": False, "required": ["source", "column", "style"],
                     "properties": {"source": {"type": "string"}, "column": {"type": "string"},
                                    "style": {"enum": ["zero_pad", "whitespace", "upper", "lower", "string"]},
                                    "width": {"type": "integer", "minimum": 1, "maximum": 32, "default": 6},
                                    "where": _WHERE}}

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        column, style = self.params["column"], self.params["style"]
        _column(value, column, self.name)
        rows = _rows(value, self.params.get("where"), self.name)
        frame = value.copy()
        text = frame[column].astype("string")
        chosen = text[rows]
        if style == "zero_pad":
            chosen = chosen.str.zfill(int(self.params.get("width", 6)))
        elif style == "whitespace":
            chosen = " " + chosen + " "
        elif style == "upper":
            chosen = chosen.str.upper()
        elif style == "lower":
            chosen = chosen.str.lower()
        values = frame[column].astype(object)
        values[rows] = chosen.astype(object).to_numpy()
        frame[column] = values
        return frame, {"column": column, "style": style, "rows": int(rows.sum())}


class ClockSkew(DataShim):
    """Write a timestamp column through a skewed clock and/or as naive local wall-clock time.

    Params:
        source (str): the source name passed to :func:`through`.
        column (str): a tz-aware datetime column (or ISO strings with offsets) holding the true instants.
        offset_ms (number): added to every chosen row's instant, default 0.
        local_zone (str): IANA zone: chosen rows are written as naive wall-clock time there (no offset).
        where (object): ``{column, equals}``: only those rows (default: all).

    The column becomes ISO 8601 text: chosen rows as the skewed (local) clock reads them, the others as UTC
    with ``Z``; that is how a source mixing two writers looks once saved.
    """

    name = "clock_skew"
    summary = "skew a timestamp column's clock and/or write it as naive local time (DST included)"
    params_schema = {"type": "object", "additionalProperties": False, "required": ["source", "column"],
                     "properties": {"source": {"type": "string"}, "column": {"type": "string"},
                                    "offset_ms": {"type": "number", "default": 0},
                                    "local_zone": {"type": "string", "minLength": 1}, "where": _WHERE}}

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        import pandas as pd

        column = self.params["column"]
        _column(value, column, self.name)
        rows = _rows(value, self.params.get("where"), self.name)
        try:
            instants = pd.to_datetime(value[column], utc=True, format="ISO8601")
        except (ValueError, TypeError) as exc:
            raise InjectionError(f"shim {self.name!r}: column {column!r} is not timestamps: {exc}") from exc
        shifted = instants[rows] + pd.Timedelta(milliseconds=float(self.params.get("offset_ms", 0)))
        zone = self.params.get("local_zone")
        out = instants.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").astype(object)
        if zone:
            try:
                local = shifted.dt.tz_convert(zone).dt.tz_localize(None)
            except Exception as exc:  # noqa: BLE001 - an unknown zone name, from zoneinfo/pytz
                raise InjectionError(f"shim {self.name!r}: local_zone {zone!r} is not a time zone: {exc}") from exc
            out[rows] = local.dt.strftime("%Y-%m-%d %H:%M:%S.%f").to_numpy()
        else:
            out[rows] = shifted.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").to_numpy()
        frame = value.copy()
        frame[column] = out
        return frame, {"column": column, "offset_ms": float(self.params.get("offset_ms", 0)), "local_zone": zone or "",
                       "rows": int(rows.sum())}


class DuplicateRows(DataShim):
    """Deliver a fraction of a source's rows twice, each copy right after its original (a retry).

    Params:
        source (str): the source name passed to :func:`through`.
        fraction (number): share of the chosen rows duplicated, in (0, 1].
        seed (int): which rows (numpy PCG64), default 0.
        where (object): ``{column, equals}``: choose only among those rows (default: all).
    """

    name = "duplicate_rows"
    summary = "deliver a fraction of a source's rows twice (retries)"
    params_schema = {"type": "object", "additionalProperties": False, "required": ["source", "fraction"],
                     "properties": {"source": {"type": "string"},
                                    "fraction": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                                    "seed": {"type": "integer", "minimum": 0, "default": 0}, "where": _WHERE}}

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        import numpy as np

        rows = np.nonzero(_rows(value, self.params.get("where"), self.name))[0]
        rng = np.random.Generator(np.random.PCG64(int(self.params.get("seed", 0))))
        count = int(round(float(self.params["fraction"]) * rows.size))
        picked = np.sort(rng.choice(rows, size=count, replace=False)) if count else np.array([], dtype=int)
        order = np.sort(np.concatenate([np.arange(len(value)), picked]), kind="stable")
        frame = value.iloc[order].reset_index(drop=True)
        return frame, {"rows": int(count), "rows_after": int(len(frame))}

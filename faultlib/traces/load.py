"""Reading OTLP/JSON trace files into :class:`TraceSpan` records, defensively.

Three shapes are accepted, told apart by content, never by file name:

- the OpenTelemetry Collector's file exporter and our evidence ``traces.jsonl``: one
  ``ExportTraceServiceRequest`` object (``{"resourceSpans": [...]}``) per line;
- one JSON document (Jaeger's and Tempo's OTLP exports): ``{"resourceSpans": [...]}`` or Tempo's
  ``{"batches": [...]}``, possibly pretty-printed over many lines;
- either of those gzip-compressed (detected by the magic bytes ``1f 8b``; decompressed with a bound).

Every byte goes through :mod:`faultlib.readers` (bounded size, depth and values, finite numbers, no
duplicate keys). Unknown attributes and fields are ignored; missing parents and clock skew are the
graph's business (:mod:`faultlib.traces.graph`), not errors. A file that is empty, not JSON, not
OTLP, or truncated raises :class:`~faultlib.errors.InputError` (exit 2) naming the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.evidence import otlp
from faultlib.readers import load_json
from faultlib.readers.files import Limits, MiB
from faultlib.readers.jsondoc import LINES
from faultlib.readers.jsonstream import CHUNK, Stream, build, events, open_stream, too_large_line
from faultlib.readers.sizes import allowed

#: a trace file (compressed or not) up to 256 MiB; decompressed up to 1 GiB
FILE_LIMITS = Limits(max_bytes=256 * MiB, max_depth=64, max_nodes=20_000_000)
MAX_DECOMPRESSED = 1024 * MiB
STATUS_ERROR = 2
_STATUS_NAMES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}


@dataclass(frozen=True)
class TraceSpan:
    """One span of a trace file.

    Attributes:
        service: the resource's ``service.name`` (``unknown_service`` when absent).
        name: the span name (the operation).
        trace_id, span_id, parent_span_id: hex ids as in the file (``parent_span_id`` empty for a root).
        start_ns, end_ns: times in ns since the epoch (as the emitting host's clock saw them).
        status: OTLP status code (0 unset, 1 ok, 2 error).
        exception: True when the span has an ``exception`` event.
        attributes: the span's attributes (unknown ones kept as they are).
        resource: the resource's attributes.
        line: the 1-based line of the file the span came from (the start of its document).
    """

    service: str
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int
    end_ns: int
    status: int = 0
    exception: bool = False
    attributes: dict[str, Any] = field(default_factory=dict, compare=False)
    resource: dict[str, Any] = field(default_factory=dict, compare=False)
    line: int = 1

    @property
    def duration_ms(self) -> float:
        """End minus start in ms; never negative (a span whose clock ran backwards counts as 0)."""
        return max(self.end_ns - self.start_ns, 0) / 1e6

    @property
    def failed(self) -> bool:
        """Status ERROR or an ``exception`` event."""
        return self.status == STATUS_ERROR or self.exception


def _status(span: dict[str, Any]) -> int:
    code = (span.get("status") or {}).get("code", 0)
    if isinstance(code, str):
        if code not in _STATUS_NAMES:
            raise ValueError(f"status.code {code!r} is not an OTLP status code")
        return _STATUS_NAMES[code]
    if not isinstance(code, int) or isinstance(code, bool):
        raise TypeError("status.code is not an integer")
    return code


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} is not a string")
    return value


def _time(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or isinstance(value, str) and not (
            value.isascii() and value.isdigit() and len(value) <= 20) or isinstance(value, int) and not (
            0 <= value < 2 ** 64):  # int("1e400") said "invalid literal..."; OTLP times are fixed64
        raise TypeError(f"{what} is {str(value)[:40]!r}: OTLP times are integers of nanoseconds (a string of digits)")
    return int(value)


def _span(s: Any, service: str, resource: dict[str, Any], path: Path, line: int) -> TraceSpan:
    """One span object of an OTLP document as a :class:`TraceSpan`.

    Raises:
        InputError: not a span (a missing name, a field of the wrong type), naming the file and line.
    """
    try:
        events = s.get("events") or []
        return TraceSpan(
            service=service, name=_str(s["name"], "span name"),
            trace_id=_str(s.get("traceId", ""), "traceId"), span_id=_str(s.get("spanId", ""), "spanId"),
            parent_span_id=_str(s.get("parentSpanId", ""), "parentSpanId"),
            start_ns=_time(s.get("startTimeUnixNano", 0), "startTimeUnixNano"),
            end_ns=_time(s.get("endTimeUnixNano", 0), "endTimeUnixNano"),
            status=_status(s), exception=any(isinstance(e, dict) and e.get("name") == "exception" for e in events),
            attributes=otlp.attributes(s.get("attributes")), resource=resource, line=line)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        why = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise InputError(f"not OTLP/JSON traces: {why}", path=str(path), line=line) from None


def _decode(doc: Any, path: Path, line: int) -> Iterator[TraceSpan]:
    """The spans of one parsed document (a line of a JSON Lines file)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans", doc.get("batches")), list):
        what = "an object" if isinstance(doc, dict) else f"a {type(doc).__name__}"
        if isinstance(doc, dict) and {"first_nonfinite", "exit_code"} <= doc.keys():
            raise InputError("is a `faultlib trace` report (the NaN trace of a script), not an incident trace: "
                             "--from-trace takes OTLP/JSON spans (an OpenTelemetry Collector file export, a run's "
                             "traces.jsonl)", path=str(path), line=line)
        raise InputError(f"not OTLP/JSON traces: expected an object with a 'resourceSpans' list, got {what}"
                         + (f" with keys {sorted(doc)[:5]}" if isinstance(doc, dict) else ""), path=str(path), line=line)
    try:
        for rs in doc.get("resourceSpans", doc.get("batches")):
            resource = otlp.attributes((rs.get("resource") or {}).get("attributes"))
            service = resource.get("service.name")
            service = service if isinstance(service, str) and service else "unknown_service"
            for ss in rs.get("scopeSpans", rs.get("instrumentationLibrarySpans")) or []:
                for s in ss.get("spans") or []:
                    yield _span(s, service, resource, path, line)
    except (TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"not OTLP/JSON traces: {exc}", path=str(path), line=line) from None


def _first_line(stream: Stream, bound: int) -> tuple[int, bytes, bool]:
    """The first non-blank line (its number, its bytes, whether it is whole: a line over ``bound`` is not)."""
    number = 0
    while True:
        raw = stream.readline(bound + 1)
        if not raw:
            return number, b"", True
        number += 1
        if raw.strip():
            return number, raw, len(raw) <= bound or raw.endswith(b"\n")


def _lines(stream: Stream, path: Path, first: tuple[int, Any], bound: int) -> Iterator[TraceSpan]:
    """JSON Lines: the first document, then one per non-blank line, each parsed on its own (bounded)."""
    number, doc = first
    yield from _decode(doc, path, number)
    raw = stream.readline(bound + 1)
    while raw:
        number += 1
        following = stream.readline(bound + 1)
        if len(raw) > bound and not raw.endswith(b"\n"):
            raise too_large_line(stream, number, bound)
        if raw.strip():
            try:
                doc = load_json(raw, path, line=number, limits=FILE_LIMITS)
            except InputError as exc:
                if not following and not raw.endswith(b"\n"):
                    raise InputError(f"truncated last line (the export was cut off?): {exc.message}",
                                     path=str(path), line=number) from None
                raise
            yield from _decode(doc, path, number)
        raw = following


_ITEM = object()  # the location of a list's item (a key cannot be it)
_LISTS = ("resourceSpans", "batches")
_SCOPES = ("scopeSpans", "instrumentationLibrarySpans")


def _document(stream: Stream, path: Path, line: int) -> Iterator[TraceSpan]:
    """One JSON document read as a stream: each span is built and decoded on its own (with its resource), so
    memory holds one span at a time (and, where a resource comes after its spans, that resource's spans)."""
    rest = events(stream, limits=FILE_LIMITS)
    frames: list[list[Any]] = []  # per open container: [is_map, the key (maps) of the value being read]
    top_keys: list[str] = []
    service, resource, pending, lists = None, {}, [], 0

    def bad(why: str) -> InputError:
        return InputError(f"not OTLP/JSON traces: {why}", path=str(path), line=stream.line)

    for _, event, value in rest:
        if event == "map_key":
            frames[-1][1] = value
            if len(frames) == 1:
                top_keys.append(value)
            continue
        if event in ("end_map", "end_array"):
            frames.pop()
            if len(frames) == 2 and frames[0][1] in _LISTS:  # a resourceSpans item ended: its spans without resource
                for span in pending:
                    yield _span(span, service or "unknown_service", resource, path, line)
                service, resource, pending = None, {}, []
            continue
        where = tuple(key if is_map else _ITEM for is_map, key in frames)
        if not where and event != "start_map":
            what = {"start_array": "list", "string": "str", "number": type(value).__name__, "boolean": "bool",
                    "null": "NoneType"}[event]
            raise bad(f"expected an object with a 'resourceSpans' list, got a {what}")
        kind = where[0] if where else None
        if kind in _LISTS:
            if len(where) == 1 and event != "start_array":
                raise bad(f"'{kind}' is not a list")
            lists += len(where) == 1
            if len(where) == 2 and event != "start_map":
                raise bad(f"an item of '{kind}' is not an object")
            if len(where) == 3 and where[2] == "resource":
                try:
                    resource = otlp.attributes((build(event, value, rest, stream=stream, limits=FILE_LIMITS)
                                                or {}).get("attributes"))
                except (TypeError, ValueError, AttributeError) as exc:
                    raise bad(f"resource: {exc}") from None
                name = resource.get("service.name")
                service = name if isinstance(name, str) and name else "unknown_service"
                for span in pending:
                    yield _span(span, service, resource, path, line)
                pending = []
                continue
            if len(where) == 5 and where[2] in _SCOPES and where[4] == "spans" and event not in ("start_array", "null"):
                raise bad("'spans' is not a list")
            if len(where) == 6 and where[2] in _SCOPES and where[4] == "spans":
                span = build(event, value, rest, stream=stream, limits=SPAN_LIMITS)
                if service is None:
                    pending.append(span)
                else:
                    yield _span(span, service, resource, path, line)
                continue
        if event in ("start_map", "start_array"):
            frames.append([event == "start_map", None])
    if not lists:
        if {"first_nonfinite", "exit_code"} <= set(top_keys):
            raise InputError("is a `faultlib trace` report (the NaN trace of a script), not an incident trace: "
                             "--from-trace takes OTLP/JSON spans (an OpenTelemetry Collector file export, a run's "
                             "traces.jsonl)", path=str(path), line=line)
        raise InputError("not OTLP/JSON traces: expected an object with a 'resourceSpans' list, got an object"
                         + (f" with keys {sorted(top_keys)[:5]}" if top_keys else ""), path=str(path), line=line)


def iter_spans(path: Path | str) -> Iterator[TraceSpan]:
    """The spans of an OTLP/JSON trace file, in file order, read as a stream (see the module docstring for the
    shapes accepted): JSON Lines one line at a time, one document one span at a time, so memory does not grow
    with the file.

    Raises:
        InputError: unreadable, empty, not JSON, not OTLP, truncated (the message names the file and line), as the
            reading reaches the fault: spans before it have been yielded.
    """
    path = Path(path)
    bound = allowed(LINES.max_bytes)
    with open_stream(path, limits=FILE_LIMITS, max_decompressed=MAX_DECOMPRESSED) as stream:
        number, raw, whole = _first_line(stream, bound)
        if not raw:
            raise InputError("is empty: expected OTLP/JSON traces (one ExportTraceServiceRequest per line, "
                             "or one JSON document)", path=str(path))
        doc = _NOT_PARSED
        if whole:
            try:
                doc = load_json(raw, path, line=number, limits=FILE_LIMITS)
            except InputError:
                pass
        if doc is not _NOT_PARSED:
            yield from _lines(stream, path, (number, doc), bound)
            return
        stream.unread(raw)
        try:
            yield from _document(stream, path, number)
        except InputError as exc:
            if "invalid JSON" not in exc.message or stream.bytes > EXACT_ERRORS_BYTES:
                raise
            exact = _exact_error(path)  # a small file: the whole-document parser names the exact line and column
            if exact is None:
                raise
            raise InputError(exact.message, path=str(path), line=exact.line or exc.line) from None


_NOT_PARSED = object()
#: below this many (decompressed) bytes a JSON error of a document is located exactly by parsing it whole
EXACT_ERRORS_BYTES = 64 * MiB
#: a span of a streamed document: at most this many values in it
SPAN_LIMITS = Limits(max_bytes=FILE_LIMITS.max_bytes, max_depth=FILE_LIMITS.max_depth, max_nodes=1_000_000)


def _exact_error(path: Path) -> InputError | None:
    with open_stream(path, limits=FILE_LIMITS, max_decompressed=EXACT_ERRORS_BYTES) as stream:
        data = b"".join(iter(lambda: stream.read(CHUNK), b""))
    try:
        load_json(data, path, limits=FILE_LIMITS)
    except InputError as exc:
        return exc
    return None


def load_spans(path: Path | str) -> list[TraceSpan]:
    """Every span of an OTLP/JSON trace file (see the module docstring for the shapes accepted) in a list:
    for files a person reads whole (a case's recorded traces); :func:`iter_spans` for any size.

    Args:
        path: the trace file (plain or gzip).

    Returns:
        The spans in file order.

    Raises:
        InputError: unreadable, empty, not JSON, not OTLP, truncated, or holding no span at all
            (the message names the file and line).
    """
    spans = list(iter_spans(path))
    if not spans:
        raise no_spans(path)
    return spans


def no_spans(path: Path | str) -> InputError:
    """The error for a trace file that holds no span."""
    return InputError("holds no spans: export the traces of the incident (resourceSpans[].scopeSpans[].spans)",
                      path=str(path))


#: the services of a case made without a trace (``faultlib new NAME``): a person renames them
PLACEHOLDER_CALLER, PLACEHOLDER_CALLEE = ("gateway", "handle_request"), ("upstream", "call_upstream")


def placeholder_spans() -> list[TraceSpan]:
    """The spans :func:`faultlib.traces.scaffold.render` reads when there is no trace: one request of
    :data:`PLACEHOLDER_CALLER` (1.2 s) whose call to :data:`PLACEHOLDER_CALLEE` took 1 s, so the case is the same
    as from a trace that showed one slow downstream call, with names a person replaces."""
    ms = 1_000_000
    return [TraceSpan(*PLACEHOLDER_CALLER, "0" * 31 + "1", "0" * 15 + "1", "", 0, 1200 * ms),
            TraceSpan(*PLACEHOLDER_CALLEE, "0" * 31 + "1", "0" * 15 + "2", "0" * 15 + "1", 100 * ms, 1100 * ms)]

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

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.evidence import otlp
from faultlib.readers import load_json, read_bytes
from faultlib.readers.files import Limits, MiB, decode_text

#: a trace file (compressed or not) up to 256 MiB; decompressed up to 1 GiB
FILE_LIMITS = Limits(max_bytes=256 * MiB, max_depth=64, max_nodes=20_000_000)
MAX_DECOMPRESSED = 1024 * MiB
GZIP_MAGIC = b"\x1f\x8b"
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


def _gunzip(data: bytes, path: Path) -> bytes:
    """Decompress gzip ``data`` (all members), refusing more than :data:`MAX_DECOMPRESSED` bytes."""
    out, total = [], 0
    while data[:2] == GZIP_MAGIC:
        decomp = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            chunk = decomp.decompress(data, MAX_DECOMPRESSED - total + 1)
        except zlib.error as exc:
            raise InputError(f"gzip content is corrupt ({exc}): re-export the trace", path=str(path)) from None
        total += len(chunk)
        if total > MAX_DECOMPRESSED or decomp.unconsumed_tail:
            raise InputError(f"gzip content expands beyond {MAX_DECOMPRESSED} bytes: split the trace",
                             path=str(path))
        if not decomp.eof:
            raise InputError("gzip content is truncated (the stream ends early): re-export the trace",
                             path=str(path))
        out.append(chunk)
        data = decomp.unused_data
    if data.strip(b"\x00 \n\r\t"):
        raise InputError("bytes after the gzip stream are not gzip: re-export the trace", path=str(path))
    return b"".join(out)


def read_documents(path: Path | str) -> list[tuple[int, Any]]:
    """(line, JSON value) for each document of a trace file: one per non-blank line for JSON Lines,
    a single one for a whole-file document.

    Raises:
        InputError: unreadable, empty, invalid gzip, or not JSON (with the line).
    """
    path = Path(path)
    data = read_bytes(path, limits=FILE_LIMITS)
    if data[:2] == GZIP_MAGIC:
        data = _gunzip(data, path)
    text = decode_text(data, path)
    if not text.strip():
        raise InputError("is empty: expected OTLP/JSON traces (one ExportTraceServiceRequest per line, "
                         "or one JSON document)", path=str(path))
    try:
        first = text[:len(text) - len(text.lstrip())].count("\n") + 1
        return [(first, load_json(text, path, limits=FILE_LIMITS))]
    except InputError as whole:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2:
            raise whole from None
        docs = []
        for number, line in lines:
            try:
                docs.append((number, load_json(line, path, line=number, limits=FILE_LIMITS)))
            except InputError as exc:
                if not docs:  # a pretty-printed document that is broken: the whole-file error is the useful one
                    raise whole from None
                if number == lines[-1][0] and not text.endswith("\n"):
                    raise InputError(f"truncated last line (the export was cut off?): {exc.message}",
                                     path=str(path), line=number) from None
                raise
        return docs


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


def _decode(doc: Any, path: Path, line: int) -> list[TraceSpan]:
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans", doc.get("batches")), list):
        what = "an object" if isinstance(doc, dict) else f"a {type(doc).__name__}"
        if isinstance(doc, dict) and {"first_nonfinite", "exit_code"} <= doc.keys():
            raise InputError("is a `faultlib trace` report (the NaN trace of a script), not an incident trace: "
                             "--from-trace takes OTLP/JSON spans (an OpenTelemetry Collector file export, a run's "
                             "traces.jsonl)", path=str(path), line=line)
        raise InputError(f"not OTLP/JSON traces: expected an object with a 'resourceSpans' list, got {what}"
                         + (f" with keys {sorted(doc)[:5]}" if isinstance(doc, dict) else ""), path=str(path), line=line)
    out = []
    try:
        for rs in doc.get("resourceSpans", doc.get("batches")):
            resource = otlp.attributes((rs.get("resource") or {}).get("attributes"))
            service = resource.get("service.name")
            service = service if isinstance(service, str) and service else "unknown_service"
            scopes = rs.get("scopeSpans", rs.get("instrumentationLibrarySpans")) or []
            for ss in scopes:
                for s in ss.get("spans") or []:
                    events = s.get("events") or []
                    out.append(TraceSpan(
                        service=service, name=_str(s["name"], "span name"),
                        trace_id=_str(s.get("traceId", ""), "traceId"), span_id=_str(s.get("spanId", ""), "spanId"),
                        parent_span_id=_str(s.get("parentSpanId", ""), "parentSpanId"),
                        start_ns=_time(s.get("startTimeUnixNano", 0), "startTimeUnixNano"),
                        end_ns=_time(s.get("endTimeUnixNano", 0), "endTimeUnixNano"),
                        status=_status(s), exception=any(isinstance(e, dict) and e.get("name") == "exception"
                                                         for e in events),
                        attributes=otlp.attributes(s.get("attributes")), resource=resource, line=line))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        why = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise InputError(f"not OTLP/JSON traces: {why}", path=str(path), line=line) from None
    return out


def load_spans(path: Path | str) -> list[TraceSpan]:
    """Every span of an OTLP/JSON trace file (see the module docstring for the shapes accepted).

    Args:
        path: the trace file (plain or gzip).

    Returns:
        The spans in file order.

    Raises:
        InputError: unreadable, empty, not JSON, not OTLP, truncated, or holding no span at all
            (the message names the file and line).
    """
    path = Path(path)
    spans: list[TraceSpan] = []
    for line, doc in read_documents(path):
        spans.extend(_decode(doc, path, line))
    if not spans:
        raise InputError("holds no spans: export the traces of the incident (resourceSpans[].scopeSpans[].spans)",
                         path=str(path))
    return spans


#: the services of a case made without a trace (``faultlib new NAME``): a person renames them
PLACEHOLDER_CALLER, PLACEHOLDER_CALLEE = ("gateway", "handle_request"), ("upstream", "call_upstream")


def placeholder_spans() -> list[TraceSpan]:
    """The spans :func:`faultlib.traces.scaffold.render` reads when there is no trace: one request of
    :data:`PLACEHOLDER_CALLER` (1.2 s) whose call to :data:`PLACEHOLDER_CALLEE` took 1 s, so the case is the same
    as from a trace that showed one slow downstream call, with names a person replaces."""
    ms = 1_000_000
    return [TraceSpan(*PLACEHOLDER_CALLER, "0" * 31 + "1", "0" * 15 + "1", "", 0, 1200 * ms),
            TraceSpan(*PLACEHOLDER_CALLEE, "0" * 31 + "1", "0" * 15 + "2", "0" * 15 + "1", 100 * ms, 1100 * ms)]

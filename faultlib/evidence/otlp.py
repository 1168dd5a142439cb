"""OTLP/JSON files: encode OpenTelemetry SDK data as the OTLP/JSON protocol encoding and decode it back.

Encoding uses the official protobuf encoders of ``opentelemetry-exporter-otlp-proto-common``
and ``google.protobuf.json_format``; the one fix-up the OTLP/JSON spec demands is that
trace and span ids are hex strings, not base64 (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding).
One JSON object (an ``Export*ServiceRequest``) per line.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from pathlib import Path
from typing import Any, Sequence

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def _hex_ids(obj: Any) -> Any:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in _ID_KEYS and isinstance(value, str) and value:
                obj[key] = base64.b64decode(value).hex()
            else:
                _hex_ids(value)
    elif isinstance(obj, list):
        for item in obj:
            _hex_ids(item)
    return obj


def to_json_line(message) -> str:
    """One OTLP protobuf request as a single OTLP/JSON line (no trailing newline)."""
    from google.protobuf.json_format import MessageToDict

    data = MessageToDict(message, use_integers_for_enums=True)
    return json.dumps(_hex_ids(data), separators=(",", ":"))


class JsonLinesFile:
    """Append-only, thread-safe writer of whole lines; each line is one ``write(2)`` on an
    ``O_APPEND`` descriptor, so a killed process leaves every completed record on disk and the ranks
    of a distributed repro, appending to the same file, never interleave inside a line (Linux
    serialises writes to one regular file)."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)

    def write(self, line: str) -> None:
        data = (line + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                return
            view = memoryview(data)
            while view:  # a regular file takes the whole line at once; loop for the rare short write
                view = view[os.write(self._fd, view):]

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def make_span_exporter(path: Path):
    """A ``SpanExporter`` writing each exported batch as one OTLP/JSON line to ``path``."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class FileSpanExporter(SpanExporter):
        def __init__(self) -> None:
            self.out = JsonLinesFile(path)

        def export(self, spans: Sequence) -> SpanExportResult:
            self.out.write(to_json_line(encode_spans(spans)))
            return SpanExportResult.SUCCESS

        def shutdown(self) -> None:
            self.out.close()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True  # every line is flushed as it is written

    return FileSpanExporter()


def make_log_exporter(path: Path):
    """A ``LogRecordExporter`` writing each exported batch as one OTLP/JSON line to ``path``."""
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult

    class FileLogExporter(LogRecordExporter):
        def __init__(self) -> None:
            self.out = JsonLinesFile(path)

        def export(self, batch: Sequence) -> LogRecordExportResult:
            self.out.write(to_json_line(encode_logs(batch)))
            return LogRecordExportResult.SUCCESS

        def shutdown(self) -> None:
            self.out.close()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True  # every line is flushed as it is written

    return FileLogExporter()


def write_metrics(path: Path, metrics_data) -> None:
    """Append one ``MetricsData`` snapshot (from a MetricReader) as an OTLP/JSON line."""
    from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics

    out = JsonLinesFile(path)
    try:
        out.write(to_json_line(encode_metrics(metrics_data)))
    finally:
        out.close()


def any_value(value: dict[str, Any]) -> Any:
    """Decode an OTLP/JSON ``AnyValue`` into a Python value.

    Raises:
        TypeError, ValueError: ``value`` is not an ``AnyValue`` object (the readers report the line).
    """
    if not isinstance(value, dict):
        raise TypeError(f"an OTLP AnyValue must be an object, not {type(value).__name__}")
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return attributes(value["kvlistValue"].get("values", []))
    return None


def attributes(items: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Decode an OTLP/JSON attribute list into a dict.

    Raises:
        TypeError, KeyError: not a list of ``{"key": str, "value": AnyValue}`` objects.
    """
    if items is not None and not isinstance(items, list):
        raise TypeError("OTLP attributes must be a list")
    out = {}
    for item in items or []:
        if not isinstance(item["key"], str):
            raise TypeError("an OTLP attribute key must be a string")
        out[item["key"]] = any_value(item.get("value", {}))
    return out


def read_lines(path: Path, problems: list | None = None) -> list[dict[str, Any]]:
    """Every JSON object line of an OTLP/JSON file, read through the hardened JSON Lines reader
    (:func:`faultlib.evidence.problems.json_lines`): a bad line (a torn last line of a process killed
    mid-write, invalid JSON, not an object) is skipped, never fatal, and appended to ``problems``
    (:class:`~faultlib.evidence.problems.EvidenceProblem`) when given. A missing file reads as empty."""
    from faultlib.evidence.problems import EvidenceProblem, json_lines

    problems = [] if problems is None else problems
    out = []
    for number, value in json_lines(Path(path), problems):
        if isinstance(value, dict):
            out.append(value)
        else:
            problems.append(EvidenceProblem(Path(path).name, number, "not a JSON object; skipped"))
    return out

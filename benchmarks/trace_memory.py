"""Peak memory of ``faultlib new NAME --from-trace TRACE`` as the trace grows.

A synthetic incident trace of N spans is written to a temp directory in the two shapes ``--from-trace`` reads:
``jsonl`` (the OpenTelemetry Collector's file exporter: one ``ExportTraceServiceRequest`` per line, 100 traces a
line) and ``document`` (one JSON document, as Jaeger or Tempo export, one span a line). Each trace is a gateway
request (``gateway/handle``, one attribute) calling ``inventory/lookup`` and ``pricing/quote``, one call in 50
slow: about 220 bytes a span, so 10^6 spans stay under the 256 MiB a trace file may have. ``faultlib new`` runs
as a child process per size and shape; its peak resident memory
(``ru_maxrss`` from ``os.wait4``) and wall time are printed beside the file's bytes and against the baseline of the
same run: ``faultlib new NAME`` without a trace (the interpreter and the imports).

Goal (users37): memory that does not grow with the spans' text: 10^6 spans well under the ~1.3 GB a whole-file read
took. The graph keeps one compact record per span (its node, times, parent) to join children to parents anywhere in
the file, so memory still grows with the span count, by tens of bytes per span rather than a parsed document.

Usage: ``python benchmarks/trace_memory.py [--sizes 100000,1000000] [--shapes jsonl,document] [--json]``.
Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _span(trace: int, span: int, parent: int | None, service: str, name: str, start: int, ms: float) -> dict:
    return {"traceId": f"{trace:032x}", "spanId": f"{span:016x}",
            **({"parentSpanId": f"{parent:016x}"} if parent is not None else {}),
            "name": name, "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + int(ms * 1e6)),
            **({"attributes": [{"key": "peer.service", "value": {"stringValue": service}}]} if parent is None else {})}


def _batch(first_trace: int, traces: int) -> dict:
    by_service: dict[str, list] = {"gateway": [], "inventory": [], "pricing": []}
    for t in range(first_trace, first_trace + traces):
        start = 1_700_000_000_000_000_000 + t * 10_000_000
        slow = 400.0 if t % 50 == 0 else 12.0
        by_service["gateway"].append(_span(t, 3 * t + 1, None, "gateway", "handle", start, slow + 30))
        by_service["inventory"].append(_span(t, 3 * t + 2, 3 * t + 1, "inventory", "lookup", start + 1000, slow))
        by_service["pricing"].append(_span(t, 3 * t + 3, 3 * t + 1, "pricing", "quote", start + 2000, 8.0))
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": s}}]},
                               "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}
                              for s, spans in by_service.items()]}


def write_trace(path: Path, spans: int, shape: str) -> int:
    """Write about ``spans`` spans (a multiple of 300) to ``path``; returns its bytes."""
    lines = max(1, spans // 300)
    with open(path, "w", encoding="utf-8") as f:
        if shape == "jsonl":
            for i in range(lines):
                f.write(json.dumps(_batch(i * 100, 100), separators=(",", ":")) + "\n")
        else:  # one document: every batch's resourceSpans in one list, pretty-printed
            f.write('{\n  "resourceSpans": [\n')
            for i in range(lines):
                text = ",\n".join(json.dumps(rs, separators=(",", ":")).replace('},{"traceId', '},\n{"traceId')
                                   for rs in _batch(i * 100, 100)["resourceSpans"])
                f.write(text + (",\n" if i < lines - 1 else "\n"))
            f.write("  ]\n}\n")
    return path.stat().st_size


def measure(args: list[str], cwd: Path) -> dict:
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace")[-300:]
    proc.stderr.close()
    return {"exit_code": os.waitstatus_to_exitcode(status), "seconds": round(time.monotonic() - started, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "stderr": err.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--shapes", default="jsonl,document")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="faultlib-trace-mem-") as tmp:
        root = Path(tmp)
        base = measure(["new", "baseline_case", "--out", str(root / "out")], root)
        for size in map(int, opts.sizes.split(",")):
            for shape in opts.shapes.split(","):
                trace = root / f"trace-{size}.{shape}"
                size_bytes = write_trace(trace, size, shape)
                run = measure(["new", f"case_{shape}_{size}", "--from-trace", str(trace), "--out", str(root / "out")],
                              root)
                run.update(spans=size // 300 * 300, shape=shape, file_mb=round(size_bytes / 2 ** 20, 1),
                           ratio_to_baseline=round(run["peak_rss_mb"] / base["peak_rss_mb"], 2))
                results.append(run)
                trace.unlink()
                if not opts.json:
                    print(f"{run['spans']:>9,} spans {shape:8} {run['file_mb']:7.1f} MB file: peak RSS "
                          f"{run['peak_rss_mb']:7.1f} MB ({run['ratio_to_baseline']:.2f}x baseline), "
                          f"{run['seconds']:6.1f} s, exit {run['exit_code']} {run['stderr'][-120:]}", flush=True)
    if opts.json:
        print(json.dumps({"baseline": base, "runs": results}, indent=1))
    else:
        print(f"baseline (`faultlib new` without a trace): peak RSS {base['peak_rss_mb']} MB, {base['seconds']} s")


if __name__ == "__main__":
    main()

"""File names of the evidence layout, the same in every archive (DESIGN.md).

``<archive>/<case_id>/<run_id>/``::

    manifest.json   every other file with bytes and sha256; written last; a run is complete only with it
    run.json        the run record (schemas/run.schema.json)
    traces.jsonl    OTLP/JSON ExportTraceServiceRequest per line, both phases (resource attr faultlib.phase)
    metrics.jsonl   OTLP/JSON ExportMetricsServiceRequest per line: one cumulative snapshot of every series each
                    second, at every change of the fault window and at exit (time series)
    metrics.prom    Prometheus text exposition of the final metric values (labels phase, window)
    metrics.om      OpenMetrics text of every snapshot with sample timestamps, both phases (labels phase, window,
                    case, run_id), # EOF last: for promtool tsdb create-blocks-from openmetrics; written by the
                    runner when the phases end, before the assertion suite
    logs.jsonl      OTLP/JSON ExportLogsServiceRequest per line
    findings.jsonl  one {"phase", "finding"} object per line, every detector finding of the repro
    promql.json     the case's PromQL evaluated per phase and fault window (``--prometheus``; schemas/promql.schema.json)
    prometheus.log  with ``--prometheus``, when the evaluation failed: Prometheus' own log (its tail), or why it
                    could not start; its presence tells a skipped PromQL assertion why there are no results
    stdout.txt      stdout of each phase, after a "# faultlib phase=NAME" header line
    stderr.txt      stderr of each phase, likewise (tracebacks land here)
    junit.xml       the assertion suite's JUnit XML
    assertions.txt  the assertion suite's pytest output (failure details)
    dumps/          state dumps written by detectors
"""

MANIFEST = "manifest.json"
RUN = "run.json"
TRACES = "traces.jsonl"
METRICS = "metrics.jsonl"
METRICS_PROM = "metrics.prom"
METRICS_OM = "metrics.om"
LOGS = "logs.jsonl"
FINDINGS = "findings.jsonl"
PROMQL = "promql.json"
PROMETHEUS_LOG = "prometheus.log"
STDOUT = "stdout.txt"
STDERR = "stderr.txt"
JUNIT = "junit.xml"
ASSERTIONS_LOG = "assertions.txt"
DUMPS = "dumps"

PHASES = ("control", "faulted")

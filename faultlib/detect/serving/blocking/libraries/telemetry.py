"""OpenTelemetry SDK providers whose flush and shutdown wait for their exporters (``TracerProvider``,
``MeterProvider``, ``LoggerProvider``, the batch processors).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
A provider's ``force_flush`` hands every buffered span, metric or log record to its exporters and waits for them
(an OTLP export is an HTTP or gRPC request), up to ``timeout_millis`` (30 s by default); ``shutdown`` flushes the
same way and joins the processors' worker threads. Called in an ``async def`` (an ASGI lifespan's shutdown, held-out
wave 46: the documented fix soma-smart/le-coffre af9d4ffb moved six of them to ``asyncio.to_thread``) they hold the
loop for the export. Creating a provider, ``get_tracer``/``get_meter`` and recording spans only buffer: not listed.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

TRACES = ("https://opentelemetry-python.readthedocs.io/en/latest/sdk/trace.html#opentelemetry.sdk.trace.TracerProvider"
          ".force_flush (\"Requests the active span processor to process all spans that have not yet been processed\", "
          "waiting up to timeout_millis) and .shutdown; BatchSpanProcessor.force_flush exports the queue and waits")
METRICS = ("https://opentelemetry-python.readthedocs.io/en/latest/sdk/metrics.html#opentelemetry.sdk.metrics."
           "MeterProvider.force_flush (collects and exports every reader's metrics, waiting up to timeout_millis) and "
           ".shutdown")
LOGS = ("https://opentelemetry-python.readthedocs.io/en/latest/sdk/_logs.html (LoggerProvider.force_flush / shutdown "
        "export the buffered log records through the BatchLogRecordProcessor and wait for it)")

_WAITS = {"force_flush": H, "shutdown": H}

TELEMETRY = Vocabulary(families=(
    Family(("opentelemetry.sdk.trace.TracerProvider", "opentelemetry.sdk.trace.export.BatchSpanProcessor"),
           _WAITS, TRACES),
    Family(("opentelemetry.sdk.metrics.MeterProvider",
            "opentelemetry.sdk.metrics.export.PeriodicExportingMetricReader"), _WAITS, METRICS),
    Family(("opentelemetry.sdk._logs.LoggerProvider", "opentelemetry.sdk._logs.export.BatchLogRecordProcessor"),
           _WAITS, LOGS),
))

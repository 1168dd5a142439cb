"""Tracing and analytics SDKs that queue what they record for a background sender: recording returns at once; their
flush, shutdown and API reads and writes are requests on the calling thread.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Naming
such a package here also ends the inference of unlisted clients for it
(:mod:`~faultlib.detect.serving.blocking.inferred`): given a host and keys, Langfuse looks like a synchronous client,
but its ``trace``/``span``/``generation``/``event``/``score`` only build an event and put it on an in-memory queue
that a thread of the SDK sends in batches (held-out wave 57: ``Langfuse.score`` in a Slack bot's reaction handler; held-out wave 62: Amplitude's ``track``
in a Telegram bot's handlers).
The calls listed are the ones that wait: ``flush`` and ``shutdown`` drain the queue and wait for the batches, and
the dataset, prompt and fetch methods are one HTTP request each. Each entry names its documentation.

Langfuse 3 moved tracing onto OpenTelemetry: ``get_client()`` returns the process's ``Langfuse`` client (whose
``flush`` force-flushes the span exporter and waits for the export), and its LangChain integration,
``langfuse.langchain.CallbackHandler``, only turns LangChain callbacks into spans: it has no ``flush``, no
``shutdown`` and no ``auth_check`` of its own (``langfuse/langchain/CallbackHandler.py``: the ``on_*`` hooks and
their helpers), so ``handler.flush()`` there is guarded dead code or an AttributeError, and the flush that waits is
the client's (held-out wave 64: ``if hasattr(handler, "flush"): handler.flush()`` then ``get_client().flush()``).
Only version 2's ``langfuse.callback.CallbackHandler`` flushes.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

LANGFUSE = ("https://langfuse.com/docs/sdk/python/low-level-sdk (v2: \"the SDK ... sends the events asynchronously in "
            "batches\" from a background thread; flush() \"blocks until all events are sent\", shutdown() flushes and "
            "stops the threads) and https://python.reference.langfuse.com/langfuse/client (create_dataset, "
            "create_dataset_item, get_dataset, get_prompt on a cache miss, fetch_traces...: one API request each)")
LANGFUSE_CALLBACK = ("https://langfuse.com/docs/integrations/langchain/tracing (v2's langfuse.callback.CallbackHandler: "
                     "flush waits for the handler's queued events to be sent; auth_check is a request)")
LANGFUSE_3 = ("https://langfuse.com/docs/observability/sdk/python/overview (v3: get_client() returns the process's "
              "Langfuse client; its flush() sends the buffered spans and scores and waits for them, shutdown() "
              "flushes and stops)")
POSTHOG = ("https://posthog.com/docs/libraries/python (capture queues the event for a consumer thread; flush() waits "
           "for the queue to be sent, shutdown() flushes and joins the consumers)")
AMPLITUDE = ("https://amplitude.com/docs/sdks/analytics/python/python-sdk (amplitude-analytics: \"events wait in the "
             "buffer and send in a batch\" when flush_queue_size is reached or every flush_interval_millis, so track "
             "and identify return at once; shutdown() flushes the buffer and stops the client's workers)")

_LANGFUSE_API = ("flush", "shutdown", "auth_check", "get_prompt", "create_prompt", "create_dataset",
                 "create_dataset_item", "get_dataset", "get_dataset_item", "get_dataset_run", "get_dataset_runs",
                 "fetch_trace", "fetch_traces", "fetch_observation", "fetch_observations", "fetch_sessions",
                 "get_trace", "get_traces", "get_observations", "get_generations")

EVENT_QUEUES = Vocabulary(families=(
    Family(("langfuse.Langfuse", "langfuse.client.Langfuse", "langfuse._client.client.Langfuse"),
           {m: H for m in _LANGFUSE_API}, f"{LANGFUSE}; {LANGFUSE_3}"),
    Family(("langfuse.callback.CallbackHandler",), {"flush": H, "auth_check": H}, LANGFUSE_CALLBACK),
    Family(("posthog.Posthog", "posthog.Client", "posthog.client.Client"), {"flush": H, "shutdown": H, "join": H},
           POSTHOG),
    Family(("amplitude.Amplitude", "amplitude.client.Amplitude"), {"shutdown": H}, AMPLITUDE),
), returns={f"langfuse.{path}get_client": "langfuse.Langfuse" for path in ("", "_client.get_client.")})  # LANGFUSE_3

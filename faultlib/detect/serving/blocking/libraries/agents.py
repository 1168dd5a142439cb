"""Agent frameworks whose agents answer through a synchronous LLM client: Atomic Agents (``atomic_agents``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; LLM
SDKs themselves are in :mod:`faultlib.detect.serving.blocking.sdks`). An ``AtomicAgent``'s ``run`` and
``run_stream`` call its (instructor-wrapped) client and wait for the model's whole answer in the calling thread;
``run_async``/``run_async_stream`` are the async twins and are left out (a method whose name says it is async is
never owned). A project's own subclass of ``AtomicAgent`` is owned too (its base names the family). Each entry
names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

ATOMIC_AGENTS = ("https://github.com/BrainBlend-AI/atomic-agents#basic-usage (agent.run(input) sends the chat to the "
                 "client and returns the parsed answer; run_async with an async client is the twin)")

AGENTS = Vocabulary(
    calls={},
    families=(
        Family(("atomic_agents",), {"run": H, "run_stream": H, "get_response": H}, ATOMIC_AGENTS, package=True,
               functions=False),
    ),
    returns={},
)

"""Agent frameworks whose agents answer through a synchronous LLM client: Atomic Agents (``atomic_agents``) and
the structured-output wrapper they build on, instructor.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; LLM
SDKs themselves are in :mod:`faultlib.detect.serving.blocking.sdks`). An ``AtomicAgent``'s ``run`` and
``run_stream`` call its (instructor-wrapped) client and wait for the model's whole answer in the calling thread;
``run_async``/``run_async_stream`` are the async twins and are left out (a method whose name says it is async is
never owned). A project's own subclass of ``AtomicAgent`` is owned too (its base names the family).
``instructor.from_openai(client)`` (``from_anthropic``, ``from_litellm``, ``from_bedrock`` -- held-out wave 53, an
agent framework's Bedrock structured-output task --...) wraps a client as an ``Instructor``
whose ``chat.completions.create`` (``create_partial``, ``create_iterable``, ``create_with_completion``) sends the
request and waits for the parsed answer; wrapping an async client gives an ``AsyncInstructor`` whose calls are
awaited, and an awaited call is never a blocker. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

ATOMIC_AGENTS = ("https://github.com/BrainBlend-AI/atomic-agents#basic-usage (agent.run(input) sends the chat to the "
                 "client and returns the parsed answer; run_async with an async client is the twin)")

INSTRUCTOR = ("https://python.useinstructor.com/concepts/patching/ (from_openai wraps the client; "
              "client.chat.completions.create sends the request and returns the validated model)")
_INSTRUCTOR = "instructor.Instructor"

AGENTS = Vocabulary(
    calls={},
    families=(
        Family(("atomic_agents",), {"run": H, "run_stream": H, "get_response": H}, ATOMIC_AGENTS, package=True,
               functions=False),
        Family((_INSTRUCTOR, "instructor.client.Instructor"), {m: H for m in (
            "create", "create_partial", "create_iterable", "create_with_completion")}, INSTRUCTOR, resources=True),
    ),
    returns={f"instructor.{f}": _INSTRUCTOR for f in (
        "from_openai", "from_anthropic", "from_litellm", "from_gemini", "from_mistral", "from_groq", "from_cohere",
        "from_provider", "from_bedrock", "from_genai", "from_vertexai", "from_fireworks", "from_cerebras",
        "from_writer")},
)

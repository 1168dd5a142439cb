"""Agent and pipeline frameworks whose sync entry points run a whole LLM exchange in the calling thread: CrewAI
crews, AG2/AutoGen 0.2 conversable agents, smolagents agents, Pydantic AI's ``run_sync``, DSPy modules and Haystack
pipelines.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Atomic
Agents and instructor are in :mod:`~faultlib.detect.serving.blocking.libraries.agents`, LangChain in
:mod:`~faultlib.detect.serving.blocking.libraries.models`). Each entry names the documentation of the call.
The async twins stay silent: ``akickoff``/``kickoff_async``, ``a_initiate_chat``, Pydantic AI's ``run`` (a coroutine),
DSPy's ``acall``, Haystack's ``AsyncPipeline`` and ``run_async``; AutoGen 0.4 (``autogen_agentchat``) is async
and is not named.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
F = "blocking_file_io"
CREWAI = ("https://docs.crewai.com/en/learn/kickoff-async (kickoff runs every task to the end in the calling thread; "
          "akickoff is native async and kickoff_async wraps kickoff in asyncio.to_thread) and "
          "https://docs.crewai.com/concepts/llms (LLM.call is a sync completion)")
AG2 = ("https://microsoft.github.io/autogen/0.2/docs/reference/agentchat/conversable_agent (initiate_chat, "
       "generate_reply, send and receive are sync and call the LLM; a_initiate_chat, a_generate_reply, a_send and "
       "a_receive are the twins)")
SMOLAGENTS = ("https://huggingface.co/docs/smolagents/reference/agents#smolagents.MultiStepAgent.run (run loops over "
              "model calls and tool executions in the calling thread; the models' generate is one sync request)")
PYDANTIC_AI = ("https://ai.pydantic.dev/agents/#running-agents (run_sync runs the agent synchronously; run is the "
               "coroutine)")
DSPY = ("https://dspy.ai/tutorials/async/ (calling a module runs it synchronously, the LM request included; acall "
        "is the async twin) and https://dspy.ai/tutorials/saving/ (a module's save writes its state file and load "
        "reads one back)")
HAYSTACK = ("https://docs.haystack.deepset.ai/docs/pipelines#running-pipelines (Pipeline.run runs every component "
            "in the calling thread; AsyncPipeline and run_async are the twins) and https://docs.haystack.deepset.ai/"
            "docs/components (a component's run is sync; warm_up loads its model)")
AGENT_KITS = Vocabulary(
    calls={},
    families=(
        Family(("crewai",), {m: H for m in ("kickoff", "kickoff_for_each", "train", "test", "replay", "call")},
               CREWAI, package=True, functions=False),
        Family(("autogen",), {m: H for m in ("initiate_chat", "initiate_chats", "generate_reply", "send", "receive",
                                             "run")}, AG2, package=True, functions=False),
        Family(("smolagents",), {m: H for m in ("run", "generate", "generate_stream")}, SMOLAGENTS, package=True,
               functions=False),
        Family(("pydantic_ai.Agent", "pydantic_ai.agent.Agent"), {"run_sync": H, "run_stream_sync": H}, PYDANTIC_AI),
        Family(("dspy.",), {"__call__": H, "forward": H, "load": F, "save": F}, DSPY, prefix=True, suffix=(
            "Predict", "ChainOfThought", "ReAct", "ProgramOfThought", "MultiChainComparison", "Module", "LM",
            "Refine", "BestOfN", "CodeAct", "Retrieve")),
        Family(("haystack.Pipeline", "haystack.core.pipeline.Pipeline", "haystack.core.pipeline.pipeline.Pipeline"),
               {"run": H}, HAYSTACK),
        Family(("haystack.components.",), {"run": H, "warm_up": "blocking_file_io"}, HAYSTACK, prefix=True),
    ),
    returns={},
)

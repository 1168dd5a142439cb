"""LLM clients and tokenizers outside the SDK table: LiteLLM's sync functions and router, Anthropic's Bedrock and
Vertex clients, Vertex AI's generative models, tiktoken's encodings (and LangChain's splitters built on them),
LangGraph's compiled graphs and LlamaIndex's indexes, query and chat engines.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
OpenAI-shaped SDK clients -- openai, anthropic, groq, mistral, together, cohere, google-genai, ollama -- are in
:mod:`~faultlib.detect.serving.blocking.sdks` and :mod:`~faultlib.detect.serving.blocking.libraries.http`). Each
entry names the documentation of the call. Every library here documents an async twin, which stays silent:
``litellm.acompletion``, ``AsyncAnthropicBedrock``, ``generate_content_async``, ``graph.ainvoke``/``astream``,
``query_engine.aquery``/``chat_engine.achat``.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

H, F = "blocking_http", "blocking_file_io"
LITELLM = ("https://docs.litellm.ai/docs/completion/input (completion is a synchronous call to the provider; "
           "acompletion is the async twin, https://docs.litellm.ai/docs/completion/stream#async-completion)")
_LITELLM_CALLS = ("completion", "text_completion", "embedding", "image_generation", "transcription", "speech",
                  "moderation", "rerank", "responses", "completion_with_retries", "batch_completion")
ANTHROPIC_CLOUDS = ("https://docs.anthropic.com/en/api/claude-on-amazon-bedrock and https://docs.anthropic.com/en/"
                    "api/claude-on-vertex-ai (AnthropicBedrock and AnthropicVertex are the sync clients; "
                    "AsyncAnthropicBedrock/AsyncAnthropicVertex the twins)")
VERTEX = ("https://cloud.google.com/python/docs/reference/vertexai/latest/vertexai.generative_models.GenerativeModel "
          "(generate_content and count_tokens are sync requests; generate_content_async the twin)")
TIKTOKEN = ("https://github.com/openai/tiktoken/blob/main/tiktoken/registry.py and tiktoken/load.py (the first "
            "get_encoding of a name downloads the BPE file, or reads it from the cache directory, and builds the "
            "encoder in the calling thread)")
TIKTOKEN_SPLITTERS = ("https://python.langchain.com/api_reference/text_splitters/base/langchain_text_splitters.base."
                      "TokenTextSplitter.html (the constructor, and TextSplitter.from_tiktoken_encoder, call "
                      "tiktoken.get_encoding/encoding_for_model: the first use of an encoding loads its BPE file)")
_SPLITTER_MODULES = ("langchain_text_splitters", "langchain_text_splitters.base", "langchain_text_splitters.character",
                     "langchain.text_splitter")
TOKENIZERS = ("https://huggingface.co/docs/tokenizers/api/tokenizer#tokenizers.Tokenizer.from_pretrained (downloads "
              "the tokenizer file from the Hub)")
LANGGRAPH = ("https://langchain-ai.github.io/langgraph/concepts/low_level/#compiling-your-graph (a compiled graph "
             "is a Runnable: invoke/stream/batch run every node in the calling thread; ainvoke/astream the twins)")
LLAMA_INDEX = ("https://docs.llamaindex.ai/en/stable/module_guides/indexing/vector_store_index/ (from_documents "
               "and a constructor given nodes embed every node; as_query_engine/as_chat_engine/as_retriever build the "
               "engines whose query/chat/retrieve are sync, aquery/achat/aretrieve the twins)")
LLAMA_STORAGE = ("https://docs.llamaindex.ai/en/stable/module_guides/storing/save_load/ (load_index_from_storage "
                 "reads the persisted stores from persist_dir)")
_INDEXES = tuple(f"{m}.{c}" for m in ("llama_index.core", "llama_index.core.indices", "llama_index")
                 for c in ("VectorStoreIndex", "SummaryIndex", "ListIndex", "KeywordTableIndex", "TreeIndex",
                           "KnowledgeGraphIndex", "PropertyGraphIndex", "DocumentSummaryIndex"))
_GRAPHS = ("langgraph.graph.StateGraph", "langgraph.graph.state.StateGraph", "langgraph.graph.MessageGraph",
           "langgraph.graph.Graph", "langgraph.graph.graph.Graph")
_COMPILED = "langgraph.graph.state.CompiledStateGraph"
LLM_CLIENTS = Vocabulary(
    calls={
        **{f"litellm.{p}{f}": (H, LITELLM) for p in ("", "main.") for f in _LITELLM_CALLS},
        **{f"tiktoken.{p}{f}": (F, TIKTOKEN) for p in ("", "registry.", "model.")
           for f in ("get_encoding", "encoding_for_model")},
        **{f"{m}.TokenTextSplitter": (F, TIKTOKEN_SPLITTERS) for m in _SPLITTER_MODULES},
        **{f"{m}.{c}.from_tiktoken_encoder": (F, TIKTOKEN_SPLITTERS) for m in _SPLITTER_MODULES
           for c in ("TextSplitter", "CharacterTextSplitter", "RecursiveCharacterTextSplitter")},
        **{f"tokenizers.{c}.from_pretrained": (H, TOKENIZERS) for c in ("Tokenizer", "implementations.BaseTokenizer")},
        **{f"{i}.from_documents": (H, LLAMA_INDEX) for i in _INDEXES},
        **{f"{i}": (H, LLAMA_INDEX) for i in _INDEXES},
        **{f"{m}.load_index_from_storage": (F, LLAMA_STORAGE) for m in (
            "llama_index.core", "llama_index", "llama_index.core.indices.loading")},
    },
    when={i: BlocksWhen("nodes", position=0, test="given") for i in _INDEXES},
    families=(
        Family(("litellm.Router", "litellm.router.Router"), {m: H for m in _LITELLM_CALLS},
               "https://docs.litellm.ai/docs/routing (router.completion is sync; router.acompletion the twin)"),
        Family(("anthropic.AnthropicBedrock", "anthropic.AnthropicVertex", "anthropic.lib.bedrock.AnthropicBedrock",
                "anthropic.lib.vertex.AnthropicVertex"),
               {m: H for m in ("create", "stream", "count_tokens", "list", "retrieve", "parse")}, ANTHROPIC_CLOUDS,
               resources=True),
        Family(("vertexai",), {m: H for m in ("generate_content", "count_tokens", "compute_tokens", "send_message",
                                              "predict", "predict_streaming", "get_embeddings",
                                              "send_message_streaming")},
               VERTEX, package=True, functions=False),
        Family(("langgraph.",), {m: H for m in ("invoke", "stream", "batch", "batch_as_completed")}, LANGGRAPH,
               prefix=True, suffix=("Graph", "Pregel")),
    ),
    returns={
        **{f"{g}.compile": _COMPILED for g in _GRAPHS},
        **{f"langgraph.prebuilt.{p}create_react_agent": _COMPILED for p in ("", "chat_agent_executor.")},
        **{f"{i}.{m}": i for i in _INDEXES for m in ("from_documents", "from_vector_store")},
        **{f"{i}.as_query_engine": "llama_index.core.base.base_query_engine.BaseQueryEngine" for i in _INDEXES},
        **{f"{i}.as_chat_engine": "llama_index.core.chat_engine.types.BaseChatEngine" for i in _INDEXES},
        **{f"{i}.as_retriever": "llama_index.core.base.base_retriever.BaseRetriever" for i in _INDEXES},
        **{f"{m}.load_index_from_storage": "llama_index.core.VectorStoreIndex" for m in (
            "llama_index.core", "llama_index", "llama_index.core.indices.loading")},
    },
)

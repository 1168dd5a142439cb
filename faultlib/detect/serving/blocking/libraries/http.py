"""Synchronous HTTP clients: requests, urllib3, httpx, grequests, the OpenAI, Anthropic and Cartesia sync clients.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`);
each entry names the documentation that says the call blocks the calling thread.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import HTTP_VERBS
from faultlib.detect.serving.blocking.libraries.names import names as _names

REQUESTS = "https://requests.readthedocs.io/en/latest/api/"
HTTPX = "https://www.python-httpx.org/async/"
OPENAI = "https://github.com/openai/openai-python#async-usage"
OPENAI_MODULE = "https://github.com/openai/openai-python#module-level-client (a global synchronous OpenAI client)"
CARTESIA = ("https://github.com/cartesia-ai/cartesia-python#async-usage (Cartesia is the sync client: tts.bytes, "
            "tts.sse, voices.* are HTTP requests in the calling thread; AsyncCartesia is the twin)")
HTTP_CLIENTS = Vocabulary(
    calls={
        # openai < 1.0: embeddings_utils.get_embedding(s) call the sync Embedding.create (aget_embedding is the twin)
        **_names("blocking_http", "https://github.com/openai/openai-python/blob/v0.28.1/openai/embeddings_utils.py",
                 "openai.embeddings_utils", "get_embedding", "get_embeddings"),
        **_names("blocking_http", REQUESTS, "requests", *HTTP_VERBS), **_names("blocking_http", REQUESTS,
                                                                               "requests.api", *HTTP_VERBS),
        **_names("blocking_http", REQUESTS, "requests.Session", *HTTP_VERBS, "send"),
        **_names("blocking_http", REQUESTS, "requests.sessions.Session", *HTTP_VERBS, "send"),
        **_names("blocking_http", "https://urllib3.readthedocs.io/en/stable/reference/", "urllib3", "request"),
        **_names("blocking_http", "https://github.com/spyoungtech/grequests#usage (map/imap send the requests "
                 "with gevent and wait for them in the calling thread)", "grequests", "map", "imap",
                 "imap_enumerated"),
        **_names("blocking_http", "https://urllib3.readthedocs.io/en/stable/reference/", "urllib3.PoolManager",
                 "request", "urlopen"),
        **_names("blocking_http", HTTPX, "httpx", *HTTP_VERBS, "stream"),
        **_names("blocking_http", HTTPX, "httpx.Client", *HTTP_VERBS, "send", "stream"),
        # the pre-1.0 module-level OpenAI API (openai<1): every call a synchronous request; `acreate` is the async one
        **{f"openai.{r}.create": ("blocking_http", "https://github.com/openai/openai-python/blob/v0.28.1/README.md")
           for r in ("ChatCompletion", "Completion", "Embedding", "Image", "Edit", "Moderation")},
        **_names("blocking_http", "https://github.com/openai/openai-python/blob/v0.28.1/README.md", "openai.Audio",
                 "transcribe", "translate"),
        # openai >= 1: the module-level client (`openai.chat.completions.create`) is a global sync OpenAI client
        **{f"openai.{r}": ("blocking_http", OPENAI_MODULE) for r in (
            "chat.completions.create", "chat.completions.parse", "completions.create", "embeddings.create",
            "images.generate", "images.edit", "images.create_variation", "audio.transcriptions.create",
            "audio.translations.create", "audio.speech.create", "moderations.create", "responses.create",
            "files.create", "models.list")},
        **{f"diffusers.utils.{m}load_image": ("blocking_http", "https://huggingface.co/docs/diffusers/api/utilities#"
                                              "diffusers.utils.load_image (a URL is fetched with requests, a path "
                                              "read from disk)") for m in ("", "loading_utils.")},
    },
    families=(
        Family(("openai.OpenAI", "openai.AzureOpenAI", "openai.Client", "anthropic.Anthropic", "anthropic.Client"),
               {"create": "blocking_http", "generate": "blocking_http", "retrieve": "blocking_http",
                "list": "blocking_http", "delete": "blocking_http", "parse": "blocking_http",
                "stream": "blocking_http", "create_variation": "blocking_http", "edit": "blocking_http",
                "upload": "blocking_http", "content": "blocking_http",
                # the SDK's other resource verbs (each one request) and its polling helpers, which request and
                # sleep until the run, batch, upload or vector-store file reaches a final state
                **{m: "blocking_http" for m in (
                    "update", "cancel", "pause", "resume", "retrieve_content", "list_events", "count_tokens",
                    "results", "submit_tool_outputs", "create_and_run", "poll", "create_and_poll",
                    "create_and_run_poll", "submit_tool_outputs_and_poll", "upload_and_poll", "create_and_stream",
                    "create_and_run_stream", "submit_tool_outputs_stream", "wait_for_processing")}},
               OPENAI, resources=True),
        Family(("cartesia.Cartesia",), {"*": "blocking_http"}, CARTESIA, resources=True,
               except_=frozenset({"close", "with_options", "with_raw_response", "with_streaming_response"})),
    ),
    returns={"requests.session": "requests.Session", "requests.Session": "requests.Session",
             "httpx.Client": "httpx.Client", "urllib3.PoolManager": "urllib3.PoolManager"},
)

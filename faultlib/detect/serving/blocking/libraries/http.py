"""Synchronous HTTP clients: requests, urllib3, httpx, grequests, the OpenAI and Anthropic sync clients.

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
HTTP_CLIENTS = Vocabulary(
    calls={
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
    },
    families=(
        Family(("openai.OpenAI", "openai.AzureOpenAI", "openai.Client", "anthropic.Anthropic", "anthropic.Client"),
               {"create": "blocking_http", "generate": "blocking_http", "retrieve": "blocking_http",
                "list": "blocking_http", "delete": "blocking_http", "parse": "blocking_http",
                "stream": "blocking_http", "create_variation": "blocking_http", "edit": "blocking_http",
                "upload": "blocking_http", "content": "blocking_http"}, OPENAI, resources=True),
    ),
    returns={"requests.session": "requests.Session", "requests.Session": "requests.Session",
             "httpx.Client": "httpx.Client", "urllib3.PoolManager": "urllib3.PoolManager"},
)

"""Security-platform SDKs over a synchronous HTTP session: CrowdStrike FalconPy.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
FalconPy's Uber class (``APIHarnessV2``, and the older ``APIHarness``) sends every API operation through
``command(operation, **params)``, which builds the request and performs it with ``requests`` in the calling thread;
``login``/``logout`` request and revoke the OAuth2 token the same way. Its Service Classes (``Hosts``, ``Alerts``,
``RealTimeResponse``...) have one method per API operation that does the same. FalconPy has no async client: an
MCP server or bot that calls it from a coroutine waits for the Falcon API on the loop (the falcon-mcp fix
https://github.com/CrowdStrike/falcon-mcp/pull/478 moved these calls to a worker thread). ``authenticated()`` and
``token_expired()`` only read the token state held in memory.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

FALCONPY = ("https://www.falconpy.io/Usage/Basic-Uber-Class-usage.html (the Uber class's command() performs the "
            "named API operation and returns its response) and https://www.falconpy.io/Usage/Basic-Service-Class-"
            "usage.html (each Service Class method is one API operation); the requests are made with requests")

SECURITY_SDKS = Vocabulary(
    families=(
        Family(("falconpy",), {"*": H}, FALCONPY, package=True, functions=False,
               except_=frozenset({"authenticated", "token_expired"})),
    ),
)

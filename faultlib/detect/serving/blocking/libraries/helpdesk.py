"""Help-desk SDKs over a synchronous HTTP session: Zenpy (Zendesk).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A
``Zenpy`` client holds a ``requests.Session``; every endpoint object it exposes (``tickets``, ``users``,
``help_center.sections``...) sends its request when called or when one of its methods is called (``comments``,
``create``, ``update``, ``delete``) and waits for Zendesk's answer. Zenpy has no async twin.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

ZENPY = ("https://docs.facetoe.com.au/zenpy.html (the Zenpy object is the entry point; calling an endpoint, "
         "ticket = zenpy_client.tickets(id=1), or its create/update/delete methods, makes the API request)")

HELPDESK = Vocabulary(
    families=(
        Family(("zenpy.Zenpy", "zenpy.lib.api.Api"), {"*": H, "__call__": H}, ZENPY, resources=True),
    ),
)

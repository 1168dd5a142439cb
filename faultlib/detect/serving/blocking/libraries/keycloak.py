"""python-keycloak's clients (``keycloak.KeycloakAdmin``, ``KeycloakOpenID``, ``KeycloakUMA`` and the
``KeycloakOpenIDConnection`` they share): each public method is one request to the Keycloak server, and since 4.0 each
has an ``a_``-prefixed coroutine twin.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). The library
wraps Keycloak's REST API method by method (https://python-keycloak.readthedocs.io/en/latest/reference/keycloak/
index.html: ``KeycloakAdmin.get_users``, ``get_user``, ``get_group_members``, ``group_user_remove``...,
``KeycloakOpenID.token``, ``userinfo``, ``introspect``...). A sync method sends its request through the connection's
``requests.Session`` (``raw_get``/``raw_post``/``raw_put``/``raw_delete`` of ``KeycloakOpenIDConnection``, which also
fetches and refreshes the admin token) and waits for the answer; the ``a_`` twin (``a_get_users``) sends the same
request through an ``httpx.AsyncClient`` and is awaited (the "Async" methods of the reference: https://python-keycloak.
readthedocs.io/en/latest/modules/async.html). The names beginning ``a_`` are therefore never requests here, whatever
follows, so a service that awaits the twins stays silent and one that calls the sync name from a coroutine is found
(held-out wave 82: a lab-management API that awaits ``a_*`` in about thirty places and calls ``get_user``,
``get_users``, ``get_user_groups``, ``get_group_members``, ``group_user_remove`` sync from its async use cases). The
class is named neither ``...Client`` nor ``...Session``, so no name-based guess covered it.

Left out: ``change_current_realm``/``get_current_realm`` (they set or read the connection's realm name) and
``decode_token``, which requests the realm's public key only when no ``key`` is passed (a conditional request this
table does not express). The async-only package ``keycloak_admin_aio`` is another top-level name, not matched. Two
forks (``python-keycloak-async``, ``async-keycloak``) install the same ``keycloak`` package with coroutine methods under
the sync names (``await keycloak_openid.well_known()``); their calls are awaited, and an awaited call is never a
blocker.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
SOURCE = ("https://python-keycloak.readthedocs.io/en/latest/reference/keycloak/index.html (each method of "
          "KeycloakAdmin/KeycloakOpenID/KeycloakUMA is a request sent with requests; the a_-prefixed twins are "
          "coroutines: https://python-keycloak.readthedocs.io/en/latest/modules/async.html)")

CLIENTS = tuple(f"keycloak.{m}{c}" for c, m in (
    ("KeycloakAdmin", ""), ("KeycloakAdmin", "keycloak_admin."), ("KeycloakOpenID", ""),
    ("KeycloakOpenID", "keycloak_openid."), ("KeycloakUMA", ""), ("KeycloakUMA", "keycloak_uma."),
    ("KeycloakOpenIDConnection", ""), ("KeycloakOpenIDConnection", "openid_connection.")))
"""The sync clients, under the package's re-exports and their defining modules."""

SYNC_NAMES = {r"(?!a_)[a-z][a-z0-9_]*": H}
"""Every public lower-case method name but the ``a_`` coroutine twins (a pattern: the library has some two hundred)."""

LOCAL = frozenset({"change_current_realm", "get_current_realm", "decode_token", "add_param_headers",
                   "del_param_headers", "clean_headers", "exist_param_headers"})
"""Methods that only set or read the client's own state (realm name, request headers), and ``decode_token`` (see the
module docstring)."""

KEYCLOAK = Vocabulary(
    families=(Family(CLIENTS, {}, SOURCE, except_=LOCAL, patterns=SYNC_NAMES),),
    returns={c: c for c in CLIENTS},
)
"""python-keycloak's sync requests (see the module docstring)."""

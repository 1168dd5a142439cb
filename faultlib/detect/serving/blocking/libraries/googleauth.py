"""Google sign-in and API discovery done synchronously: ``google_auth_oauthlib``'s OAuth flows, google-auth
credentials' ``refresh`` and the API client's ``discovery.build`` and media transfers.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`;
``google.auth.default`` and the service-account key readers are in
:mod:`~faultlib.detect.serving.blocking.libraries.cloud`, ``Resource.execute`` too); found by the census of unseen
async services (``benchmarks/blocking_census.py``: Gmail/Drive/Calendar tools of MCP servers and agents).
``Flow.fetch_token`` exchanges the code for tokens over HTTPS (requests-oauthlib); ``InstalledAppFlow.
run_local_server`` starts a local web server and waits for the browser's redirect; ``from_client_secrets_file``
reads the secrets file. ``Credentials.refresh(request)`` posts to the token endpoint through the (sync) transport
it is given. ``googleapiclient.discovery.build`` loads the API's discovery document -- from the JSON files bundled
with the library (static discovery, the default) or over HTTP -- and builds the resource classes from it;
``MediaFileUpload`` opens the file it uploads and ``MediaIoBaseDownload.next_chunk`` downloads a chunk.
``Flow.authorization_url`` and ``from_client_config`` only build values.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H, F, S = "blocking_http", "blocking_file_io", "blocking_socket_io"
OAUTHLIB = "https://google-auth-oauthlib.readthedocs.io/en/latest/reference/google_auth_oauthlib.flow.html"
GOOGLE_AUTH = ("https://googleapis.dev/python/google-auth/latest/reference/google.oauth2.credentials.html#google.oauth2."
               "credentials.Credentials.refresh (refreshes the access token with the given request transport)")
DISCOVERY = ("https://googleapis.github.io/google-api-python-client/docs/epy/googleapiclient.discovery-module.html#build "
             "(retrieves the discovery document -- static_discovery reads the bundled JSON, otherwise an HTTP GET -- "
             "and builds the service object from it)")
MEDIA = "https://googleapis.github.io/google-api-python-client/docs/media.html"

_FLOWS = ("google_auth_oauthlib.flow.Flow", "google_auth_oauthlib.flow.InstalledAppFlow")
_CREDENTIALS = ("google.oauth2.credentials.Credentials", "google.oauth2.service_account.Credentials",
                "google.auth.compute_engine.Credentials", "google.auth.impersonated_credentials.Credentials",
                "google.auth.external_account.Credentials")

GOOGLE_AUTH_FLOWS = Vocabulary(
    calls={
        **{f"{flow}.from_client_secrets_file": (F, OAUTHLIB + " (reads the client secrets JSON file)")
           for flow in _FLOWS},
        "googleapiclient.discovery.build": (F, DISCOVERY),
        "googleapiclient.discovery.build_from_document": ("blocking_cpu", DISCOVERY),
        "googleapiclient.http.MediaFileUpload": (F, MEDIA + " (MediaFileUpload opens the named file)"),
    },
    families=(
        Family(_FLOWS, {"fetch_token": H}, OAUTHLIB + " (fetch_token exchanges the authorization code for tokens "
               "over HTTPS with requests-oauthlib)"),
        Family(("google_auth_oauthlib.flow.InstalledAppFlow",), {"run_local_server": S, "run_console": S},
               OAUTHLIB + " (run_local_server serves the redirect on a local port and waits for the browser)"),
        Family(_CREDENTIALS, {"refresh": H}, GOOGLE_AUTH),
        Family(("googleapiclient.http.MediaIoBaseDownload",), {"next_chunk": H}, MEDIA + " (next_chunk downloads "
               "the next chunk of the media)"),
    ),
    returns={**{f"{flow}.{m}": flow for flow in _FLOWS for m in ("from_client_secrets_file", "from_client_config")},
             **{c: c for c in _CREDENTIALS}, "googleapiclient.http.MediaIoBaseDownload":
             "googleapiclient.http.MediaIoBaseDownload"},
)

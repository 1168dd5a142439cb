"""Loading TLS certificates and keys from disk: ``ssl.create_default_context`` and the ``SSLContext`` loaders.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
the census of unseen async services (``benchmarks/blocking_census.py``).

``ssl.create_default_context()`` loads the system's default CA certificates (or the ``cafile``/``capath`` given)
into the new context: OpenSSL reads and parses the CA bundle, hundreds of certificates, on every call (no cache).
``SSLContext.load_verify_locations(cafile, capath)``, ``load_default_certs()``, ``set_default_verify_paths()``
and ``load_cert_chain(certfile, keyfile)`` read their files the same way. Home Assistant's loop check reports each
of them as a blocking call in the event loop. ``load_verify_locations(cadata=...)`` parses certificates already
in memory and is left out (the check asks for a ``cafile``; a call with only ``capath`` is missed). Building an
``ssl.SSLContext(...)`` reads nothing, nor does urllib3's ``create_urllib3_context(...)``, which builds and returns one
("Creates and configures an ssl.SSLContext instance for use with urllib3":
https://urllib3.readthedocs.io/en/stable/reference/urllib3.util.html#urllib3.util.create_urllib3_context), so the
loaders called on what it returns are the ``SSLContext``'s. The HTTP clients that build a context when constructed (``httpx.Client``,
``httpx.AsyncClient``) are not named here: whether their construction counts is the labelling rules' call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

F = "blocking_file_io"
PY_SSL = "https://docs.python.org/3/library/ssl.html"
HA = ("https://github.com/home-assistant/core/blob/dev/homeassistant/block_async_io.py (Home Assistant's loop check "
      "reports SSLContext.load_default_certs, load_verify_locations, set_default_verify_paths and load_cert_chain "
      "in the event loop) and https://developers.home-assistant.io/docs/asyncio_blocking_operations/")
CONTEXT = "ssl.SSLContext"

CERTIFICATES = Vocabulary(
    calls={
        "ssl.create_default_context": (F, PY_SSL + "#ssl.create_default_context (loads the CA certificates of cafile/"
                                       "capath, or the system's default ones with load_default_certs); " + HA),
        **{f"{CONTEXT}.{m}": (F, f"{PY_SSL}#ssl.SSLContext.{m} ({what}); {HA}") for m, what in (
            ("load_verify_locations", "reads the CA certificates of cafile and capath"),
            ("load_default_certs", "loads the system's default CA certificates from disk"),
            ("set_default_verify_paths", "loads the default CA certificates from OpenSSL's file and directory"),
            ("load_cert_chain", "reads the certificate and private key files"),
            ("load_dh_params", "reads the Diffie-Hellman parameters file"))},
    },
    when={f"{CONTEXT}.load_verify_locations": BlocksWhen("cafile", position=0, test="given")},
    returns={"ssl.create_default_context": CONTEXT, CONTEXT: CONTEXT,
             **{f"urllib3.util{m}.create_urllib3_context": CONTEXT for m in ("", ".ssl_")}},
)

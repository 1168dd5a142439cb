"""Lightning Network node clients: Core Lightning's ``pyln-client`` JSON-RPC client.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``LightningRpc(socket_path)`` (a ``UnixDomainSocketRpc``) only stores the path when it is built; every method after
that -- the named wrappers (``getinfo``, ``invoice``, ``pay``, ``listfunds``...), ``call(method, payload)`` and any
other name, which ``__getattr__`` turns into a call of that RPC method -- opens the node's unix socket, writes the
JSON-RPC request and reads until the answer has arrived, in the calling thread (``waitanyinvoice`` and
``waitinvoice`` wait for a payment). ``pyln-client`` has no async client.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

S = "blocking_socket_io"

PYLN = ("https://github.com/ElementsProject/lightning/tree/master/contrib/pyln-client (pyln/client/lightning.py: "
        "UnixDomainSocketRpc._call connects a socket to the RPC file, sends the request and reads the response; "
        "LightningRpc's methods and __getattr__ go through it)")

_CLIENTS = ("pyln.client.LightningRpc", "pyln.client.lightning.LightningRpc", "pyln.client.UnixDomainSocketRpc",
            "pyln.client.lightning.UnixDomainSocketRpc")

LIGHTNING_NODES = Vocabulary(
    families=(Family(_CLIENTS, {"*": S}, PYLN),),
)

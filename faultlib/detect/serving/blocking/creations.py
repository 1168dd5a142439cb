"""Calls of the vocabulary that, at a given site, only create an entry or set an address: no I/O to wait for.

The labelling rules (``benchmarks/labels``) leave single-inode metadata out, as ``os.makedirs``: ``mkstemp`` and
``mkdtemp`` are not in the vocabulary. A ``tempfile.TemporaryDirectory`` is one ``mkdir`` when made; its I/O is
the removal of the whole tree, on a ``with`` exit or ``cleanup()``: so the call is a blocker when it is entered by
a ``with`` or the object it made is cleaned up in the same function, and not when it is only kept for later (then
``TemporaryDirectory.cleanup`` is the blocker). A ``NamedTemporaryFile`` made for another writer stays a blocker:
the labels count it so in 13 services and against it in 2 (kokoro, cheshire), which are left as they are.
``connect`` on a UDP socket (``SOCK_DGRAM``) only records the peer and picks a local address: no packet is sent
(https://man7.org/linux/man-pages/man2/connect.2.html). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

TEMP_MAKERS = frozenset({"tempfile.TemporaryDirectory"})
FILE_USES = frozenset({"cleanup"})
"""Methods of a temp directory that do its I/O."""


def only_creates(target: str, call: ast.Call, func: Func) -> bool:
    """Whether the vocabulary call ``target`` at ``call`` only creates (see the module docstring)."""
    if target in TEMP_MAKERS:
        return not _entered(call, func) and not _used(call, func)
    if target == "socket.socket.connect" and isinstance(call.func, ast.Attribute):
        return _datagram(call.func.value, func)
    return False


def _entered(call: ast.Call, func: Func) -> bool:
    return any(isinstance(n, (ast.With, ast.AsyncWith)) and any(i.context_expr is call for i in n.items)
               for n in func.nodes)


def _bound_names(call: ast.Call, func: Func) -> set[str]:
    """Local names ``call``'s result is bound to (``x = call``, ``self.x = call`` as ``self.x``)."""
    names = set()
    for n in func.nodes:
        if isinstance(n, ast.Assign) and n.value is call:
            names.update(".".join(dotted(t) or []) for t in n.targets)
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            names.update(".".join(dotted(i.optional_vars) or []) for i in n.items
                         if i.context_expr is call and i.optional_vars is not None)
    return names - {""}


def _used(call: ast.Call, func: Func) -> bool:
    """The object made by ``call`` is cleaned up in ``func`` (``d.cleanup()``), or right away."""
    names = _bound_names(call, func)
    for n in func.nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in FILE_USES:
            owner = n.func.value
            if owner is call or ".".join(dotted(owner) or []) in names:
                return True
    return False


def _datagram(receiver: ast.expr, func: Func) -> bool:
    """``receiver`` names a socket made in ``func`` with ``SOCK_DGRAM`` (positionally or as ``type=``)."""
    name = ".".join(dotted(receiver) or [])
    if not name:
        return False
    for n in func.nodes:
        made = None
        if isinstance(n, ast.Assign) and any(".".join(dotted(t) or []) == name for t in n.targets):
            made = n.value
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            made = next((i.context_expr for i in n.items if i.optional_vars is not None
                         and ".".join(dotted(i.optional_vars) or []) == name), None)
        if isinstance(made, ast.Call) and (dotted(made.func) or [""])[-1] == "socket":
            args = [*made.args[1:2], *(k.value for k in made.keywords if k.arg == "type")]
            return any((dotted(a) or [""])[-1] == "SOCK_DGRAM" for a in args)
    return False

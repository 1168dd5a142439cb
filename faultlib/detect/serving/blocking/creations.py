"""Calls of the vocabulary that, at a given site, only create an entry or set an address: no I/O to wait for.

The labelling rules (``benchmarks/labels``) leave single-inode metadata out, as ``os.makedirs``: ``mkstemp`` and
``mkdtemp`` are not in the vocabulary. A ``tempfile.TemporaryDirectory`` is one ``mkdir`` when made; its I/O is
the removal of the whole tree, on a ``with`` exit or ``cleanup()``: so the call is a blocker when it is entered by
a ``with`` or the object it made is cleaned up in the same function, and not when it is only kept for later (then
``TemporaryDirectory.cleanup`` is the blocker). A ``NamedTemporaryFile`` is ``mkstemp`` with a file object around
it: made for another writer (only its ``.name`` read, or it closed: a close or the ``with`` exit flushes nothing
it wrote), it only creates the file, and the writer's own call is the blocker if it blocks; written or read through
the object (``tmp.write(...)``, passed on as a file), it is file I/O on the spot (stop 30 made the labels agree:
they had counted the first case both ways).
``connect`` on a UDP socket (``SOCK_DGRAM``) only records the peer and picks a local address: no packet is sent
(https://man7.org/linux/man-pages/man2/connect.2.html); ``send``/``sendto`` on one hands a single datagram to the
kernel, which does not wait for the peer (UDP has no send window: https://man7.org/linux/man-pages/man7/udp.7.html).
The socket is recognised where it is made: in the same function, or, for ``self.attr``, in any method of the class
(``self.sock = socket.socket(AF_INET, SOCK_DGRAM)`` in ``start``/``__init__``). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

TEMP_MAKERS = frozenset({"tempfile.TemporaryDirectory"})
NAMED_FILES = frozenset({"tempfile.NamedTemporaryFile"})
NAME_ONLY = frozenset({"name", "close"})
"""What a named temp file made for another writer is used for: its path, and closing it."""
FILE_USES = frozenset({"cleanup"})
DATAGRAM_QUIET = frozenset({"socket.socket.connect", "socket.socket.send", "socket.socket.sendto"})
"""Socket methods that do not wait on a UDP socket (see the module docstring); ``recv*`` still waits for a packet."""
"""Methods of a temp directory that do its I/O."""


def only_creates(target: str, call: ast.Call, func: Func) -> bool:
    """Whether the vocabulary call ``target`` at ``call`` only creates (see the module docstring)."""
    if target in TEMP_MAKERS:
        return not _entered(call, func) and not _used(call, func)
    if target in NAMED_FILES:
        return _name_only(call, func)
    if target in DATAGRAM_QUIET and isinstance(call.func, ast.Attribute):
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


def _name_only(call: ast.Call, func: Func) -> bool:
    """The file ``call`` makes is bound to a name in ``func`` and every read of that name is ``.name`` or
    ``.close``: no byte goes through the object here."""
    names = _bound_names(call, func)
    if not names:
        return False
    allowed = {id(n.value) for n in func.nodes if isinstance(n, ast.Attribute) and n.attr in NAME_ONLY}
    return all(id(n) in allowed for n in func.nodes if isinstance(n, (ast.Name, ast.Attribute))
               and isinstance(n.ctx, ast.Load) and ".".join(dotted(n) or []) in names)


def _datagram(receiver: ast.expr, func: Func) -> bool:
    """``receiver`` names a socket made with ``SOCK_DGRAM`` (positionally or as ``type=``): in ``func``, or for
    ``self.attr`` in a method of ``func``'s class."""
    name = ".".join(dotted(receiver) or [])
    if not name:
        return False
    made = _made_in(name, func)
    if made is None and func.cls is not None and name.startswith("self.") and name.count(".") == 1:
        made = next((m for f in func.cls.methods.values() if f is not func
                     for m in [_made_in(name, f)] if m is not None), None)
    if made is None:
        return False
    args = [*made.args[1:2], *(k.value for k in made.keywords if k.arg == "type")]
    return any((dotted(a) or [""])[-1] == "SOCK_DGRAM" for a in args)


def _made_in(name: str, func: Func) -> ast.Call | None:
    """The ``socket(...)`` call that ``name`` is bound to in ``func`` (assignment or ``with ... as``), if any."""
    for n in func.nodes:
        made = None
        if isinstance(n, ast.Assign) and any(".".join(dotted(t) or []) == name for t in n.targets):
            made = n.value
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            made = next((i.context_expr for i in n.items if i.optional_vars is not None
                         and ".".join(dotted(i.optional_vars) or []) == name), None)
        if isinstance(made, ast.Call) and (dotted(made.func) or [""])[-1] == "socket":
            return made
    return None

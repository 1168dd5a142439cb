"""A lock tried once instead of waited for: ``acquire`` with a zero timeout or ``blocking=False``, and a ``with`` on a
lock made that way.

``threading.Lock.acquire(blocking=False)`` "will not block" and returns whether it got the lock
(https://docs.python.org/3/library/threading.html#threading.Lock.acquire). The file locks take the same choice:
filelock's ``acquire(timeout=0)`` makes a single attempt and ``blocking=False`` (on ``acquire`` or the constructor)
"raises Timeout immediately" when the lock is held (https://py-filelock.readthedocs.io/en/latest/api.html
#filelock.BaseFileLock.acquire); portalocker's ``Lock.acquire(timeout=0)`` tries once and fails
(https://portalocker.readthedocs.io/en/latest/portalocker.html#portalocker.utils.Lock), and with
``fail_when_locked=True`` it fails at the first lock found held "instead of waiting for the timeout". ``with lock:`` calls
``acquire()`` without arguments, so the instance's own ``timeout``/``blocking`` decide there. Such an attempt is no
finding, as ``portalocker.lock`` with ``LOCK_NB`` is none (:mod:`~faultlib.detect.serving.blocking.libraries.
filelocks`). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site` (the lock families' ``acquire``) and
:func:`~faultlib.detect.serving.blocking.property_sites.entered_sites`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.holders import self_stores
from faultlib.detect.serving.blocking.infer import _positional
from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.shapes import is_poll

__all__ = ["ACQUIRE", "made_to_try_once", "tries_once"]

ACQUIRE = "acquire"
"""The lock method whose arguments may ask for a single attempt."""
SINGLE_ATTEMPT = (("timeout", 0), ("blocking", False), ("fail_when_locked", True))
"""The keyword values, on ``acquire`` or the lock's constructor, that ask for a single attempt."""


def tries_once(call: ast.Call, method: str) -> bool:
    """Whether ``call`` of a lock's ``method`` is ``acquire`` asked not to wait (:func:`~faultlib.detect.serving.
    blocking.shapes.is_poll`: ``acquire(False)``, ``acquire(timeout=0)``, ``acquire(blocking=False)``; portalocker's
    ``acquire(fail_when_locked=True)``)."""
    return method == ACQUIRE and (is_poll(call) or _asks_one_attempt(call))


def made_to_try_once(expr: ast.expr, func: Func) -> bool:
    """Whether the lock ``with expr:`` enters was constructed with one of :data:`SINGLE_ATTEMPT`: ``expr`` is that
    construction, or a name bound only to it (a local of ``func``, else a module global), or ``self.<attribute>``
    stored once by the methods of ``func``'s class."""
    made = _construction(expr, func)
    return made is not None and _asks_one_attempt(made)


def _asks_one_attempt(call: ast.Call) -> bool:
    return any(k.arg == name and isinstance(k.value, ast.Constant) and type(k.value.value) in (int, float, bool)
               and k.value.value == value for k in call.keywords for name, value in SINGLE_ATTEMPT)


def _construction(expr: ast.expr, func: Func) -> ast.Call | None:
    if isinstance(expr, ast.Call):
        return expr
    if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and func.cls is not None
            and _positional(func.node)[:1] == [expr.value.id]):  # self._lock = FileLock(p, timeout=0) in __init__
        stores = self_stores(func.cls).get(expr.attr, [])
        return stores[0][0] if len(stores) == 1 and stores[0][2] is None and isinstance(
            stores[0][0], ast.Call) else None
    if not isinstance(expr, ast.Name):
        return None
    stores = [n for n in func.nodes if isinstance(n, ast.Name) and n.id == expr.id and isinstance(n.ctx, ast.Store)]
    if not stores:  # a module-level lock
        value = func.module.globals.get(expr.id)
        return value if isinstance(value, ast.Call) else None
    if len(stores) != 1:
        return None
    for node in func.nodes:
        if isinstance(node, ast.Assign) and node.targets == [stores[0]] and isinstance(node.value, ast.Call):
            return node.value
    return None

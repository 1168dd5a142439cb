"""Classes a Ray decorator replaces with a handle: calling the handle directly raises, so ``Cls(...)`` never runs the
class's constructor as written.

``@serve.deployment`` turns the class into a ``ray.serve.Deployment``, whose ``__call__`` raises ``RuntimeError(
"Deployments cannot be constructed directly. ...")``; replicas are built by Serve from ``Cls.bind(...)``
(https://github.com/ray-project/ray/blob/master/python/ray/serve/deployment.py, ``Deployment.__call__``;
https://docs.ray.io/en/latest/serve/key-concepts.html#deployment). ``@ray.remote`` turns it into an ``ActorClass``,
whose ``__call__`` raises ``TypeError("Actors cannot be instantiated directly. Instead of 'Cls()', use
'Cls.remote()'.")``; the actor's ``__init__`` runs in its own worker process
(https://github.com/ray-project/ray/blob/master/python/ray/actor.py, ``ActorClass.__call__``;
https://docs.ray.io/en/latest/ray-core/actors.html). Held-out wave 58: a websocket handler's factory called two
``@serve.deployment`` classes directly, and their model loads were reported on the loop. Used by
:func:`~faultlib.detect.serving.blocking.metaclasses.constructor_functions`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass, dotted

__all__ = ["HANDLE_DECORATORS", "replaced_by_handle"]

HANDLE_DECORATORS = frozenset({"ray.serve.deployment", "ray.serve.api.deployment", "ray.remote"})
"""What the decorators that replace a class with a Ray handle resolve to (bare or called with options)."""


def replaced_by_handle(index, klass: Klass) -> bool:
    """Whether ``klass`` is decorated with one of :data:`HANDLE_DECORATORS`."""
    for decorator in klass.node.decorator_list:
        parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if parts and index.resolve_parts(parts, klass.module, None) in HANDLE_DECORATORS:
            return True
    return False

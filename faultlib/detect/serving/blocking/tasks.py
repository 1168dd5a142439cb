"""Sending a Celery task from the loop: ``task.delay(...)`` / ``task.apply_async(...)`` of a function of the
analysed files decorated as a task (``@app.task``, ``@celery.task(name=...)``, ``@shared_task``); and a Dramatiq
actor's ``send(...)`` / ``send_with_options(...)`` of a function decorated ``@dramatiq.actor`` (the decorator makes
it an ``Actor`` whose send enqueues on the broker synchronously: https://dramatiq.io/reference.html#dramatiq.actor;
held-out wave 82).

Decision (stop 33): a blocker, ``blocking_socket_io``. Sending publishes the task message to the broker through
kombu's synchronous producer in the calling thread: the first send connects (TCP and the AMQP/Redis handshake),
every send writes to the broker's socket, and with the default ``retry=True`` a lost connection is retried with
sleeps under ``retry_policy`` (https://docs.celeryq.dev/en/stable/userguide/calling.html#message-sending-retry).
It is one round trip when the broker is near and healthy, and the whole retry policy when it is not; a loop of
sends (one per URL) multiplies it. The result's ``.get()`` is in the vocabulary already (``celery.result``).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["SENDS", "is_task_decorator", "sent_task"]

SENDS = frozenset({"delay", "apply_async"})
_TASK_DECORATORS = frozenset({"task", "shared_task"})
ACTOR_SENDS = frozenset({"send", "send_with_options"})
"""What a Dramatiq actor's message is sent with."""


def sent_task(index, call: ast.Call, func: Func) -> str | None:
    """What ``call`` does when it sends a Celery task or a Dramatiq actor's message of the analysed files (see the
    module docstring), or None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in SENDS | ACTOR_SENDS):
        return None
    task = index.callee(call.func.value, func) if dotted(call.func.value) else None
    if not isinstance(task, Func):
        return None
    if call.func.attr in ACTOR_SENDS:
        if not any(_is_actor_decorator(d, task) for d in task.node.decorator_list):
            return None
        return f"Dramatiq {task.node.name}.{call.func.attr} (enqueues the message on the broker synchronously)"
    if not any(is_task_decorator(d) for d in task.node.decorator_list):
        return None
    return f"Celery {task.node.name}.{call.func.attr} (publishes the task message to the broker synchronously)"


def _is_actor_decorator(decorator: ast.expr, task: Func) -> bool:
    """``@dramatiq.actor`` / ``@actor(...)`` imported from dramatiq."""
    parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
    if not parts or parts[-1] != "actor":
        return False
    return task.module.imports.get(parts[0], "").startswith("dramatiq")


def is_task_decorator(decorator: ast.expr) -> bool:
    parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
    return bool(parts) and parts[-1] in _TASK_DECORATORS

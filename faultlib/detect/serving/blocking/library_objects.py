"""Objects a library module exports ready-made, typed as the class they are an instance of when the code hands them on.

``from celery import current_task`` names the task being executed, not a class ("celery.current_task: The task
currently being executed", a proxy to that ``Task`` instance: https://docs.celeryq.dev/en/stable/reference/
celery.html#celery.current_task). Called on directly (``current_task.update_state(...)``) the vocabulary's entry
for the dotted name already applies; handed on -- ``crawler.attach_celery_task(current_task)``, then
``self.celery_task.update_state(...)`` in a coroutine of the crawler (held-out wave 69: a site crawler run as a
Celery task stores its progress in the result backend on the crawl loop) -- the parameter and the attribute need a
type, which is the class the object is an instance of (:data:`OBJECTS`). Used by
:mod:`~faultlib.detect.serving.blocking.typeof` for an imported name that no analysed module defines.
"""

from __future__ import annotations

__all__ = ["OBJECTS", "library_object"]

OBJECTS = {
    "celery.current_task": "celery.app.task.Task",
    "celery.app.current_task": "celery.app.task.Task",
}
"""``{dotted name of a library's module-level object: the type the vocabulary describes it by}``."""


def library_object(name: str) -> str | None:
    """The type of the library object imported as ``name`` (its full dotted name), or None."""
    return OBJECTS.get(name)

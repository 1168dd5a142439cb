"""Task queues' client side: Celery's results, remote control and inspection, sending a task by name; RQ's queues.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Every
call here talks to the broker or the result backend through Celery's synchronous kombu connection in the calling
thread; a task of the analysed files sent with ``delay``/``apply_async`` is in
:mod:`~faultlib.detect.serving.blocking.tasks`.

* ``AsyncResult.get``/``wait`` (and a group's ``join``/``collect``) wait for the task to finish; ``ready``,
  ``successful``, ``failed``, ``forget``, ``revoke`` query or write the result backend (a Redis, database or RPC
  round trip), and so does reading its ``state`` or ``status`` property:
  https://docs.celeryq.dev/en/stable/reference/celery.result.html. Once a read finds the task finished,
  ``AsyncResult`` caches the task's meta, so ``result``/``info``/``traceback`` (read after the state, in practice)
  come from memory and are left out; a ``state`` read after ``get()`` is cached too (a known fp).
  ``AbortableAsyncResult.abort`` stores the ABORTED state in the backend and ``is_aborted`` reads it:
  https://docs.celeryq.dev/en/stable/reference/celery.contrib.abortable.html.
* ``app.control.<command>(...)`` publishes a broadcast message to the broker, and with ``reply=True`` waits for the
  workers' replies up to ``timeout`` (1 s by default); ``app.control.inspect().<query>()`` always waits for them:
  https://docs.celeryq.dev/en/stable/reference/celery.app.control.html and
  https://docs.celeryq.dev/en/stable/userguide/workers.html#inspecting-workers. ``inspect()`` itself only builds
  the object.
* ``Task.update_state(state=..., meta=...)`` (on ``celery.current_task`` or a bound task's ``self``) stores the
  state in the result backend: https://docs.celeryq.dev/en/stable/reference/celery.app.task.html (held-out wave 69:
  a crawler reporting its progress from its async crawl loop).
* ``app.send_task(name, ...)`` publishes the task message (connecting on first use, retrying under
  ``retry_policy``), as ``Task.apply_async`` does; ``app.tasks[name]`` is the registered ``Task``:
  https://docs.celeryq.dev/en/stable/reference/celery.html#celery.Celery.send_task.
* RQ (Redis Queue) keeps its queues and jobs in Redis and talks to it through the sync ``redis`` connection the
  ``Queue`` was given: ``enqueue`` and its variants save the job and push its id, ``fetch_job``/``get_jobs`` read
  them back, ``empty``/``delete`` remove them (https://python-rq.org/docs/ and https://python-rq.org/docs/jobs/);
  a ``Job``'s ``refresh``/``get_status``/``save``/``cancel``/``delete``/``requeue`` and ``Job.fetch`` are Redis round
  trips too. Constructing a ``Queue`` does no I/O.
* Dramatiq: an actor's ``send``/``send_with_options`` hands the message to the global broker's ``enqueue``
  (https://dramatiq.io/reference.html#dramatiq.Actor.send_with_options, #dramatiq.Broker.enqueue), which writes it to
  Redis through redis-py (``RedisBroker``) or publishes it through pika's ``BlockingConnection`` (``RabbitmqBroker``)
  in the calling thread -- the same kind of synchronous enqueue as RQ's and Celery's. ``group(...).run()`` and
  ``pipeline(...).run()`` send their messages the same way. An actor is what ``dramatiq.actor(fn)`` returns, or a
  value annotated ``dramatiq.Actor`` (held-out wave 82: an identity server's ``send_task(task: dramatiq.Actor, ...)``
  helper, called from its async user manager); a function decorated ``@dramatiq.actor`` of the analysed files is
  :mod:`~faultlib.detect.serving.blocking.tasks`'.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

DOCS = "https://docs.celeryq.dev/en/stable/reference/"
RESULT = DOCS + "celery.result.html#celery.result.AsyncResult.get"
RESULT_STATE = DOCS + "celery.result.html (ready/successful/failed/forget/revoke query or write the result backend)"
ABORTABLE = DOCS + "celery.contrib.abortable.html (abort stores the ABORTED state in the result backend)"
CONTROL = DOCS + "celery.app.control.html (publishes a broadcast to the broker; reply=True waits for the workers)"
INSPECT = DOCS + "celery.app.control.html#celery.app.control.Inspect (broadcasts and waits for the replies)"
SEND = DOCS + "celery.html#celery.Celery.send_task (publishes the task message to the broker)"

UPDATE_STATE = (DOCS + "celery.app.task.html#celery.app.task.Task.update_state (\"Update task state\": stores the "
                "state and meta in the result backend, a Redis/database round trip; celery.current_task is the Task "
                "being run: https://docs.celeryq.dev/en/stable/reference/celery.html#celery.current_task)")
TASKS = ("celery.app.task.Task", "celery.Task", "celery.current_task", "celery.app.current_task")
APPS = ("celery.Celery", "celery.app.Celery", "celery.app.base.Celery")
CONTROLS = ("celery.app.control.Control",)
RESULTS = ("celery.result.AsyncResult", "celery.result.GroupResult", "celery.result.ResultSet",
           "celery.contrib.abortable.AbortableAsyncResult")

CONTROL_COMMANDS = ("broadcast", "purge", "discard_all", "election", "revoke", "revoke_by_stamped_headers",
                    "terminate", "ping", "rate_limit", "time_limit", "add_consumer", "cancel_consumer",
                    "enable_events", "disable_events", "pool_grow", "pool_shrink", "pool_restart", "autoscale",
                    "shutdown", "heartbeat")
"""``Control`` methods that publish a broadcast (``inspect`` only builds an :class:`Inspect`)."""

RQ = "https://python-rq.org/docs/ (a Queue and its jobs live in Redis; every call here is a Redis round trip)"
RQ_QUEUES = ("rq.Queue", "rq.queue.Queue")
RQ_JOBS = ("rq.job.Job", "rq.Job")
RQ_QUEUE_METHODS = ("enqueue", "enqueue_call", "enqueue_at", "enqueue_in", "enqueue_many", "enqueue_job",
                    "fetch_job", "get_jobs", "get_job_ids", "empty", "delete", "remove", "run_job")
RQ_JOB_METHODS = ("refresh", "get_status", "save", "cancel", "delete", "requeue", "latest_result", "return_value",
                  "get_meta", "save_meta")

DRAMATIQ = ("https://dramatiq.io/reference.html#dramatiq.Actor.send_with_options (send builds the message and calls "
            "the broker's enqueue: a Redis write with redis-py or a publish on pika's BlockingConnection, in the "
            "calling thread)")
DRAMATIQ_ACTORS = ("dramatiq.Actor", "dramatiq.actor.Actor")
DRAMATIQ_BROKERS = ("dramatiq.brokers.redis.RedisBroker", "dramatiq.brokers.rabbitmq.RabbitmqBroker",
                    "dramatiq.Broker", "dramatiq.broker.Broker")
DRAMATIQ_COMPOSITIONS = ("dramatiq.group", "dramatiq.pipeline", "dramatiq.composition.group",
                         "dramatiq.composition.pipeline")

TASK_QUEUES = Vocabulary(
    calls={f"{j}.fetch": ("blocking_db", RQ) for j in RQ_JOBS},
    families=(
        Family(RQ_QUEUES, {m: "blocking_db" for m in RQ_QUEUE_METHODS}, RQ),
        Family(RQ_JOBS, {m: "blocking_db" for m in RQ_JOB_METHODS}, RQ),
        Family(RESULTS, {**{m: "blocking_task" for m in ("get", "wait", "join", "join_native", "collect")},
                         **{m: "blocking_db" for m in ("ready", "successful", "failed", "forget", "revoke",
                                                       "completed_count", "abort", "is_aborted")}},
               f"{RESULT}; {RESULT_STATE}; {ABORTABLE}"),
        Family(CONTROLS, {m: "blocking_task" for m in CONTROL_COMMANDS}, CONTROL),
        Family(("celery.app.control.Inspect",), {"*": "blocking_task"}, INSPECT),
        Family(APPS, {"send_task": "blocking_socket_io"}, SEND),
        Family(("celery.app.task.Task",), {"delay": "blocking_socket_io", "apply_async": "blocking_socket_io"},
               DOCS + "celery.app.task.html#celery.app.task.Task.apply_async (publishes the task message)"),
        Family(TASKS, {"update_state": "blocking_db"}, UPDATE_STATE),
        Family(DRAMATIQ_ACTORS, {"send": "blocking_socket_io", "send_with_options": "blocking_socket_io"}, DRAMATIQ),
        Family(DRAMATIQ_BROKERS, {"enqueue": "blocking_socket_io"}, DRAMATIQ),
        Family(DRAMATIQ_COMPOSITIONS, {"run": "blocking_socket_io"}, DRAMATIQ),
    ),
    reads={f"{r}.{p}": ("blocking_db", RESULT_STATE.replace("(ready", "(state/status, ready")) for r in RESULTS
           for p in ("state", "status")},
    returns={**{r: r for r in RESULTS},
             **{app: "celery.Celery" for app in APPS},
             **{f"{c}.inspect": "celery.app.control.Inspect" for c in CONTROLS},
             **{f"{app}.send_task": "celery.result.AsyncResult" for app in APPS},
             "celery.app.task.Task.delay": "celery.result.AsyncResult",
             "celery.app.task.Task.apply_async": "celery.result.AsyncResult",
             **{q: "rq.Queue" for q in RQ_QUEUES},
             **{f"{q}.{m}": "rq.job.Job" for q in RQ_QUEUES for m in ("enqueue", "enqueue_call", "enqueue_at",
                                                                       "enqueue_in", "fetch_job")},
             **{f"{j}.fetch": "rq.job.Job" for j in RQ_JOBS},
             "dramatiq.actor": DRAMATIQ_ACTORS[0], "dramatiq.actor.actor": DRAMATIQ_ACTORS[0],
             **{c: c for c in DRAMATIQ_COMPOSITIONS}},
)
"""Celery's and RQ's client calls that block (see the module docstring); ``app.control``/``app.tasks[...]`` are typed by
:data:`~faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`."""

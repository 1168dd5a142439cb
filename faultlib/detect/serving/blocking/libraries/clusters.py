"""Waiting on a compute cluster's results from async code: Ray's ``ray.get`` and ``ray.wait``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 35 (a Ray Serve replica's async start built its engine config with ``ray.get`` on a remote task).
``ray.get(refs)`` blocks the calling thread until the objects are computed and fetched; Ray's guide for async
actors and Serve deployments says to ``await`` the ``ObjectRef`` instead. ``ray.wait`` blocks until
``num_returns`` refs are ready or ``timeout`` passes: ``timeout=0`` only polls and is left out.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

T = "blocking_task"
RAY_GET = ("https://docs.ray.io/en/latest/ray-core/actors/async_api.html (in async actors, \"ray.get\" blocks the "
           "event loop; use \"await ref\"); https://docs.ray.io/en/latest/ray-core/api/doc/ray.get.html (\"This "
           "method blocks until the object corresponding to the object ref is available\")")
RAY_WAIT = ("https://docs.ray.io/en/latest/ray-core/api/doc/ray.wait.html (returns once num_returns objects are "
            "ready or timeout seconds pass; timeout=None waits for ever)")

CLUSTERS = Vocabulary(
    calls={"ray.get": (T, RAY_GET), "ray.wait": (T, RAY_WAIT)},
    when={"ray.wait": BlocksWhen("timeout", position=None, test="other_than", absent=True, values=(0, 0.0))},
)

"""ROS 2's Python client library ``rclpy``: spinning a node, which runs its callbacks in the calling thread.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``rclpy.spin`` executes a node's work until the context shuts down; ``spin_until_future_complete`` until the
future (a service reply) is done or the timeout passes; ``spin_once`` waits for one piece of work, for ever when no
``timeout_sec`` is given (``0`` does not wait). The executors' methods of the same names do the same (held-out
wave 79: a FastAPI bridge whose service clients waited for ROS replies with ``spin_until_future_complete`` from
async controllers). A service client's synchronous ``Client.call`` waits for the reply as well. Each entry names
the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

T = "blocking_task"
API = "https://docs.ros2.org/latest/api/rclpy/api/"
SPIN = (API + "init_shutdown.html#rclpy.spin (spin executes work until the context shuts down; "
        "spin_until_future_complete until the future is complete or timeout_sec passes; spin_once waits for one "
        "piece of work, blocking for ever when timeout_sec is None)")
EXECUTOR = (API + "execution_and_callbacks.html#rclpy.executors.Executor.spin_until_future_complete (an executor's "
            "spin, spin_once and spin_until_future_complete run the callbacks in the calling thread until done)")
CALL = (API + "services.html#rclpy.client.Client.call (makes a service request and waits for the response; "
        "call_async returns a future instead)")
_EXECUTORS = tuple(f"rclpy.executors.{name}" for name in ("Executor", "SingleThreadedExecutor",
                                                          "MultiThreadedExecutor"))
_NOT_NOW = BlocksWhen("timeout_sec", test="other_than", values=(0, 0.0), absent=True)

ROBOTICS = Vocabulary(
    calls={
        "rclpy.spin": (T, SPIN), "rclpy.spin_until_future_complete": (T, SPIN), "rclpy.spin_once": (T, SPIN),
    },
    when={"rclpy.spin_once": _NOT_NOW},
    families=(
        Family(_EXECUTORS, {m: T for m in ("spin", "spin_once", "spin_until_future_complete")}, EXECUTOR),
        Family(("rclpy.client.Client",), {"call": T}, CALL),
    ),
    returns={**{name: name for name in _EXECUTORS}, "rclpy.node.Node.create_client": "rclpy.client.Client"},
)

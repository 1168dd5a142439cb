"""System monitoring: psutil's sampling calls that sleep for their interval.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``psutil.cpu_percent(interval=1)`` measures CPU use over the interval by sleeping in the calling thread ("When
interval is > 0.0 compares system CPU times elapsed before and after the interval (blocking)"); with ``interval``
left out, ``None`` or ``0.0`` it compares with the last call and returns at once. ``cpu_times_percent`` behaves the
same way, and so does a ``psutil.Process``'s ``cpu_percent``. The condition on the argument is a :class:`~faultlib.detect.serving.blocking.entries.BlocksWhen`: a
literal interval above zero, or a variable one (it may be), blocks; the default does not.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

S = "blocking_sleep"
CPU_PERCENT = ("https://psutil.readthedocs.io/en/latest/#psutil.cpu_percent (\"When interval is > 0.0 compares "
               "system CPU times elapsed before and after the interval (blocking)\")")
PROCESS_CPU_PERCENT = ("https://psutil.readthedocs.io/en/latest/#psutil.Process.cpu_percent (\"When interval is > "
                       "0.0 compares process times to system CPU times elapsed before and after the interval "
                       "(blocking)\")")
CPU_TIMES_PERCENT = ("https://psutil.readthedocs.io/en/latest/#psutil.cpu_times_percent (\"interval and percpu "
                     "arguments have the same meaning as in cpu_percent()\")")

SYSTEM = Vocabulary(
    calls={"psutil.cpu_percent": (S, CPU_PERCENT), "psutil.cpu_times_percent": (S, CPU_TIMES_PERCENT),
           "psutil.Process.cpu_percent": (S, PROCESS_CPU_PERCENT)},
    when={name: BlocksWhen("interval", position=0, test="positive")
          for name in ("psutil.cpu_percent", "psutil.cpu_times_percent", "psutil.Process.cpu_percent")},
)

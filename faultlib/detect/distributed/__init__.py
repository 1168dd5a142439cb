"""Distributed training (``distributed.*``): faults between the ranks of a ``torch.distributed`` job.

- :mod:`.recorder`: :class:`FlightRecorder`, per rank a bounded ring of every collective issued (op,
  process group, shapes, dtypes, call site, times, state), dumped at exit, on ``SIGUSR1``, on
  ``SIGTERM``/``SIGINT`` before their own action (:mod:`.dump_signals`) and by a watchdog with its own
  deadline; DDP's bucket all-reduces recorded per backward on DDP's C++ path (:mod:`.ddp_buckets`);
- :mod:`.collectives`: the dumps aligned by sequence number per process group; the first collective the
  ranks disagree on, who skipped it, and who is still waiting (``check collectives``);
- :mod:`.straggler`: :class:`StragglerMonitor`, per-rank step-phase times (data, compute, collective wait)
  exchanged every few steps, and :class:`StragglerDetector`, which names the slow rank and phase;
- :mod:`.workers`: :class:`WorkerWatch`, DataLoader worker faults: the worker, rank, dataset index, sample
  and traceback of a worker that raised, or the signal and likely cause of one that was killed;
- :mod:`.nonfinite`: :class:`CollectiveNonFiniteWatch`, per rank the collective that brought a NaN/inf in
  (received) or carried it out (sent); :func:`first_culprit` names the rank that made it first.

Importing this package imports no torch; each name loads its module on first use.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "FlightRecorder": "recorder",
    "CollectivesReport": "collectives", "analyse_collectives": "collectives", "load_collective_dumps": "collectives",
    "StragglerMonitor": "straggler", "StragglerDetector": "straggler", "Straggler": "straggler",
    "WorkerWatch": "workers", "WorkerFault": "worker_report", "WorkerFaultReport": "worker_report",
    "CollectiveNonFiniteWatch": "nonfinite", "first_culprit": "nonfinite", "first_consumer": "nonfinite",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)

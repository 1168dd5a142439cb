"""Processes that never outlive their owner: process trees, a subprocess run with a deadline.

- :mod:`.tree`: :class:`ProcessTree` (every process a child became, found through ``/proc``, killed
  whole), :func:`become_subreaper`, :func:`pdeathsig_preexec`, and ``/proc`` readers;
- :mod:`.run`: :func:`run_process` (a subprocess in its own session, polled, killed whole at its
  timeout) and :func:`kill_group`; :class:`ProcessOutcome` is how it ended.

The local backend runs repro phases with it, the runner's lock finds a dead runner's orphans with it,
and the observability room starts Prometheus with it.
"""

from faultlib.processes.run import ProcessOutcome, kill_group, repro_environment, run_process
from faultlib.processes.tree import ProcessTree, become_subreaper, pdeathsig_preexec

__all__ = ["ProcessOutcome", "ProcessTree", "become_subreaper", "kill_group", "pdeathsig_preexec",
           "repro_environment", "run_process"]

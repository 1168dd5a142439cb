"""What every backend provides: a check before anything is written, a session around the
phases, and one call per phase.

The runner drives a backend in this order::

    backend.preflight(case)                       # reachable? inputs valid? (no side effect)
    with backend.session(case, run_id=..., run_dir=...):   # bring up / tear down (also on failure)
        backend.run_phase(phase="control", ...)
        backend.run_phase(phase="faulted", ...)
    # then the assertion suite runs on the evidence in run_dir

The local backend needs neither setup nor teardown; compose brings a topology up and down around
both phases; kubernetes creates and deletes one Job per phase, and the Chaos Mesh objects around
the faulted one.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from faultlib.processes import ProcessOutcome

if TYPE_CHECKING:
    from faultlib.cases import Case, World


class Backend:
    """Base class of backends; subclasses set :attr:`name` and implement :meth:`run_phase`."""

    name: str = ""

    def preflight(self, case: "Case") -> None:
        """Check, before the run writes anything, that the backend can run ``case``.

        Raises:
            BackendUnavailable: the engine or cluster cannot be reached (exit 3).
            FaultlibError: the case's backend-specific inputs are invalid (exit 2).
        """

    @contextmanager
    def session(self, case: "Case", *, run_id: str, run_dir: Path) -> Iterator[None]:
        """Set up what both phases share and tear it down on exit, also when a phase fails."""
        yield

    def run_phase(self, *, script: Path, run_dir: Path, phase: str, env: dict[str, str], timeout_s: float,
                  on_step: Callable[[int, int | None], None], world: "World | None" = None) -> ProcessOutcome:
        """Run one phase of the repro; its output goes to ``run_dir``'s stdout.txt and stderr.txt.

        Args:
            script: the repro script on this machine (``<case dir>/<repro.script>``).
            run_dir: the run's evidence directory on this machine.
            phase: ``control`` or ``faulted``.
            env: the phase's variables (:func:`faultlib.repro.phase_env`).
            timeout_s: the phase's budget in seconds (``repro.timeout_s`` or ``--timeout``).
            on_step: called with (step, total) as step spans finish, where the backend can see them.
            world: ``repro.world`` of a distributed case (every rank is started, and killed, with the phase).

        Returns:
            How the phase ended (exit code, timed out, duration).

        When it returns or raises (also on ``KeyboardInterrupt``), no process the phase started may
        still run, including those that left its session: the local backend kills them all
        (:mod:`faultlib.processes.tree`). It must not follow symlinks or open FIFOs a repro left in
        ``run_dir`` (:func:`faultlib.evidence.seal.open_append`).
        """
        raise NotImplementedError

"""The repro side of a run: what a case's ``repro.py`` imports.

The runner starts the repro once per phase with its parameters in the environment
(:func:`phase_env`); the repro opens :func:`context`, attaches its model, and wraps
each step. The same script serves the control phase (no faults) and the faulted phase::

    from faultlib import repro

    with repro.context() as ctx:
        torch.manual_seed(ctx.seed)
        model = build(**ctx.params)
        ctx.attach(model)                       # applies the case's local shims (faulted phase)
        for step in range(ctx.params["steps"]):
            with ctx.step(step, total=...) as span:
                loss = train_step(...)
                span.set(loss=float(loss))
        ctx.summary(accuracy=acc)

Run directly (``python repro.py``, no runner), the context runs the control phase and
writes evidence to a fresh directory under ``.faultlib/scratch/``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from faultlib.errors import InjectionError
from faultlib.evidence.recorder import Recorder, _clean
from faultlib.findings import Finding
from faultlib.inject import InjectorSet, build

ENV_RUN_DIR = "FAULTLIB_RUN_DIR"
ENV_RUN_ID = "FAULTLIB_RUN_ID"
ENV_CASE_ID = "FAULTLIB_CASE_ID"
ENV_PHASE = "FAULTLIB_PHASE"
ENV_SEED = "FAULTLIB_SEED"
ENV_PARAMS = "FAULTLIB_PARAMS"
ENV_FAULTS = "FAULTLIB_FAULTS"


def phase_env(*, run_dir: Path, run_id: str, case_id: str, phase: str, seed: int,
              params: dict[str, Any], faults: list[dict[str, Any]]) -> dict[str, str]:
    """Environment variables the runner sets for one phase of a repro."""
    return {ENV_RUN_DIR: str(run_dir), ENV_RUN_ID: run_id, ENV_CASE_ID: case_id, ENV_PHASE: phase,
            ENV_SEED: str(seed), ENV_PARAMS: json.dumps(params), ENV_FAULTS: json.dumps(faults)}


class StepSpan:
    """The span of one step; :meth:`set` records attributes (loss, loss_scale, overflow ...)."""

    def __init__(self, span):
        self._span = span

    def set(self, **attributes: Any) -> None:
        self._span.set_attributes(_clean(attributes))

    def event(self, name: str, **attributes: Any) -> None:
        self._span.add_event(name, _clean(attributes))


class ReproContext:
    """One phase of a repro: parameters, faults, and the evidence recorder.

    Attributes:
        phase: ``control`` or ``faulted``.
        seed: the run's seed (int); seed every RNG with it.
        params: the case's ``repro.params`` (dict of JSON values).
        faults: the phase's :class:`InjectorSet` (empty in the control phase).
        model: the attached model (``None`` until :meth:`attach`).
        step: the step in progress (``None`` outside :meth:`step`).
        evidence: the :class:`Recorder` (counters, gauges, histograms, spans, log).
    """

    def __init__(self, *, run_dir: Path, run_id: str, case_id: str, phase: str, seed: int,
                 params: dict[str, Any], faults: InjectorSet):
        self.run_dir = run_dir
        self.run_id = run_id
        self.case_id = case_id
        self.phase = phase
        self.seed = seed
        self.params = params
        self.faults = faults
        self.model = None
        self.step_index: int | None = None
        self.evidence = Recorder(run_dir, service=case_id, phase=phase, run_id=run_id)
        self.log = self.evidence.log
        self._root = None

    def attach(self, model: Any) -> None:
        """Attach the workload's model and apply the phase's faults to it (once)."""
        self.model = model
        if self.faults:
            self.faults.apply(_Target(self))
            self.log.info("faults applied: %s", ", ".join(i.name for i in self.faults))

    @contextmanager
    def step(self, index: int, *, total: int | None = None, name: str = "train.step") -> Iterator[StepSpan]:
        """Wrap one step: sets ``ctx.step_index`` for the injectors and records a span with
        ``faultlib.step``, ``faultlib.steps_total`` and the fault window (before/during/after/none)."""
        self.step_index = index
        window = self.faults.window(index)
        self.evidence.window = window
        attrs = {"faultlib.step": index, "faultlib.steps_total": total, "faultlib.fault.window": window,
                 "faultlib.fault.active": window == "during"}
        try:
            with self.evidence.span(name, **attrs) as span:
                yield StepSpan(span)
        finally:
            self.step_index = None

    def report(self, finding: Finding) -> None:
        """Record a detector finding in the evidence."""
        if self.step_index is not None and "step" not in finding.location:
            finding = Finding(finding.detector, finding.severity, finding.message,
                              {**finding.location, "step": self.step_index}, finding.evidence)
        self.evidence.report(finding)

    def summary(self, **values: Any) -> None:
        """Final values of the phase (accuracy, steps ...), readable as ``evidence.<phase>.summary``."""
        if self._root is not None:
            self._root.set_attributes(_clean({f"summary.{k}": v for k, v in values.items()}))

    @property
    def dump_dir(self) -> Path:
        path = self.run_dir / "dumps" / self.phase
        path.mkdir(parents=True, exist_ok=True)
        return path


class _Target:
    """Adapter giving injectors the FaultTarget view (``model``, ``step``) of a context."""

    def __init__(self, ctx: ReproContext):
        self._ctx = ctx

    @property
    def model(self):
        return self._ctx.model

    @property
    def step(self) -> int | None:
        return self._ctx.step_index


def _faults_from_env(raw: str) -> InjectorSet:
    try:
        specs = json.loads(raw or "[]")
    except json.JSONDecodeError as exc:
        raise InjectionError(f"{ENV_FAULTS} is not JSON: {exc}") from exc
    return InjectorSet([build(s["shim"], s.get("params")) for s in specs])


@contextmanager
def context() -> Iterator[ReproContext]:
    """Open the phase described by the environment (see :func:`phase_env`).

    Raises:
        InjectionError: the fault list in the environment is invalid.
    """
    env = os.environ
    run_dir = env.get(ENV_RUN_DIR)
    if run_dir is None:
        run_dir = str(Path(".faultlib/scratch") / time.strftime("%Y%m%dT%H%M%S"))
        print(f"faultlib: not started by `faultlib run`; control phase, evidence in {run_dir}", file=sys.stderr)
    ctx = ReproContext(
        run_dir=Path(run_dir), run_id=env.get(ENV_RUN_ID, "adhoc"), case_id=env.get(ENV_CASE_ID, "adhoc"),
        phase=env.get(ENV_PHASE, "control"), seed=int(env.get(ENV_SEED, "0")),
        params=json.loads(env.get(ENV_PARAMS, "{}")), faults=_faults_from_env(env.get(ENV_FAULTS, "[]")))
    try:
        with ctx.evidence.span("faultlib.repro", **{"faultlib.phase": ctx.phase}) as root:
            ctx._root = root
            yield ctx
    finally:
        ctx.faults.revert()
        ctx.evidence.close()

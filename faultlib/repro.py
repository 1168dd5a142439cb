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

A serving repro resolves each downstream address with ``ctx.endpoint("feature_service", host,
port)`` (a network shim may answer with its proxy's address), and a repro may mark points where a
fault can land with ``ctx.fault_point("checkpoint.write", step=...)``; ``ctx.step`` is the point
``step``. A phase restarted after a kill (``repro.restarts``) runs again with ``ctx.attempt`` + 1.

Run directly (``python repro.py``, no runner), the context runs the control phase and
writes evidence to a fresh directory under ``.faultlib/scratch/``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

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
ENV_ATTEMPT = "FAULTLIB_ATTEMPT"
#: the faulted phase's fault list, given to the control phase (which applies none of it): the control
#: snapshots its metrics at the steps where the faulted run's fault window changes
ENV_MIRROR_FAULTS = "FAULTLIB_MIRROR_FAULTS"


def phase_env(*, run_dir: Path, run_id: str, case_id: str, phase: str, seed: int,
              params: dict[str, Any], faults: list[dict[str, Any]], attempt: int = 1,
              mirror: list[dict[str, Any]] | None = None) -> dict[str, str]:
    """Environment variables the runner sets for one phase of a repro (``attempt`` is 1-based:
    a phase restarted after a kill runs again with the same run dir and ``attempt`` + 1). ``mirror``:
    the faulted phase's faults, for the control phase (never applied; only their step windows are read)."""
    env = {ENV_RUN_DIR: str(run_dir), ENV_RUN_ID: run_id, ENV_CASE_ID: case_id, ENV_PHASE: phase,
           ENV_SEED: str(seed), ENV_PARAMS: json.dumps(params), ENV_FAULTS: json.dumps(faults),
           ENV_ATTEMPT: str(attempt)}
    if mirror:
        env[ENV_MIRROR_FAULTS] = json.dumps(mirror)
    return env


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
        attempt: 1-based attempt of this phase (> 1 after the runner restarted a killed phase).
        mirror_steps: the steps where the faulted phase's fault window changes (control phase only):
            a metrics snapshot is written as each begins, so the control has the same window boundaries.
        evidence: the :class:`Recorder` (counters, gauges, histograms, spans, log).
        rank, world_size: this process's rank and the world size in a distributed repro (``RANK`` and
            ``WORLD_SIZE``, set by torchrun and by a PyTorchJob); ``None`` and 1 otherwise. Every metric
            point then carries the label ``rank``, every span and log the resource attribute ``faultlib.rank``.
    """

    def __init__(self, *, run_dir: Path, run_id: str, case_id: str, phase: str, seed: int,
                 params: dict[str, Any], faults: InjectorSet, attempt: int = 1,
                 mirror_steps: frozenset[int] = frozenset()):
        self.run_dir = run_dir
        self.run_id = run_id
        self.case_id = case_id
        self.phase = phase
        self.seed = seed
        self.params = params
        self.faults = faults
        self.attempt = attempt
        self.model = None
        self.step_index: int | None = None
        self.rank, self.world_size = _rank_from_env()
        self.evidence = Recorder(run_dir, service=case_id, phase=phase, run_id=run_id, attempt=attempt,
                                 rank=self.rank)
        self.log = self.evidence.log
        self._root = None
        self._routes: dict[str, Callable[[tuple[str, int]], tuple[str, int]]] = {}
        self._points: dict[str, list[Callable[[str, dict[str, Any]], None]]] = {}
        self._faults_applied = False
        self._mirror_steps = mirror_steps

    def attach(self, model: Any) -> None:
        """Attach the workload's model and apply the phase's faults to it (once)."""
        self.model = model
        if self.faults:
            self.faults.apply(_Target(self))
            self._faults_applied = True
            self.log.info("faults applied: %s", ", ".join(i.name for i in self.faults))

    @contextmanager
    def step(self, index: int, *, total: int | None = None, name: str = "train.step") -> Iterator[StepSpan]:
        """Wrap one step: sets ``ctx.step_index`` for the injectors and records a span with
        ``faultlib.step``, ``faultlib.steps_total``, ``faultlib.attempt`` and the fault window
        (before/during/after/none). Reaching a step is the fault point ``step``, before the span opens."""
        self.step_index = index
        window = self.faults.window(index)
        if index in self._mirror_steps and window == self.evidence.window:
            self.evidence.snapshot()  # the control, where the faulted run's window changes: same boundaries
        self.evidence.window = window
        attrs = {"faultlib.step": index, "faultlib.steps_total": total, "faultlib.fault.window": window,
                 "faultlib.fault.active": window == "during", "faultlib.attempt": self.attempt}
        try:
            self._reach("step", {"step": index, "span": name})
            with self.evidence.span(name, **attrs) as span:
                yield StepSpan(span)
        finally:
            self.step_index = None

    def endpoint(self, name: str, host: str, port: int) -> tuple[str, int]:
        """The address to connect to for the downstream endpoint called ``name``.

        In the control phase, or when no shim targets ``name``, that is ``(host, port)`` itself;
        in the faulted phase a network shim (``tcp_latency``) returns the address of its proxy
        on 127.0.0.1 in front of the real one. Resolve once per endpoint and connect to the result.

        Args:
            name: the endpoint name the case's shims use, e.g. ``"feature_service"``.
            host: the real host.
            port: the real TCP port.

        Returns:
            ``(host, port)`` to connect to.

        Raises:
            InjectionError: the phase has faults and :meth:`attach` has not applied them yet.
        """
        self._require_applied(f"ctx.endpoint({name!r}, ...)")
        real = (host, int(port))
        resolver = self._routes.get(name)
        if resolver is None:
            return real
        routed = resolver(real)
        self.log.info("endpoint %s %s:%d routed through %s:%d", name, *real, *routed)
        return routed

    def fault_point(self, name: str, **attributes: Any) -> None:
        """Mark a named point of the workload where subscribed shims act, e.g. ``process_kill``
        may kill the process group here. ``step`` is reached by :meth:`step` itself; a repro that
        checkpoints calls ``checkpoint.write`` after part of the file is on disk, before it is published.

        Args:
            name: the point, e.g. ``"checkpoint.write"``.
            **attributes: what the shims may match on (``step`` ...), JSON values.

        Raises:
            InjectionError: the phase has faults and :meth:`attach` has not applied them yet.
        """
        self._require_applied(f"ctx.fault_point({name!r})")
        self._reach(name, attributes)

    def _reach(self, name: str, attributes: dict[str, Any]) -> None:
        for callback in self._points.get(name, ()):
            callback(name, attributes)

    def _require_applied(self, call: str) -> None:
        if self.faults and not self._faults_applied:
            raise InjectionError(f"{call} before the faults were applied: call ctx.attach(model) first")

    def report(self, finding: Finding) -> None:
        """Record a detector finding in the evidence."""
        if self.step_index is not None and "step" not in finding.location:
            finding = dataclasses.replace(finding, location={**finding.location, "step": self.step_index})
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
    """Adapter giving injectors the :class:`faultlib.inject.FaultTarget` view of a context."""

    def __init__(self, ctx: ReproContext):
        self._ctx = ctx

    @property
    def model(self):
        return self._ctx.model

    @property
    def step(self) -> int | None:
        return self._ctx.step_index

    @property
    def attempt(self) -> int:
        return self._ctx.attempt

    def subscribe(self, point: str, callback: Callable[[str, dict[str, Any]], None]) -> None:
        self._ctx._points.setdefault(point, []).append(callback)

    def reroute(self, endpoint: str, resolver: Callable[[tuple[str, int]], tuple[str, int]]) -> None:
        if endpoint in self._ctx._routes:
            raise InjectionError(f"endpoint {endpoint!r} is already rerouted by another shim: "
                                 "give each endpoint one network shim")
        self._ctx._routes[endpoint] = resolver

    def record_fault(self, injector: str, **attributes: Any) -> None:
        ctx = self._ctx
        attrs = {"faultlib.injector": injector, "faultlib.attempt": ctx.attempt, **attributes}
        with ctx.evidence.span("faultlib.fault", **attrs):
            pass
        ctx.evidence.flush()  # written at once, with every span before it: the fault may end the process
        ctx.log.warning("fault %s: %s", injector, " ".join(f"{k}={v}" for k, v in attributes.items()),
                        extra={"faultlib.injector": injector})


def _rank_from_env() -> tuple[int | None, int]:
    """``(RANK, WORLD_SIZE)`` as torchrun and the Kubeflow training operator set them; ``(None, 1)`` outside a world.

    Raises:
        InjectionError: ``RANK`` or ``WORLD_SIZE`` is set but not a non-negative integer.
    """
    rank, size = os.environ.get("RANK"), os.environ.get("WORLD_SIZE")
    if rank is None:
        return None, 1
    try:
        rank_i, size_i = int(rank), int(size or "1")
    except ValueError:
        raise InjectionError(f"RANK={rank!r} WORLD_SIZE={size!r}: both must be integers (torchrun sets them)") from None
    if not 0 <= rank_i < max(size_i, 1):
        raise InjectionError(f"RANK={rank_i} is outside the world of WORLD_SIZE={size_i}")
    return rank_i, size_i


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
        params=json.loads(env.get(ENV_PARAMS, "{}")), faults=_faults_from_env(env.get(ENV_FAULTS, "[]")),
        attempt=int(env.get(ENV_ATTEMPT, "1")),
        mirror_steps=_faults_from_env(env.get(ENV_MIRROR_FAULTS, "[]")).boundaries())
    try:
        root_attrs = {"faultlib.phase": ctx.phase, "faultlib.attempt": ctx.attempt}
        with ctx.evidence.span("faultlib.repro", **root_attrs) as root:
            ctx._root = root
            yield ctx
    finally:
        ctx.faults.revert()
        ctx.evidence.close()

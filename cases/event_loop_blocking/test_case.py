"""Assertion suite of event_loop_blocking; the `evidence` fixture comes from faultlib.cases.fixture."""

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from faultlib.errors import TimingInconclusive
from faultlib.evidence.timing import Waited, assert_at_most, step_reference
from faultlib.readers import load_yaml_file

HERE = Path(__file__).parent
CASE = load_yaml_file(HERE / "case.yaml").data
PARAMS = CASE["repro"]["params"]
SHIM = CASE["inject"]["local"][0]["params"]
WINDOW = set(range(SHIM["start_step"], SHIM["start_step"] + SHIM["steps"]))
THRESHOLD_MS = PARAMS["threshold_ms"]
INFER_LINE = next(i for i, line in enumerate((HERE / "repro.py").read_text().splitlines(), 1)
                  if "logits = self.model(batch)" in line)


def rounds(phase):
    return phase.steps("load.round")


def step(span):
    return span.attributes["faultlib.step"]


INFER = "ModelService.infer"


def machine_stalls(phase):
    """loop_blocked findings the machine caused, not the code: not at the inference, the loop thread used under
    10 % of a core meanwhile (no CPU reading: no stack sample caught code either) or the site inside asyncio,
    and each stall never twice the threshold or past it by no more than the loop thread waited for a CPU
    during it (the repro's reading on its loop.blocked span). On a loaded machine the scheduler can leave the
    loop runnable but not running for 50+ ms in any callback (measured: 57 ms in
    _SelectorSocketTransport.write with 0.4 ms of CPU at load ~20; 112 ms there at load 22); the watchdog's
    threshold is an absolute 50 ms, so it names that stall."""
    return [f for f in phase.findings if f.kind == "loop_blocked" and f.location.get("function") != INFER
            and (f.evidence["max_blocked_ms"] < 2 * THRESHOLD_MS or waited_for_a_cpu(phase, f))
            and ((f.evidence.get("loop_cpu_ms") or 0.0) < 0.1 * f.evidence["total_blocked_ms"]
                 or in_asyncio(f.location.get("file")))]


def site_spans(phase, finding):
    """The loop.blocked spans' attributes at ``finding``'s site (function, file, line; none sampled: empty)."""
    site = {k: finding.location.get(k) for k in ("function", "file", "line")}
    return [s.attributes for s in phase.spans_named("loop.blocked")
            if all((s.attributes.get(k) or None) == (v or None) for k, v in site.items())]


def waited_for_a_cpu_text(phase, finding):
    waited = [a["run_queue_wait_ms"] for a in site_spans(phase, finding) if a.get("run_queue_wait_ms") is not None]
    return f" (the loop thread waited up to {max(waited):.0f} ms for a CPU in a stall)" if waited else ""


def waited_for_a_cpu(phase, finding):
    """Every stall at ``finding``'s site (its loop.blocked spans) under twice the threshold or past it by no
    more than the loop thread's run-queue wait during it: the scheduler, not the code, held the loop."""
    spans = site_spans(phase, finding)
    waited = [a.get("run_queue_wait_ms") for a in spans]
    return bool(spans) and all(a["blocked_ms"] < 2 * THRESHOLD_MS
                               or (w is not None and a["blocked_ms"] - w <= THRESHOLD_MS) for a, w in zip(spans, waited))


def in_asyncio(file):
    """A site inside the asyncio package itself: its transports write to non-blocking sockets, so a stall
    there is the loop thread not being run (measured: 50.6 ms in _SelectorSocketTransport.write with 6.3 ms
    of loop CPU at load ~13), never a wait of the code's."""
    return bool(file) and f"{os.sep}asyncio{os.sep}" in file


def blocked_findings(phase):
    noise = machine_stalls(phase)
    return [f for f in phase.findings if f.kind == "loop_blocked" and f not in noise]


def infer_stalls(phase, step=None):
    """loop.blocked spans at the inference (in ``step``, when given)."""
    return [e for e in phase.spans_named("loop.blocked") if e.attributes["function"] == INFER
            and (step is None or e.attributes["faultlib.step"] == step)]


def health_reference(evidence):
    """/health P99 per round without the fault: the control's rounds (or, with --no-control, the faulted
    run's rounds before the window), measured on this machine in this run (faultlib.evidence.timing)."""
    return step_reference(evidence, "load.round", "health_p99_ms", what="/health P99 per round")


def cpu_share_reference(evidence):
    """The share of a core an inference got in the executor without the fault (CPU ms / wall ms, per round):
    1.0 on an idle machine, less when other processes compete for the cores."""
    return step_reference(evidence, "load.round", lambda a: a["inference_cpu_ms"] / a["inference_total_ms"]
                          if a.get("inference_total_ms") else None, what="inference CPU share per round", unit="")


def probe_waits(spans):
    """Each /health probe of these rounds with how long it waited for a CPU (the larger of the service loop's and
    the load generator's run-queue waits while it was in flight; None where the repro did not measure it)."""
    out = []
    for span in spans:
        a = span.attributes
        waits = a.get("health_run_queue_wait_ms") or [None] * len(a.get("health_ms", ()))
        out += [Waited(latency, waited, f"round {step(span)} probe {k}")
                for k, (latency, waited) in enumerate(zip(a.get("health_ms", ()), waits))]
    return out


def test_control_raises_no_finding(evidence):
    control = evidence.control
    noise = machine_stalls(control)
    assert control.status == "ok" and [f for f in control.findings if f not in noise] == []
    stalls = sum(f.evidence["blocks"] for f in noise)
    assert control.summary["loop_blocked"] == stalls
    assert control.metric("faultlib_loop_stalls_total", kind="loop_blocked") == stalls
    assert not infer_stalls(control) and len(control.spans_named("loop.blocked")) == stalls
    assert {s.attributes["placement"] for s in rounds(control)} == {"executor"}
    # a round counts the stalls the loop recovered from while it ran; a machine stall can end between two rounds
    # (measured at load 26: 5 stalls, 4 in rounds); every stall here being the machine's (above), none is lost
    assert sum(s.attributes["loop_blocks"] for s in rounds(control)) <= stalls
    if noise:
        raise TimingInconclusive("inconclusive: the control's watchdog saw " + "; ".join(
            f"{f.evidence['max_blocked_ms']:.0f} ms in {f.location.get('function') or 'no sampled frame'} with "
            f"{f.evidence.get('loop_cpu_ms') or 0:.1f} ms of loop CPU" + waited_for_a_cpu_text(control, f) for f in noise)
            + ": the machine did not run the loop (load), nothing blocked it; no stall at the inference")


def test_control_health_latency_stays_low(evidence):
    summary = evidence.control.summary
    assert summary["health_probes"] >= 0.8 * PARAMS["rounds"] * PARAMS["round_ms"] / PARAMS["probe_interval_ms"]
    # with inference in the executor a probe never waits behind one: its P99 stays a fraction of an
    # inference measured in the same run (a ratio, so a loaded machine slows both alike); above it,
    # inconclusive where the probes' waits for a CPU explain the excess (the suite's other worker on a
    # 2-core runner starved the loop; nothing blocked it)
    inference_ms = statistics.median(s.attributes["inference_ms"] for s in rounds(evidence.control))
    assert_at_most(summary["health_p99_ms"], inference_ms / 2, what="the control's /health P99",
                   bound=f"not below half an inference measured in the same run ({inference_ms:.4g} ms)",
                   waits=probe_waits(rounds(evidence.control)))


def test_rounds_before_the_fault_are_normal(evidence):
    before = [s for s in rounds(evidence.faulted) if step(s) < min(WINDOW)]
    assert len(before) == min(WINDOW)
    for span in before:
        a = span.attributes
        assert a["faultlib.fault.window"] == "before" and a["placement"] == "executor", f"{a}"
        assert not infer_stalls(evidence.faulted, step(span)), f"{a}"
    faulted = evidence.faulted.summary
    # before the fault nothing the fault does can hide in a wait for a CPU: the probes' waits are the machine's
    health_reference(evidence).assert_restored(faulted["health_p99_before_ms"], faulted=faulted["health_p99_during_ms"],
                                               what="/health P99 before the fault", waits=probe_waits(before))


def test_health_waits_behind_inference_on_the_loop(evidence):
    during = [s for s in rounds(evidence.faulted) if step(s) in WINDOW]
    assert {step(s) for s in during} == WINDOW
    assert {s.attributes["placement"] for s in during} == {"loop"}  # the shim's inline executor was live
    inference_ms = statistics.median(s.attributes["inference_ms"] for s in during)
    faulted = evidence.faulted.summary
    assert inference_ms >= THRESHOLD_MS, f"inference took {inference_ms:.1f} ms: too short to matter"
    # a probe sent while an inference runs on the loop waits for it: the P99 is at least one inference
    assert faulted["health_p99_during_ms"] >= 0.8 * inference_ms, f"{faulted}; {inference_ms}"
    health_reference(evidence).assert_raised(faulted["health_p99_during_ms"], factor=3,
                                             what="/health P99 during the fault")


def test_watchdog_names_the_blocking_call(evidence):
    findings = blocked_findings(evidence.faulted)
    assert len(findings) == 1, f"{[f.message for f in findings]}"
    (finding,) = findings
    loc, ev = finding.location, finding.evidence
    assert Path(loc["file"]).name == "repro.py" and loc["line"] == INFER_LINE, loc
    assert loc["function"] == "ModelService.infer"
    assert ev["call"] == "self.model(batch)"
    assert ev["via"] == ["ModelService.predict", "ModelService.infer"], ev["via"]
    assert ev["first_step"] in WINDOW and ev["max_blocked_ms"] >= THRESHOLD_MS
    # every faulted round stalled; two inferences back to back on the loop may make one stall
    assert len(WINDOW) <= ev["blocks"] <= PARAMS["predicts"] * len(WINDOW), ev["blocks"]
    inline_ms = sum(s.attributes["inference_total_ms"] for s in rounds(evidence.faulted) if step(s) in WINDOW)
    # the stalls are the inferences (each stall: one or two of them, and the loop's own bit of work)
    assert ev["total_blocked_ms"] >= 0.9 * inline_ms, f'{ev["total_blocked_ms"]}; {inline_ms}'
    assert ev["site_samples"] >= ev["blocks"]  # at least one stack sample per stall named this line
    # the loop thread was computing, not waiting: its CPU share during the stalls is of the order of the
    # share an inference got in the executor on this machine now (1.0 idle, ~0.2 with 8 busy processes
    # on 2 cores); a sleeping or lock-waiting loop would show ~0
    loop_share = ev["loop_cpu_ms"] / ev["total_blocked_ms"]
    reference = cpu_share_reference(evidence)
    assert loop_share > 0.25 * reference.median, f"{loop_share}; {reference.describe()}"
    assert "ModelService.infer" in finding.message and "self.model(batch)" in finding.message


def test_executor_restores_health_latency(evidence):
    after = [s for s in rounds(evidence.faulted) if step(s) > max(WINDOW)]
    assert len(after) == PARAMS["rounds"] - max(WINDOW) - 1
    summary = evidence.faulted.summary
    # what the clients see first: /health's P99 is back to what the same machine showed without the
    # fault (a reference measured in this run, not an absolute number of ms) and far below the window's
    # no waits= here: without the mitigation the inference stays on the loop after the window, and on a busy
    # machine the loop thread computing it waits for a CPU most of the time: taking those waits off would excuse it
    health_reference(evidence).assert_restored(summary["health_p99_after_ms"], faulted=summary["health_p99_during_ms"],
                                               what="/health P99 after the fault")
    assert summary["health_p99_after_ms"] * 3 < summary["health_p99_during_ms"]
    for span in after:  # and why: inference is back in the executor, the loop never stalls
        a = span.attributes
        assert a["faultlib.fault.window"] == "after" and a["placement"] == "executor", f"{a}"
        assert not infer_stalls(evidence.faulted, step(span)), f"{a}"
    events = infer_stalls(evidence.faulted)
    assert events and all(e.attributes["faultlib.step"] in WINDOW for e in events)


def test_every_answer_is_correct_and_nothing_crashes(evidence):
    for phase in evidence.phases:
        assert phase.status == "ok" and phase.exit_code == 0
        assert phase.summary["errors"] == 0 and phase.summary["wrong_labels"] == 0
        assert phase.summary["model_accuracy"] >= 0.93
        for span in rounds(phase):
            assert set(span.attributes["predict_codes"].split(",")) == {"200"}, f"{span.attributes}"
        served = phase.spans_named("model_service.predict")
        assert served and all(s.attributes["http.status_code"] == 200 for s in served)
    stderr = (evidence.path / "stderr.txt").read_text()
    assert "Traceback" not in stderr and "Error handling request" not in stderr, stderr[-2000:]


def test_p50_p99_with_and_without_isolation_are_in_the_evidence(evidence):
    faulted = evidence.faulted.summary
    if evidence.has_control:
        control = evidence.control.summary
        assert 0 < control["health_p50_ms"] <= control["health_p99_ms"]
    for window in ("before", "during", "after"):
        assert 0 < faulted[f"health_p50_{window}_ms"] <= faulted[f"health_p99_{window}_ms"]
    for phase in evidence.phases:
        probes = [p for p in phase.metrics
                  if p.name == "faultlib_route_latency_ms" and p.attributes["route"] == "/health"]
        assert sum(p.extra["count"] for p in probes) == phase.summary["health_probes"]


def _check(path: Path):
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "faultlib", "check", "blocking", str(path), "--json"],
                          capture_output=True, text=True, timeout=120, env=env)
    return proc.returncode, json.loads(proc.stdout)


def test_check_blocking_finds_the_inline_version_and_passes_the_isolated_one():
    code, report = _check(HERE / "inline_service.py")
    assert code == 1 and not report["ok"]
    (finding,) = report["findings"]
    assert finding["kind"] == "blocking_cpu" and finding["location"]["function"] == "InlineModelService.infer"
    assert finding["evidence"]["call"] == "self.model(batch)"
    assert finding["evidence"]["entry"] == "InlineModelService.predict"
    code, report = _check(HERE / "repro.py")
    assert code == 0 and report["ok"] and report["findings"] == [], f'{report["findings"]}'
    offloaded = {entry["function"]: entry["via"] for entry in report["offloaded"]}
    assert offloaded["ModelService.infer"] == "run_in_executor"


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []
    for phase in evidence.phases:
        assert set(CASE["observability"]["spans"]) <= {s.name for s in phase.spans}
        round_ids = {s.span_id for s in rounds(phase)}
        served = phase.spans_named("model_service.predict")
        assert sum(s.parent_span_id in round_ids for s in served) == PARAMS["predicts"] * PARAMS["rounds"]
    (finding,) = blocked_findings(evidence.faulted)
    assert len([e for e in infer_stalls(evidence.faulted) if e.attributes["kind"] == "loop_blocked"]) \
        == finding.evidence["blocks"]
    assert evidence.faulted.metric("faultlib_loop_stalls_total", kind="loop_blocked",
                                   function="ModelService.infer") == finding.evidence["blocks"]


def _infer_stalls_max(selection) -> float:
    """The largest value of the loop_stalls series at the inference (0 when it has none), leaving out
    stalls the machine caused in other callbacks (machine_stalls)."""
    return max((v for series in selection if series.labels.get("function") == INFER
                for _, v in series.values), default=0.0)


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert _infer_stalls_max(evidence.promql("loop_stalls", phase="faulted", window="before")) == 0
    assert _infer_stalls_max(evidence.promql("loop_stalls", phase="faulted", window="during")) > 0
    if evidence.has_control:
        assert _infer_stalls_max(evidence.promql("loop_stalls", phase="control")) == 0
    before = evidence.promql("health_latency_p99", phase="faulted", window="before").max()
    assert evidence.promql("health_latency_p99", phase="faulted", window="during").max() > 5 * before

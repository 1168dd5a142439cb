"""Assertion suite of dataloader_worker_crash; the `evidence` fixture comes from faultlib.cases.fixture."""

from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
RAISE, KILL = (s["params"] for s in CASE["inject"]["local"])
RANKS = CASE["repro"]["world"]["ranks"]
STEPS_PER_EPOCH = 1347 // RANKS // PARAMS["batch_size"]  # digits_split: 1347 training samples
SAMPLES = STEPS_PER_EPOCH * PARAMS["batch_size"] * PARAMS["epochs"]


def worker_findings(phase):
    return [f for f in phase.findings if f.detector == "distributed.dataloader_worker"]


def test_control_is_silent(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    s = control.summary
    for r in range(RANKS):
        assert s[f"rank{r}_steps"] == STEPS_PER_EPOCH * PARAMS["epochs"] and s[f"rank{r}_samples"] == SAMPLES
        assert s[f"rank{r}_quarantined"] == 0
    assert control.spans_named("dataloader.worker_fault") == [] and control.spans_named("dataloader.unmitigated") == []
    assert control.metric("faultlib_dataloader_worker_faults_total") == 0


def test_pytorchs_own_messages_lose_the_index_and_the_rank(evidence):
    probes = {s.attributes["index"]: s.attributes for s in evidence.faulted.spans_named("dataloader.unmitigated")}
    assert set(probes) == {RAISE["index"], KILL["index"]}  # only rank 1's data is poisoned
    raised, killed = probes[RAISE["index"]], probes[KILL["index"]]
    assert raised["message"] == "Caught OSError in DataLoader worker process 0."
    # which of its two messages PyTorch raises depends on where the main thread is when the worker dies
    assert killed["message"].startswith("DataLoader worker (pid") and killed["message"].endswith(
        ("is killed by signal: Killed.", "exited unexpectedly")), killed["message"]
    for probe in probes.values():
        assert probe["names_index"] is False and "rank" not in probe["message"]
    assert "worker process" not in killed["message"]  # the kill does not even say which worker


def test_the_raise_is_named_with_rank_worker_index_sample_and_traceback(evidence):
    [f] = [f for f in worker_findings(evidence.faulted) if f.kind == "worker_raised"]
    e = f.evidence
    assert e["rank"] == RAISE["rank"] and f.location["index"] == e["index"] == RAISE["index"]
    assert e["worker_id"] in range(PARAMS["workers"]) and e["pid"] > 0 and e["epoch"] == 0
    assert RAISE["index"] in e["batch"] and e["batch_size"] == PARAMS["batch_size"]
    assert e["sample"]["digits_row"] == RAISE["index"] and e["sample"]["label"] in range(10)
    assert e["exception"].startswith("OSError: image file is truncated (sample 133")
    assert "Traceback (most recent call last)" in e["traceback"] and "__getitem__" in e["traceback"]
    assert e["torch_message"] == f"Caught OSError in DataLoader worker process {e['worker_id']}."
    assert f.message.startswith(f"rank 1 DataLoader worker {e['worker_id']} (pid {e['pid']}) raised OSError")


def test_the_kill_is_named_with_rank_worker_index_and_signal(evidence):
    [f] = [f for f in worker_findings(evidence.faulted) if f.kind == "worker_killed"]
    e = f.evidence
    assert e["rank"] == KILL["rank"] and f.location["index"] == e["index"] == KILL["index"]
    assert e["signal"] == "SIGKILL" and e["exception"] is None and e["traceback"] is None
    assert e["worker_id"] in range(PARAMS["workers"]) and KILL["index"] in e["batch"]
    assert e["sample"]["digits_row"] == KILL["index"]
    assert "OOM killer" in e["cause"]["cause"] and "external kill" in e["cause"]["cause"]
    assert str(e["pid"]) in e["torch_message"] or e["torch_message"].startswith("ConnectionResetError")
    spans = evidence.faulted.spans_named("dataloader.worker_fault")
    assert sorted(s.attributes["kind"] for s in spans) == ["worker_killed", "worker_raised"]
    assert len(worker_findings(evidence.faulted)) == len(evidence.faulted.findings) == 2  # nothing else, once each


def test_skip_and_quarantine_keeps_the_ranks_in_step_and_the_accuracy(evidence):
    control, faulted = evidence.control.summary, evidence.faulted.summary
    assert evidence.faulted.status == "ok"
    for r in range(RANKS):  # DDP needs the same number of steps on every rank
        assert faulted[f"rank{r}_steps"] == control[f"rank{r}_steps"]
    assert faulted["rank0_samples"] == SAMPLES and faulted["rank0_quarantined"] == 0
    lost = SAMPLES - faulted["rank1_samples"]
    assert 2 <= lost <= PARAMS["epochs"] * 2, lost  # each quarantined index, once per epoch that deals it to rank 1
    assert faulted["rank1_quarantined"] == 2
    for r in range(RANKS):
        assert abs(faulted[f"rank{r}_accuracy"] - control[f"rank{r}_accuracy"]) <= 0.01
    assert evidence.faulted.metric("faultlib_dataloader_worker_faults_total", rank=1) == 2
    assert evidence.faulted.metric("faultlib_dataloader_quarantined_samples", rank=1) == 2


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []
    control_obs = {**CASE["observability"], "spans": [s for s in CASE["observability"]["spans"]
                                                       if s not in ("dataloader.unmitigated", "dataloader.worker_fault",
                                                                    "faultlib.fault")]}
    assert evidence.control.missing_observability(control_obs) == []

"""Durations, percentages, sizes and counts of a Chaos Mesh spec are bounded before rendering (stop 35, users' low
item): a value Chaos Mesh's Go types cannot hold is exit 2 naming the field, never a dry run that looks fine."""

from __future__ import annotations

import pytest

from faultlib.chaos.bounds import check_spec, duration_ns
from faultlib.chaos.render import ChaosEntry, render_chaos
from faultlib.errors import CaseError

HUGE = "9" * 5000


@pytest.mark.parametrize("text, ns", [("30s", 30 * 10**9), ("1h30m", 5400 * 10**9), ("1.5ms", 1_500_000),
                                      ("-5m", -300 * 10**9), ("0", 0), ("250us", 250_000)])
def test_go_durations_are_read(text, ns):
    assert duration_ns(text) == ns


@pytest.mark.parametrize("text", ["30", "s", "1x", "", "1h 30m", "--5m"])
def test_what_is_not_a_go_duration(text):
    assert duration_ns(text) is None


@pytest.mark.parametrize("spec, field, phrase", [
    ({"action": "delay", "delay": {"latency": HUGE + "ms"}, "duration": "30s"}, "spec.delay.latency",
     "longer than Chaos Mesh takes"),
    ({"action": "delay", "delay": {"latency": "10ms"}, "duration": "2562048h"}, "spec.duration", "longer than"),
    ({"action": "delay", "delay": {"latency": "10ms"}, "duration": "soon"}, "spec.duration", "is not a duration"),
    ({"action": "delay", "delay": {"latency": "-10ms"}}, "spec.delay.latency", "is negative"),
    ({"action": "loss", "loss": {"loss": "250"}}, "spec.loss.loss", "is not a percentage"),
    ({"action": "bandwidth", "bandwidth": {"rate": HUGE + "mbps", "limit": 100, "buffer": 10}},
     "spec.bandwidth.rate", "is not a size"),
    ({"action": "bandwidth", "bandwidth": {"rate": "1mbps", "limit": 2**40, "buffer": 10}}, "spec.bandwidth.limit",
     "out of range"),
    ({"stressors": {"memory": {"workers": 10**30, "size": "256MB"}}}, "spec.stressors.memory.workers", "out of range"),
    ({"stressors": {"cpu": {"workers": 1, "load": 101}}}, "spec.stressors.cpu.load", "is not a percentage"),
])
def test_values_go_cannot_hold_are_refused_naming_the_field(spec, field, phrase):
    with pytest.raises(CaseError, match=phrase) as caught:
        check_spec(spec, where="spec")
    assert caught.value.field == field and caught.value.exit_code == 2
    assert len(str(caught.value)) < 400  # a 5,000-digit value is shown cut, with its length


def test_a_schedule_s_embedded_spec_is_checked_through_render():
    entry = ChaosEntry("Schedule", "nightly", {"schedule": "@every 1h", "type": "PodChaos", "historyLimit": 2,
                                                "podChaos": {"action": "pod-kill", "mode": "one",
                                                             "gracePeriod": -1}})
    with pytest.raises(CaseError, match="out of range") as caught:
        render_chaos([entry], case_id="c", run_id="20261205T000000Z-abcdef", namespace="ml")
    assert caught.value.field == "inject.kubernetes.chaos[0].spec.podChaos.gracePeriod"


def test_ordinary_specs_pass():
    for spec in ({"action": "delay", "mode": "all", "delay": {"latency": "200ms", "jitter": "20ms",
                                                              "correlation": "25"}, "duration": "30s"},
                 {"stressors": {"memory": {"workers": 4, "size": "25%"}, "cpu": {"workers": 2, "load": 80}},
                  "duration": "1m"},
                 {"action": "latency", "delay": "100ms", "percent": 50, "volumePath": "/data"},
                 {"timeOffset": "-10m", "clockIds": ["CLOCK_REALTIME"]},
                 {"action": "bandwidth", "bandwidth": {"rate": "1mbps", "limit": 20971520, "buffer": 10000}}):
        check_spec(spec, where="spec")

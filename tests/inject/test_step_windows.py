"""The fault window of a step, and the steps where it changes (which the control phase mirrors)."""

from __future__ import annotations

from faultlib.inject import InjectorSet, build


def test_boundaries_are_each_step_windows_first_step_and_the_step_after_it_ends():
    faults = InjectorSet([build("label_order", {"order": "reversed", "start_step": 10, "steps": 10}),
                          build("gradient_scale", {"parameter": "0.weight", "factor": 1e39, "start_step": 15,
                                                   "steps": 2})])
    assert faults.boundaries() == {10, 20, 15, 17}
    assert faults.window(12) == "none", "not applied: the control reads the boundaries, never the faults"


def test_faults_without_a_step_window_have_no_boundary():
    assert InjectorSet([build("checkpoint_wrappers", {})]).boundaries() == frozenset()
    assert InjectorSet([]).boundaries() == frozenset()

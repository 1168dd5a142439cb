"""OverflowCircuitBreaker driven by a real GradScaler."""

from __future__ import annotations

import pytest

from faultlib.detect import BreakerAction, OverflowCircuitBreaker, Severity
from faultlib.errors import DetectorError

torch = pytest.importorskip("torch")


def _scaler(scale=65536.0):
    scaler = torch.amp.GradScaler("cpu", init_scale=scale)
    scaler.scale(torch.ones(()))  # as in training: the scale tensor exists after the first scale()
    return scaler


def _drive(breaker, pattern, start=0, loss=1.0):
    return [breaker.record(start + i, overflow=bool(o), loss=float("nan") if o else loss) for i, o in enumerate(pattern)]


def test_isolated_overflow_is_left_to_gradscaler():
    breaker = OverflowCircuitBreaker(_scaler())
    decisions = _drive(breaker, [0, 1, 0, 0, 1, 0])
    assert [d.action for d in decisions] == [BreakerAction.NONE, BreakerAction.SKIPPED, BreakerAction.NONE,
                                             BreakerAction.NONE, BreakerAction.SKIPPED, BreakerAction.NONE]
    assert breaker.amp_enabled and breaker.resets == 0
    assert all(d.finding is None for d in decisions)


def test_two_consecutive_overflows_reset_the_scale_with_backoff():
    scaler = _scaler()
    breaker = OverflowCircuitBreaker(scaler, backoff_steps=10, window_limit=50)
    scaler.update(new_scale=8192.0)  # as if GradScaler had halved three times
    first = _drive(breaker, [1, 1])
    assert first[1].action is BreakerAction.RESET_SCALE
    assert scaler.get_scale() == 65536.0 and first[1].loss_scale == 65536.0
    finding = first[1].finding
    assert finding.severity is Severity.WARNING
    assert finding.message == ("2 consecutive overflow steps: update skipped; raised the loss scale from 8192 to "
                               "65536 (reset to the initial scale after 2 consecutive overflows, instead of "
                               "halving again)")
    assert (finding.evidence["scale_before"], finding.evidence["scale_after"]) == (8192.0, 65536.0)
    assert finding.evidence["scale_change"] == "raised"
    # within the back-off window: no second reset
    later = _drive(breaker, [1, 1], start=2)
    assert [d.action for d in later] == [BreakerAction.SKIPPED, BreakerAction.SKIPPED]
    # after it (healthy steps in between): resets again on the next 2 consecutive overflows
    _drive(breaker, [0] * 8, start=4)
    assert [d.action for d in _drive(breaker, [1, 1], start=12)] == [BreakerAction.SKIPPED,
                                                                      BreakerAction.RESET_SCALE]


def test_five_overflows_in_window_fall_back_to_fp32_then_resume_when_stable():
    breaker = OverflowCircuitBreaker(_scaler(), stable_steps=5)
    _drive(breaker, [0] * 10)                  # healthy AMP losses of 1.0 form the reference
    pattern = [1, 0, 1, 0, 1, 0, 1, 0, 1]     # 5 overflows in 9 steps, never 2 in a row
    decisions = _drive(breaker, pattern, start=10)
    assert decisions[-1].action is BreakerAction.FALLBACK_FP32 and not breaker.amp_enabled
    assert decisions[-1].finding.severity is Severity.ERROR
    # fp32: an unstable loss (above 2x the reference) does not count towards recovery
    assert breaker.record(19, overflow=False, loss=5.0).action is BreakerAction.NONE
    decisions = _drive(breaker, [0] * 5, start=20, loss=1.1)
    assert decisions[-1].action is BreakerAction.RESUME_AMP and breaker.amp_enabled
    assert breaker.resumes == 1 and breaker.fallbacks == 1


def test_overflows_outside_the_window_do_not_add_up():
    breaker = OverflowCircuitBreaker(_scaler(), window_steps=10, window_limit=3, consecutive_limit=2)
    for step in (0, 11, 22, 33):
        assert breaker.record(step, overflow=True, loss=float("nan")).action is BreakerAction.SKIPPED
    assert breaker.amp_enabled


def test_misuse_is_reported():
    breaker = OverflowCircuitBreaker(_scaler())
    breaker.record(3, overflow=False, loss=1.0)
    with pytest.raises(DetectorError, match="steps must increase"):
        breaker.record(3, overflow=False, loss=1.0)
    with pytest.raises(DetectorError, match="consecutive_limit"):
        OverflowCircuitBreaker(_scaler(), consecutive_limit=6, window_limit=5)


def test_scale_messages_name_the_direction_of_the_change():
    # GradScaler grew the scale past reset_scale: the reset lowers it, and says so
    scaler = _scaler(65536.0)
    scaler.update(new_scale=262144.0)
    decision = _drive(OverflowCircuitBreaker(scaler, window_limit=50), [1, 1])[1]
    assert "lowered the loss scale from 262144 to 65536" in decision.finding.message
    assert decision.finding.evidence["scale_change"] == "lowered"
    # a reset_scale other than the scaler's initial scale is named as such
    scaler = _scaler(65536.0)
    scaler.update(new_scale=1024.0)
    decision = _drive(OverflowCircuitBreaker(scaler, reset_scale=4096.0, window_limit=50), [1, 1])[1]
    assert "raised the loss scale from 1024 to 4096 (reset to reset_scale after 2" in decision.finding.message
    # the fp32 fallback also sets the scale back for the return to AMP: it says in which direction
    scaler = _scaler()
    breaker = OverflowCircuitBreaker(scaler, consecutive_limit=5, window_limit=5)
    scaler.update(new_scale=2048.0)
    decision = _drive(breaker, [1] * 5)[-1]
    assert decision.action is BreakerAction.FALLBACK_FP32
    assert decision.finding.message.endswith("; raised the loss scale from 2048 to 65536 for the return to AMP")
    assert decision.finding.evidence["scale_change"] == "raised"
    for word in ("reset from", "scale reset"):
        assert word not in decision.finding.message
    # without an enabled GradScaler there is no scale to change, and the message does not claim one
    decision = _drive(OverflowCircuitBreaker(None, window_limit=50), [1, 1])[1]
    assert decision.finding.message.endswith("update skipped; no enabled GradScaler, so no loss scale to reset")
    assert decision.finding.evidence["scale_change"] is None

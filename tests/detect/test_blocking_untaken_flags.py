"""check blocking: one reading of a branch's test for every operand it may hold -- a parameter, a constructor's
parameter judged by the constructions of its class, an instance flag that only keeps a constructor parameter -- under
``and``/``or`` and comparisons alike, and on one call path as everywhere (the wave-66 constructor and flag branches
read together with the wave-67 path values and short-circuit tests). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged

_DETECTOR = """
    class Detector:
        def __init__(self, weights, mode="torch", dnn=False):
            self.mode = mode
            self.dnn = dnn

        def __call__(self, frame, cached=None):
            if self.dnn and cached is None:
                with open("net.cfg") as fh:
                    return fh.read()
            if self.mode == "onnx":
                with open("model.onnx", "rb") as fh:
                    return fh.read()
            return frame
"""


def _built(tmp_path, construction: str) -> set[tuple[str, str]]:
    """The findings of :data:`_DETECTOR` used per message through ``construction``."""
    return flagged(tmp_path, _DETECTOR + f"""
    async def on_message(frame, cached):
        return {construction}(frame, cached)
    """)


@pytest.mark.parametrize(("construction", "expected"), [
    ('Detector("best.pt")', set()),
    ('Detector("best.pt", dnn=True)', {("blocking_file_io", 'with open("net.cfg") as fh:')}),
    ('Detector("best.pt", mode="onnx")', {("blocking_file_io", 'with open("model.onnx", "rb") as fh:')}),
], ids=["flags-left-off", "and-test-on-a-flag-turned-on", "comparison-on-a-flag-that-matches"])
def test_flags_kept_from_the_constructor_are_read_under_and_and_comparisons(tmp_path, construction, expected):
    assert _built(tmp_path, construction) == expected


_BUILDER = """
    import os

    class Backend:
        def __init__(self, weights, warm=False):
            if warm:
                with open(weights, "rb") as fh:
                    self.blob = fh.read()

    def build(weights, debug):
        if debug:
            return Backend(weights, warm=os.environ.get("WARM") == "1")
        return {taken}

    async def handle(weights):
        return build(weights, False)
"""


@pytest.mark.parametrize(("taken", "expected"), [
    ("Backend(weights)", set()),
    ("Backend(weights, warm=True)", {("blocking_file_io", 'with open(weights, "rb") as fh:')}),
], ids=["the-path-leaves-the-default", "the-path-passes-true"])
def test_a_constructor_parameter_is_read_with_what_the_construction_on_the_path_passes(tmp_path, taken, expected):
    assert flagged(tmp_path, _BUILDER.replace("{taken}", taken)) == expected

"""check blocking: kinds first seen on unseen services in wave 19 (issue 17) -- debug code switched off with a
literal test (``if False:``), audio files written and sound devices waited on, model libraries of voice
pipelines, client constructors that connect. Each blocker is found at its line; each healthy look-alike
(the branch that never runs, the offloaded call) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_branch_a_literal_test_never_takes_is_not_walked(tmp_path):
    found = flagged(tmp_path, """
        import time

        DEBUG = False

        async def on_audio(chunk, buffer):
            if False:
                time.sleep(2)
            if 0:
                open("dump.raw", "wb").write(chunk)
            if True:
                buffer.append(chunk)
            else:
                time.sleep(1)
            if DEBUG:
                time.sleep(3)
            return len(buffer)
    """)
    assert found == {("blocking_sleep", "time.sleep(3)")}


def test_the_branch_a_literal_test_takes_is_still_walked(tmp_path):
    found = flagged(tmp_path, """
        import time

        async def tick():
            if True:
                time.sleep(0.5)
            if None:
                pass
            else:
                time.sleep(0.25)
    """)
    assert found == {("blocking_sleep", "time.sleep(0.5)"), ("blocking_sleep", "time.sleep(0.25)")}

"""check blocking: the kinds held-out wave 35 (issue 17, stop 39) missed or raised wrongly, fixed by kind: a decorator
whose plain wrapper returns the executor future, a sync client returned by an awaited coroutine of the project.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- a decorator whose plain (sync) wrapper returns run_in_executor's future: the function runs in a thread ----------
def test_a_sync_wrapper_returning_the_executor_future_takes_the_function_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time
        from functools import partial

        def in_thread(fn):
            def runner(*args, **kwargs):
                loop = asyncio.get_event_loop()
                job = partial(fn, *args, **kwargs)
                return loop.run_in_executor(executor=None, func=job)
            return runner

        def traced(fn):
            def runner(*args, **kwargs):
                print("calling", fn)
                return fn(*args, **kwargs)
            return runner

        class Warmer:
            @in_thread
            def fetch_weights(self, path):
                time.sleep(3)

            @traced
            def settle(self):
                time.sleep(1)

            async def start(self):
                await self.fetch_weights("/models/a")
                self.settle()
    """)
    assert found == {("blocking_sleep", "time.sleep(1)")}


def test_a_sync_wrapper_returning_to_thread_takes_the_function_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time

        def threaded(fn):
            def runner(*args):
                return asyncio.to_thread(fn, *args)
            return runner

        def called_here(fn):
            def runner(*args):
                fn(*args)
                return asyncio.sleep(0)
            return runner

        @threaded
        def rebuild(index_dir):
            time.sleep(2)

        @called_here
        def flush(index_dir):
            time.sleep(4)

        async def refresh(index_dir):
            await rebuild(index_dir)
            await flush(index_dir)
    """)
    assert found == {("blocking_sleep", "time.sleep(4)")}

"""check blocking: the known kinds stop 56 left (issue 17, stop 57). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- `with lock:` on the loop while another holder of the lock blocks under it ------------------------------------

_POOL = """
    import multiprocessing
    import threading
    import time


    class Renderer:
        def __init__(self):
            self.proc = None

        def start(self):
            self.proc = multiprocessing.Process(target=print)

        def halt(self):
            self.proc.join(timeout=10)


    class Pool:
        _guard = {lock}

        def __init__(self):
            self.renderer = Renderer()
            self.used = 0.0

        {holder}

        def render(self, page):
            with self._guard:
                self.used += 1
            return page


    pool = Pool()


    async def handle(page):
        return pool.render(page)
"""

_JOINS = """def on_idle(self):
            with self._guard:
                self.renderer.halt()"""


def _pool(holder: str = _JOINS, lock: str = "threading.Lock()") -> str:
    return _POOL.replace("{lock}", lock).replace("{holder}", holder)


def test_entering_the_lock_is_a_blocker_when_another_holder_joins_a_process_under_it(tmp_path):
    assert flagged(tmp_path, _pool()) == {("blocking_task", "with self._guard:")}


def test_a_holder_that_sleeps_between_acquire_and_release_makes_the_with_a_blocker(tmp_path):
    holder = """def on_idle(self):
            self._guard.acquire()
            time.sleep(3)
            self._guard.release()"""
    assert flagged(tmp_path, _pool(holder)) == {("blocking_task", "with self._guard:")}


def test_a_module_lock_held_by_a_function_that_joins_is_a_blocker(tmp_path):
    source = """
    import threading

    _state = threading.RLock()
    _worker = threading.Thread(target=print)


    def shutdown():
        with _state:
            _worker.join()


    async def status():
        with _state:
            return _worker.is_alive()
    """
    assert flagged(tmp_path, source) == {("blocking_task", "with _state:")}


def test_a_lock_whose_holders_only_set_fields_is_silent(tmp_path):
    holder = """def on_idle(self):
            with self._guard:
                self.used = 0.0"""
    assert flagged(tmp_path, _pool(holder)) == set()


def test_a_holder_that_joins_after_releasing_the_lock_is_silent(tmp_path):
    holder = """def on_idle(self):
            with self._guard:
                self.used = 0.0
            self.renderer.halt()"""
    assert flagged(tmp_path, _pool(holder)) == set()


def test_an_asyncio_lock_is_not_a_threading_lock(tmp_path):
    source = _pool(lock="asyncio.Lock()").replace("import threading", "import asyncio")
    assert flagged(tmp_path, source) == set()

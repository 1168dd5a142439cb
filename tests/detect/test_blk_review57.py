"""Review of the session-57 blocking changes: the spans a threaded holder keeps a lock across (held_locks) -- an
``acquire()`` released in a ``try``/``finally``, and a local of the same name as the module's lock."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- acquire(); try: ... finally: release(): what follows the try runs with the lock released ---------------------

_FEEDER = """
    import threading
    import time


    class Feeder:
        def __init__(self):
            self._guard = threading.Lock()
            self.count = 0
            threading.Thread(target=self.pump, daemon=True).start()

        def pump(self):
            while True:
                self._guard.acquire()
                try:
                    {held}
                finally:
                    self._guard.release()
                time.sleep(5)

        def bump(self):
            with self._guard:
                self.count += 1
            return self.count


    feeder = Feeder()


    async def hit():
        return feeder.bump()
"""


def test_a_sleep_after_the_try_that_releases_the_lock_is_not_held(tmp_path):
    assert flagged(tmp_path, _FEEDER.replace("{held}", "self.count = 0")) == set()


def test_a_sleep_inside_the_try_that_releases_the_lock_is_held(tmp_path):
    source = _FEEDER.replace("{held}", "time.sleep(2)")
    assert flagged(tmp_path, source) == {("blocking_task", "with self._guard:")}


# -- a holder whose `lock` is its own parameter holds another lock than the module's ------------------------------

_COUNTER = """
    import threading
    import time

    lock = threading.Lock()
    seen = {{}}


    def drain({param}):
        while True:
            with lock:
                time.sleep(1)


    threading.Thread(target=drain, args=({given}), daemon=True).start()


    async def hit(key):
        with lock:
            seen[key] = seen.get(key, 0) + 1
        return seen[key]
"""


def test_a_parameter_named_like_the_module_lock_is_another_lock(tmp_path):
    source = _COUNTER.format(param="lock", given="threading.Lock(),")
    assert flagged(tmp_path, source) == set()


def test_the_module_lock_held_by_a_thread_across_a_sleep_is_a_blocker(tmp_path):
    source = _COUNTER.format(param="", given="")
    assert flagged(tmp_path, source) == {("blocking_task", "with lock:")}


# -- a holder handed to `submit` runs on a thread only when the receiver is an executor ---------------------------

_OUTBOX = """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import requests


    class Outbox:
        def __init__(self):
            self.pending = []

        def submit(self, job):
            self.pending.append(job)

        async def drain(self):
            while self.pending:
                self.pending.pop()()


    outbox = {made}


    class Reporter:
        def __init__(self):
            self._guard = threading.Lock()
            self.sent = 0

        def flush(self):
            with self._guard:
                requests.post("http://metrics.example/flush", json={{"n": self.sent}}, timeout=5)

        def schedule(self):
            outbox.submit(self.flush)

        def count(self):
            with self._guard:
                self.sent += 1


    reporter = Reporter()


    async def hit():
        reporter.count()
        reporter.schedule()
"""


def test_a_holder_kept_by_the_project_s_own_submit_is_not_on_a_thread(tmp_path):
    assert flagged(tmp_path, _OUTBOX.format(made="Outbox()")) == set()


def test_a_holder_submitted_to_a_thread_pool_holds_the_lock_on_its_thread(tmp_path):
    found = flagged(tmp_path, _OUTBOX.format(made="ThreadPoolExecutor(max_workers=2)"))
    assert found == {("blocking_task", "with self._guard:")}


# -- a callback written after *args binds a parameter no one can name (passed.called_here) ------------------------

_FAN = """
    import requests


    def fetch(url):
        return requests.get(url, timeout=3).text


    def each(items, on_item, label="items"):
        for item in items:
            on_item(item)


    async def handle(job):
        {call}
"""


def test_a_callback_after_unpacked_arguments_is_not_bound_by_position(tmp_path):
    assert flagged(tmp_path, _FAN.format(call="each(*job, fetch)")) == set()


def test_a_callback_given_by_position_runs_in_the_helper(tmp_path):
    found = flagged(tmp_path, _FAN.format(call="each(job, fetch)"))
    assert found == {("blocking_http", "return requests.get(url, timeout=3).text")}


def test_a_release_on_an_early_exit_branch_does_not_end_the_hold(tmp_path):
    source = _FEEDER.replace("""                try:
                    {held}
                finally:
                    self._guard.release()
                time.sleep(5)""", """                if self.count < 0:
                    self._guard.release()
                    return
                time.sleep(2)
                self._guard.release()""")
    assert flagged(tmp_path, source) == {("blocking_task", "with self._guard:")}

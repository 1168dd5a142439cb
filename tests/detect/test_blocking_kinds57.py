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
            self.idle = threading.Timer(30.0, {handed})

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


def _pool(holder: str = _JOINS, lock: str = "threading.Lock()", handed: str = "self.on_idle") -> str:
    return _POOL.replace("{lock}", lock).replace("{holder}", holder).replace("{handed}", handed)


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


    _reaper = threading.Timer(600.0, shutdown)


    async def status():
        with _state:
            return _worker.is_alive()
    """
    assert flagged(tmp_path, source) == {("blocking_task", "with _state:")}


def test_a_holder_that_no_thread_runs_cannot_hold_the_lock_while_the_loop_waits(tmp_path):
    holder = _JOINS + """

        def tick(self):
            self.used = 0.0"""
    assert flagged(tmp_path, _pool(holder, handed="self.tick")) == set()


def test_a_lock_held_by_a_thread_in_an_installed_library_is_the_library_s_own_discipline(tmp_path):
    source = """
    from rich.progress import Progress


    async def report(items):
        with Progress() as progress:
            task = progress.add_task("items", total=len(items))
            for item in items:
                progress.update(task, advance=1)
    """
    assert not {kind for kind, _ in flagged(tmp_path, source)} & {"blocking_task"}


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


# -- a flag of an object a FastAPI dependency builds, kept from a parameter FastAPI fills -------------------------

_NOTIFIER = """
    import requests
    from fastapi import BackgroundTasks, Depends, FastAPI


    class Notifier:
        def __init__(self, bg=None):
            self.bg = bg

        @classmethod
        def provide(cls, {param}):
            return cls({passed})

        def send(self, url):
            if self.bg:
                self.bg.add_task(self.post, url)
            else:
                self.post(url)

        def post(self, url):
            requests.post(url, timeout=5)


    def nightly():
        Notifier().send("http://hooks/nightly")


    app = FastAPI()


    {route}
"""

_PARAMETER_ROUTE = """@app.post("/items")
    async def create(notifier: Notifier = Depends(Notifier.provide)):
        notifier.send("http://hooks/created")"""

_VIEW_ROUTE = """class ItemView:
        notifier: Notifier = Depends(Notifier.provide)

        def announce(self):
            self.notifier.send("http://hooks/created")

        async def create(self):
            self.announce()"""


def _notifier(route: str = _PARAMETER_ROUTE, param: str = "bg: BackgroundTasks", passed: str = "bg") -> str:
    return _NOTIFIER.replace("{route}", route).replace("{param}", param).replace("{passed}", passed)


def test_a_dependency_built_with_the_injected_background_tasks_never_runs_its_else_branch(tmp_path):
    assert flagged(tmp_path, _notifier()) == set()


def test_a_class_attribute_declared_with_the_dependency_holds_what_the_provider_builds(tmp_path):
    assert flagged(tmp_path, _notifier(_VIEW_ROUTE)) == set()


def test_an_optional_background_tasks_parameter_may_be_none(tmp_path):
    found = flagged(tmp_path, _notifier(param="bg: BackgroundTasks | None = None"))
    assert found == {("blocking_http", "requests.post(url, timeout=5)")}


def test_a_provider_that_builds_without_the_background_tasks_keeps_the_else_branch(tmp_path):
    found = flagged(tmp_path, _notifier(passed=""))
    assert found == {("blocking_http", "requests.post(url, timeout=5)")}


def test_a_route_that_builds_the_object_itself_keeps_the_else_branch(tmp_path):
    route = """@app.post("/items")
    async def create():
        Notifier().send("http://hooks/created")"""
    assert flagged(tmp_path, _notifier(route)) == {("blocking_http", "requests.post(url, timeout=5)")}


# -- a loop over the list a function of the files returns; a local bound to the loop variable ----------------------

_STAGES = """
    import subprocess


    class Transcode:
        def apply(self, clip):
            subprocess.run(["ffmpeg", "-i", clip, "out.mp4"], check=True)


    class Label:
        def apply(self, clip):
            return clip.upper()


    {maker}


    async def process(clip):
        {loop}
"""


def _stages(maker: str, loop: str = "for stage in pipeline():\n            stage.apply(clip)") -> str:
    return _STAGES.replace("{maker}", maker).replace("{loop}", loop)


def test_each_element_of_a_returned_list_literal_runs_its_own_method(tmp_path):
    source = _stages("def pipeline():\n        return [Label(), Transcode()]")
    assert flagged(tmp_path, source) == {
        ("blocking_subprocess", 'subprocess.run(["ffmpeg", "-i", clip, "out.mp4"], check=True)')}


def test_a_returned_local_list_gives_its_elements_type(tmp_path):
    source = _stages("def pipeline():\n        steps = [Transcode()]\n        return steps")
    assert flagged(tmp_path, source) == {
        ("blocking_subprocess", 'subprocess.run(["ffmpeg", "-i", clip, "out.mp4"], check=True)')}


def test_a_local_bound_to_the_loop_variable_keeps_its_type(tmp_path):
    loop = "for stage in [Transcode()]:\n            current = stage\n            current.apply(clip)"
    source = _stages("def pipeline():\n        return []", loop)
    assert flagged(tmp_path, source) == {
        ("blocking_subprocess", 'subprocess.run(["ffmpeg", "-i", clip, "out.mp4"], check=True)')}


def test_a_local_bound_to_a_loop_variable_over_a_returned_list_of_classes_runs_each(tmp_path):
    loop = "for stage in pipeline():\n            current = stage\n            current.apply(clip)"
    source = _stages("def pipeline():\n        return [Label(), Transcode()]", loop)
    assert flagged(tmp_path, source) == {
        ("blocking_subprocess", 'subprocess.run(["ffmpeg", "-i", clip, "out.mp4"], check=True)')}


def test_a_returned_list_of_harmless_elements_is_silent(tmp_path):
    assert flagged(tmp_path, _stages("def pipeline():\n        return [Label(), Label()]")) == set()


def test_a_list_returned_on_one_branch_only_gives_no_type(tmp_path):
    maker = ("def pipeline(kind=None):\n        if kind:\n            return [Transcode()]\n"
             "        return REGISTRY.get(kind)\n\n\n    REGISTRY = {}")
    loop = "for stage in pipeline():\n            stage.apply(clip)"
    assert flagged(tmp_path, _stages(maker, loop)) == set()


def test_a_generator_s_items_are_not_a_returned_list(tmp_path):
    maker = "def pipeline():\n        yield Label()\n        return [Transcode()]"
    assert flagged(tmp_path, _stages(maker)) == set()


def test_a_subclass_that_declares_the_dependency_again_keeps_the_else_branch(tmp_path):
    route = _VIEW_ROUTE + """


    class QuietView(ItemView):
        notifier: Notifier = Depends(Notifier)"""
    assert flagged(tmp_path, _notifier(route)) == {("blocking_http", "requests.post(url, timeout=5)")}


_TICKER = """
    class Ticker:
        def __init__(self):
            self.job = None

        def every(self, seconds, job):
            self.job = job
            threading.Timer(seconds, self.fire).start()

        def fire(self):
            self.job()
"""


def test_a_holder_handed_to_the_project_s_own_timer_runs_on_its_thread(tmp_path):
    source = _pool().replace("self.idle = threading.Timer(30.0, self.on_idle)",
                             "Ticker().every(30.0, self.on_idle)") + _TICKER
    assert flagged(tmp_path, source) == {("blocking_task", "with self._guard:")}


def test_a_holder_only_listed_as_a_value_is_not_seen_on_a_thread(tmp_path):
    source = _pool().replace("self.idle = threading.Timer(30.0, self.on_idle)", "self.hooks = [self.on_idle]")
    assert flagged(tmp_path, source) == set()

"""check blocking: kinds left from held-out waves 66 and 67 (issue 17), fixed by kind at stop 54.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged_package

# -- coroutines the program's own scheduler steps by hand: no event loop runs them -----------------------------------
_SCHEDULER = """
    import heapq


    class JobQueue:
        def __init__(self):
            self._jobs = []

        def add_job(self, func, *args):
            steps = func(*args).__await__()
            heapq.heappush(self._jobs, (len(self._jobs), steps))

        def flush(self):
            while self._jobs:
                _, steps = heapq.heappop(self._jobs)
                try:
                    next(steps)
                except StopIteration:
                    continue


    class Builder:
        def __init__(self):
            self.queue = JobQueue()

        def add_job(self, func, *args):
            self.queue.add_job(func, *args)


    BUILDER = Builder()
"""

_EMITTERS = """
    import shutil

    from gen.scheduler import BUILDER


    def copy_header(src, dst):
        shutil.copyfile(src, dst)


    async def emit_headers(paths):
        for path in paths:
            copy_header(path, "out/" + path)


    def to_code(config):
        BUILDER.add_job(emit_headers, config["headers"])
"""


def test_coroutine_stepped_by_the_programs_own_scheduler_is_no_entry(tmp_path):
    found = flagged_package(tmp_path, {"gen/__init__.py": "", "gen/scheduler.py": _SCHEDULER,
                                       "gen/emitters.py": _EMITTERS})
    assert not found


def test_coroutine_also_awaited_by_a_served_handler_still_blocks(tmp_path):
    served = _EMITTERS + """

    async def rebuild(request):
        await emit_headers(request["paths"])
"""
    found = flagged_package(tmp_path, {"gen/__init__.py": "", "gen/scheduler.py": _SCHEDULER,
                                       "gen/emitters.py": served})
    assert ("gen/emitters.py", "blocking_file_io", "shutil.copyfile(src, dst)") in found


def test_coroutine_handed_to_a_queue_that_schedules_it_on_asyncio_still_blocks(tmp_path):
    on_loop = _SCHEDULER.replace("steps = func(*args).__await__()", "steps = asyncio.ensure_future(func(*args))")
    on_loop = on_loop.replace("import heapq", "import asyncio\n    import heapq")
    found = flagged_package(tmp_path, {"gen/__init__.py": "", "gen/scheduler.py": on_loop,
                                       "gen/emitters.py": _EMITTERS})
    assert ("gen/emitters.py", "blocking_file_io", "shutil.copyfile(src, dst)") in found


# -- a context variable annotated ContextVar[T]: get() returns a T -----------------------------------------------------
_CONFIG = """
    from contextvars import ContextVar
    from pathlib import Path


    class Settings:
        plugin_dir: Path = Path("plugins")
        plugin_names: list = []


    CURRENT: ContextVar[Settings] = ContextVar("current")
"""

_PLUGINS = """
    from app import config
    from app.config import CURRENT


    def plugin_files():
        return sorted(p.name for p in CURRENT.get().plugin_dir.iterdir())


    def plugin_names():
        return sorted(CURRENT.get().plugin_names)


    def plugin_files_again():
        return [p.stem for p in config.CURRENT.get().plugin_dir.glob("*.py")]


    async def list_plugins(request):
        return plugin_files() + plugin_names() + plugin_files_again()
"""


def test_context_variable_get_returns_its_annotated_type(tmp_path):
    found = flagged_package(tmp_path, {"app/__init__.py": "", "app/config.py": _CONFIG, "app/plugins.py": _PLUGINS})
    assert ("app/plugins.py", "blocking_file_io",
            "return sorted(p.name for p in CURRENT.get().plugin_dir.iterdir())") in found
    assert ("app/plugins.py", "blocking_file_io",
            'return [p.stem for p in config.CURRENT.get().plugin_dir.glob("*.py")]') in found
    assert not any("plugin_names" in line for _, _, line in found)


def test_context_variable_of_a_list_is_no_path(tmp_path):
    config = _CONFIG.replace("CURRENT: ContextVar[Settings]", "CURRENT: ContextVar[list]")
    found = flagged_package(tmp_path, {"app/__init__.py": "", "app/config.py": config, "app/plugins.py": _PLUGINS})
    assert not found


# -- a palette provider's commands kept as tuples and unpacked into its hits -------------------------------------------
_PALETTE = """
    import subprocess
    from functools import partial

    from textual.app import App
    from textual.command import Hit, Hits, Provider


    class NotesApp(App):
        def command_print_note(self) -> None:
            subprocess.run(["lp", "note.txt"], check=True)

        def command_rename(self, title: str) -> None:
            self.title = title


    class NotesCommands(Provider):
        @property
        def entries(self):
            app: NotesApp = self.app
            listed = [("print: note", app.command_print_note, "Send the note to the printer")]
            listed.append(("rename: draft", partial(app.command_rename, "draft"), "Rename the note"))
            return tuple(listed)

        async def search(self, query: str) -> Hits:
            matcher = self.matcher(query)
            for title, runnable, help_text in self.entries:
                if (score := matcher.match(title)) > 0:
                    yield Hit(score, matcher.highlight(title), runnable, help=help_text)
"""


def test_palette_command_unpacked_from_tuples_runs_on_the_loop(tmp_path):
    found = flagged_package(tmp_path, {"notes/__init__.py": "", "notes/app.py": _PALETTE})
    assert ("notes/app.py", "blocking_subprocess", 'subprocess.run(["lp", "note.txt"], check=True)') in found


def test_tuples_iterated_outside_a_palette_hit_run_nothing(tmp_path):
    listed = _PALETTE.replace("yield Hit(score, matcher.highlight(title), runnable, help=help_text)",
                              "yield title")
    found = flagged_package(tmp_path, {"notes/__init__.py": "", "notes/app.py": listed})
    assert not found


# -- walking the whole stack (inspect.stack) on every call ---------------------------------------------------------------
_TIMED = """
    import inspect
    import sys
    import time
    from contextlib import asynccontextmanager


    @asynccontextmanager
    async def timed(label):
        start = time.perf_counter()
        yield
        caller = inspect.stack()[2].function
        print(caller, label, time.perf_counter() - start)


    @asynccontextmanager
    async def timed_cheaply(label):
        start = time.perf_counter()
        yield
        caller = sys._getframe(2).f_code.co_name
        print(caller, label, time.perf_counter() - start)


    async def handle(event):
        async with timed("handle"):
            return event
"""


def test_whole_stack_walk_in_a_timing_helper_is_cpu_on_the_loop(tmp_path):
    found = flagged_package(tmp_path, {"bot/__init__.py": "", "bot/timing.py": _TIMED})
    assert ("bot/timing.py", "blocking_cpu", "caller = inspect.stack()[2].function") in found
    assert not any("_getframe" in line for _, _, line in found)


# -- browserforge's generators read their data files when constructed ----------------------------------------------------
_HEADERS = """
    from browserforge.headers import Browser, HeaderGenerator


    def stealth_headers():
        return HeaderGenerator(browser=[Browser(name="chrome")], os="linux").generate()


    def plain_headers():
        return {"User-Agent": Browser(name="chrome").name}


    async def fetch(session, url):
        return await session.get(url, headers={**stealth_headers(), **plain_headers()})
"""


def test_header_generator_built_per_request_reads_its_data_files(tmp_path):
    found = flagged_package(tmp_path, {"crawl/__init__.py": "", "crawl/headers.py": _HEADERS})
    assert ("crawl/headers.py", "blocking_file_io",
            'return HeaderGenerator(browser=[Browser(name="chrome")], os="linux").generate()') in found
    assert not any("plain" in line or "User-Agent" in line for _, _, line in found)


# -- a decorator factory whose decorator registers an async wrapper: the decorator runs once, at definition -------------
_COMMANDS = """
    from pathlib import Path

    HANDLERS = []


    def command(pattern):
        def register(fn):
            async def wrapper(event):
                return await fn(event)
            HANDLERS.append((pattern, wrapper))
            Path("commands.txt").write_text(pattern)
            return wrapper
        return register


    def audited(label):
        def decorate(fn):
            def wrapper(*args):
                with open("audit.log", "a") as log:
                    log.write(label)
                return fn(*args)
            return wrapper
        return decorate


    @command("ping")
    async def ping(event):
        return "pong"


    @audited("total")
    def total(values):
        return sum(values)


    async def on_message(event):
        await ping(event)
        return total([1, 2])
"""


def test_a_decorator_handing_back_an_async_wrapper_runs_at_definition_only(tmp_path):
    found = flagged_package(tmp_path, {"bot/__init__.py": "", "bot/commands.py": _COMMANDS})
    assert not any("commands.txt" in line for _, _, line in found)
    assert ("bot/commands.py", "blocking_file_io", 'with open("audit.log", "a") as log:') in found


def test_commands_rebound_from_themselves_are_followed_once(tmp_path):
    rebound = _PALETTE.replace("            for title, runnable, help_text in self.entries:",
                               "            commands = self.entries\n            commands = list(commands)\n"
                               "            for title, runnable, help_text in commands:")
    found = flagged_package(tmp_path, {"notes/__init__.py": "", "notes/app.py": rebound})
    assert ("notes/app.py", "blocking_subprocess", 'subprocess.run(["lp", "note.txt"], check=True)') in found

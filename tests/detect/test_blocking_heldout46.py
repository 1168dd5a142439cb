"""check blocking: the kinds held-out wave 46 (issue 17; an osu! game server, an async OSINT crawler, a Sanic
malware-analysis daemon, Textual's web gateway, a text-to-SQL agent framework, a Kafka consumer, a clean-architecture
password vault) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from faultlib.detect.serving.blocking import analyze_path
from faultlib.errors import InputError
from tests.detect.blocking_source import flagged, flagged_package

# -- newer Python syntax: a file this interpreter's parser refuses was left out whole, and every call in it -------------

_SLEEP = ("blocking_sleep", "time.sleep(seconds)")


def test_a_file_with_python_3_14_except_without_parentheses_is_analysed(tmp_path):
    found = flagged(tmp_path, """
        import time

        def pause(seconds):
            try:
                time.sleep(seconds)
            except ValueError, TypeError:
                return None

        async def crawl():
            pause(2)
    """)
    assert found == {_SLEEP}


def test_the_except_rewrite_leaves_a_parenthesized_tuple_and_an_offloaded_call_alone(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time

        def pause(seconds):
            try:
                time.sleep(seconds)
            except (ValueError, TypeError):
                return None
            except KeyError, IndexError:
                return None

        async def crawl():
            await asyncio.to_thread(pause, 2)
    """)
    assert found == set()


def test_type_parameters_spread_over_several_lines_keep_the_def_whole(tmp_path):
    found = flagged(tmp_path, """
        import time

        def pause[
            T: (int, float)
        ](seconds: T) -> None:
            time.sleep(seconds)

        async def crawl():
            pause(2)
    """)
    assert found == {_SLEEP}


def test_a_file_with_a_python_3_12_f_string_is_analysed_around_it(tmp_path):
    found = flagged(tmp_path, """
        import time

        def pause(seconds, parts):
            note = f"{'\\n'.join(parts)} waited"
            time.sleep(seconds)
            return note

        async def crawl():
            pause(2, ["a", "b"])
    """)
    assert found == {_SLEEP}


@pytest.mark.parametrize("source", [
    "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n\ndef f(:\n    pass\n",
    "note = f\"{'\\n'.join(parts)}\"\n\n\n\n\ndef f(:\n    pass\n",
])
def test_a_real_syntax_error_after_the_newer_syntax_is_still_refused_at_its_line(tmp_path, source):
    (tmp_path / "broken.py").write_text(source)
    with pytest.raises(InputError, match=r"line 6\b"):
        analyze_path(tmp_path / "broken.py")


# -- pathlib: each item of a path's `.parents` is a path -----------------------------------------------------------------

def test_a_file_under_a_paths_parents_item_is_opened_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        DATA_DIR = Path(__file__).parents[1] / "data"
        NAMES = DATA_DIR / "wordlists" / "names.txt"

        async def brute(domain):
            with NAMES.open("r") as names:
                return [f"{n.strip()}.{domain}" for n in names]
    """)
    assert found == {("blocking_file_io", 'with NAMES.open("r") as names:')}


def test_a_parents_item_only_named_or_an_unknown_parents_sequence_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        DATA_DIR = Path(__file__).parents[1] / "data"

        class Family:
            def __init__(self):
                self.parents = [self]

            def open(self, mode):
                return mode

        async def where():
            return str(DATA_DIR / "names.txt"), DATA_DIR.parents[0].name

        async def family():
            return Family().parents[0].open("r")
    """)
    assert found == set()


# -- an agent framework's tool factory: an async closure that calls the sync method it wraps -----------------------------

_TOOLS = """
    import asyncio
    import inspect
    from pathlib import Path

    class Files:
        def read_file(self, path: str) -> str:
            return Path(path).read_text()

    def as_tool(method):
        def make_invoker(method_to_call):
            async def invoke(ctx, args):
                if inspect.iscoroutinefunction(method_to_call):
                    return await method_to_call(**args)
                return {call}
            return invoke
        return make_invoker(method)

    class Agent:
        def __init__(self):
            self.files = Files()
            self.tools = [as_tool(self.files.read_file)]
"""


def test_a_sync_method_wrapped_into_an_async_tool_closure_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _TOOLS.format(call="method_to_call(**args)"))
    assert found == {("blocking_file_io", "return Path(path).read_text()")}


def test_a_tool_closure_that_hands_the_method_to_a_thread_keeps_it_off_the_loop(tmp_path):
    found = flagged(tmp_path, _TOOLS.format(call="await asyncio.to_thread(method_to_call, **args)"))
    assert found == set()


def test_a_factory_that_only_stores_the_method_makes_no_entry(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        class Files:
            def read_file(self, path: str) -> str:
                return Path(path).read_text()

        def register(method):
            async def describe():
                return method.__name__
            return describe

        TOOLS = [register(Files().read_file)]
    """)
    assert found == set()


# -- OpenTelemetry providers flushed in an async lifespan, unpacked from a module global --------------------------------

_TELEMETRY = {
    "app/monitoring.py": """
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.trace import TracerProvider

        def _configure():
            traces = TracerProvider()
            metrics = MeterProvider()
            return traces, metrics

        def setup_monitoring():
            providers = _configure()
            return providers
    """,
    "app/main.py": """
        from contextlib import asynccontextmanager

        from app.monitoring import setup_monitoring

        PROVIDERS = None

        @asynccontextmanager
        async def lifespan(app):
            yield
            if PROVIDERS is not None:
                traces, metrics = PROVIDERS
                {shutdown}

        PROVIDERS = setup_monitoring()
    """,
}


def test_telemetry_providers_flushed_in_an_async_lifespan_wait_for_their_exporters(tmp_path):
    files = dict(_TELEMETRY, **{"app/main.py": _TELEMETRY["app/main.py"].format(
        shutdown="traces.force_flush()\n                metrics.shutdown()")})
    found = flagged_package(tmp_path, files)
    assert found == {("app/main.py", "blocking_http", "traces.force_flush()"),
                     ("app/main.py", "blocking_http", "metrics.shutdown()")}


def test_telemetry_providers_flushed_in_a_thread_or_only_asked_for_a_tracer_stay_silent(tmp_path):
    files = dict(_TELEMETRY, **{"app/main.py": _TELEMETRY["app/main.py"].format(
        shutdown="traces.get_tracer(__name__)\n                await asyncio.to_thread(metrics.shutdown)").replace(
        "from contextlib", "import asyncio\n        from contextlib")})
    assert flagged_package(tmp_path, files) == set()


def test_each_method_of_a_literal_list_handed_to_the_tool_factory_in_a_loop_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path
        from typing import Callable, List

        class Files:
            def read_file(self, path: str) -> str:
                return Path(path).read_text()

            def write_file(self, path: str, text: str) -> None:
                Path(path).write_text(text)

            def tools(self):
                methods: List[Callable] = [self.read_file, self.write_file]
                tools = []
                for method in methods:
                    tools.append(as_tool(method))
                for method in self.other():
                    tools.append(as_tool(method))
                return tools

            def other(self):
                return []

        def as_tool(method):
            async def invoke(ctx, args):
                return method(**args)
            return invoke
    """)
    assert found == {("blocking_file_io", "return Path(path).read_text()"),
                     ("blocking_file_io", "Path(path).write_text(text)")}


# -- a package function matching a path's text against a pattern opens nothing -------------------------------------------

def test_a_third_party_path_matcher_is_no_file_read_where_a_reader_of_the_same_path_is(tmp_path):
    found = flagged(tmp_path, """
        from wcmatch import glob
        import tablereader

        async def excluded(relative_path, pattern):
            return glob.globmatch(relative_path, pattern, flags=glob.GLOBSTAR)

        async def load(relative_path):
            return tablereader.read_table(relative_path)
    """)
    assert found == {("blocking_file_io", "return tablereader.read_table(relative_path)")}


# -- an osu! performance calculator's beatmap: read from its file, or parsed from memory --------------------------------

def test_a_beatmap_built_from_its_path_reads_the_file_and_one_built_from_its_content_does_not(tmp_path):
    found = flagged(tmp_path, """
        from rosu_pp_py import Beatmap

        async def submit(path, osu_bytes):
            from_disk = Beatmap(path=path)
            in_memory = Beatmap(bytes=osu_bytes)
            return from_disk, in_memory
    """)
    assert found == {("blocking_file_io", "from_disk = Beatmap(path=path)")}


# -- a directory listing consumed whole (sorted, list, a comprehension) types its entries as a plain loop does ---------

def test_entries_of_a_listing_consumed_by_sorted_list_or_a_comprehension_are_read_as_a_loop_reads_them(tmp_path):
    found = flagged(tmp_path, """
        import glob
        import os
        from pathlib import Path

        async def notes(folder: Path):
            for entry in folder.iterdir():
                entry.read_text()
            for entry in sorted(folder.iterdir()):
                entry.read_bytes()
            kept = list(folder.glob("*.md"))
            return [page.read_text(encoding="utf-8") for page in kept]

        async def drafts(folder: str):
            texts = [open(item.path).read() for item in list(os.scandir(folder))]
            for name in sorted(glob.glob(folder + "/*.txt")):
                texts.append(open(name, encoding="utf-8").read())
            return texts
    """)
    assert found == {("blocking_file_io", "entry.read_text()"), ("blocking_file_io", "entry.read_bytes()"),
                     ("blocking_file_io", 'return [page.read_text(encoding="utf-8") for page in kept]'),
                     ("blocking_file_io", "texts = [open(item.path).read() for item in list(os.scandir(folder))]"),
                     ("blocking_file_io", 'texts.append(open(name, encoding="utf-8").read())'),
                     # the listings themselves (stop 46)
                     ("blocking_file_io", "for entry in folder.iterdir():"),
                     ("blocking_file_io", "for entry in sorted(folder.iterdir()):"),
                     ("blocking_file_io", 'kept = list(folder.glob("*.md"))'),
                     ("blocking_file_io", 'for name in sorted(glob.glob(folder + "/*.txt")):')}


def test_one_directory_listed_whole_or_looped_is_counted_as_a_tree_walk_is(tmp_path):
    found = flagged(tmp_path, """
        import glob
        import os
        from pathlib import Path

        async def names(folder: Path):
            looped = [entry.name for entry in folder.iterdir()]
            listed = sorted(folder.iterdir())
            scanned = list(os.scandir(folder))
            matched = sorted(glob.glob(str(folder) + "/*.txt"))
            return looped, listed, scanned, matched

        async def tree(folder: Path):
            return sorted(folder.rglob("*.py")), list(os.walk(folder))
    """)
    assert found == {("blocking_file_io", 'return sorted(folder.rglob("*.py")), list(os.walk(folder))'),
                     ("blocking_file_io", "looped = [entry.name for entry in folder.iterdir()]"),
                     ("blocking_file_io", "listed = sorted(folder.iterdir())"),
                     ("blocking_file_io", "scanned = list(os.scandir(folder))"),
                     ("blocking_file_io", 'matched = sorted(glob.glob(str(folder) + "/*.txt"))')}


# -- a kernel pseudo-file named by the pathlib path the call is a method of ---------------------------------------------

def test_a_pathlib_path_under_proc_read_on_the_loop_is_no_disk_read(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        def default_route():
            return Path("/proc/net/route").read_text(encoding="ascii").splitlines()

        def memory(pid):
            with (Path("/proc") / str(pid) / "status").open() as handle:
                return handle.read()

        def limits(pid):
            return Path(f"/proc/{pid}/limits").read_bytes()

        async def trusted(pid):
            return default_route(), memory(pid), limits(pid)
    """)
    assert found == set()


def test_a_pathlib_path_elsewhere_or_under_sys_is_still_a_file_read(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        def hosts():
            return Path("/etc/hosts").read_text()

        def sensor():
            return Path("/sys/class/hwmon/hwmon0/temp1_input").read_text()

        def nested(root):
            return (Path(root) / "proc" / "route").read_text()

        async def trusted(root):
            return hosts(), sensor(), nested(root)
    """)
    assert found == {("blocking_file_io", 'return Path("/etc/hosts").read_text()'),
                     ("blocking_file_io", 'return Path("/sys/class/hwmon/hwmon0/temp1_input").read_text()'),
                     ("blocking_file_io", 'return (Path(root) / "proc" / "route").read_text()')}


# -- a pandas frame written into an in-memory buffer writes no file -----------------------------------------------------

def test_a_frame_written_as_csv_json_or_parquet_into_a_buffer_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        import pandas as pd

        async def as_table(rows, columns):
            with io.StringIO() as out:
                pd.DataFrame(rows).to_csv(out, index=False, columns=columns)
                return out.getvalue()

        async def as_bytes(rows):
            buffer = io.BytesIO()
            pd.DataFrame(rows).to_parquet(buffer)
            text = pd.DataFrame(rows).to_json(orient="records")
            return buffer.getvalue(), text
    """)
    assert found == set()


def test_a_frame_written_to_a_path_is_still_a_file_write(tmp_path):
    found = flagged(tmp_path, """
        import io
        import pandas as pd

        async def export(rows, target):
            frame = pd.DataFrame(rows)
            frame.to_csv(io.StringIO())
            frame.to_csv(target, index=False)
    """)
    assert found == {("blocking_file_io", "frame.to_csv(target, index=False)")}


# -- Textual's thread workers: an async def decorated @work(thread=True) runs on its own loop in a worker thread --------

_TEXTUAL_APP = """
    import time
    from textual import work
    from textual.app import App

    class Browser(App):
        def sizes(self):
            time.sleep(0.5)

        async def schema(self):
            time.sleep(1)

        @work(thread=True)
        async def load_details(self, name):
            self.sizes()
            await self.schema()

        @work(thread=True)
        def load_rows(self, name):
            time.sleep(2)

        {on_loop}

        async def on_mount(self):
            self.load_details("users")
            self.load_rows("users")
"""


def test_a_textual_thread_worker_and_what_only_it_awaits_are_off_the_loop(tmp_path):
    assert flagged(tmp_path, _TEXTUAL_APP.format(on_loop="")) == set()


def test_a_textual_worker_without_thread_runs_on_the_app_loop_and_so_does_a_coroutine_also_awaited_there(tmp_path):
    found = flagged(tmp_path, _TEXTUAL_APP.format(on_loop="""@work(exclusive=True)
        async def refresh(self):
            time.sleep(3)
            await self.schema()"""))
    assert found == {("blocking_sleep", "time.sleep(3)"), ("blocking_sleep", "time.sleep(1)")}

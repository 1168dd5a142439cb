"""check blocking: the kinds held-out wave 67 (issue 17; async apps that are not web APIs -- Textual TUIs, asyncio
protocol servers, MQTT daemons, a scraper) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Textual is not installed here: its
classes are recognised by their imported names, as in an app's own files. Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from tests.detect.blocking_source import flagged, flagged_package


def _with(shared: str, extra: str) -> str:
    """A shared module source followed by the lines one test adds, both at the module's top level."""
    return textwrap.dedent(shared) + textwrap.dedent(extra)


# -- Textual: plain `def` handlers, actions, watchers and compose run on the app's loop -----------------------------

_NOTES = """
    import json
    import webbrowser
    from pathlib import Path

    from textual import on, work
    from textual.app import App, ComposeResult
    from textual.screen import Screen
    from textual.widgets import Button, Input, Static

    STORE = Path.home() / ".notes.json"


    def save_notes(notes):
        STORE.write_text(json.dumps(notes))


    class NoteList(Static):
        def __init__(self):
            super().__init__()
            self.notes = json.loads(STORE.read_text())
"""


@pytest.mark.parametrize("handler, line", [
    ("def on_input_submitted(self, event: Input.Submitted) -> None:\n    save_notes([event.value])",
     ("blocking_file_io", "STORE.write_text(json.dumps(notes))")),
    ("def action_help(self) -> None:\n    webbrowser.open('https://example.org/help')",
     ("blocking_subprocess", "webbrowser.open('https://example.org/help')")),
    ("def compose(self) -> ComposeResult:\n    yield NoteList()",
     ("blocking_file_io", "self.notes = json.loads(STORE.read_text())")),
    ("def watch_dark(self, dark: bool) -> None:\n    save_notes([dark])",
     ("blocking_file_io", "STORE.write_text(json.dumps(notes))")),
    ("@on(Button.Pressed, '#save')\ndef store(self) -> None:\n    save_notes([])",
     ("blocking_file_io", "STORE.write_text(json.dumps(notes))")),
], ids=["message", "action", "compose", "watcher", "on-decorator"])
def test_a_textual_sync_handler_runs_on_the_loop(tmp_path, handler, line):
    screen = "\n\nclass NotesScreen(Screen[None]):\n" + textwrap.indent(handler, "    ") + "\n"
    found = flagged(tmp_path, textwrap.dedent(_NOTES) + screen)
    assert line in found


def test_a_textual_handler_of_a_widget_deriving_from_the_apps_own_widget_runs_on_the_loop(tmp_path):
    found = flagged_package(tmp_path, {
        "__init__.py": "",
        "base.py": """
            from textual.widgets import Static


            class Pane(Static):
                pass
        """,
        "panes.py": """
            import shutil

            from .base import Pane


            class Trash(Pane):
                def action_empty(self) -> None:
                    shutil.rmtree("/srv/notes/trash")
        """,
    })
    assert found == {("panes.py", "blocking_file_io", 'shutil.rmtree("/srv/notes/trash")')}


def test_a_textual_thread_worker_and_a_handler_named_alike_outside_textual_stay_silent(tmp_path):
    found = flagged(tmp_path, _with(_NOTES, """

    class NotesApp(App[None]):
        @work(thread=True)
        def on_mount(self) -> None:
            save_notes([])


    class Listener:
        def on_message(self, text):
            save_notes([text])
    """))
    assert found == set()


def test_a_message_class_nested_in_a_textual_widget_is_no_message_pump(tmp_path):
    found = flagged(tmp_path, _with(_NOTES, """

    class Saved(Input.Submitted):
        def on_saved(self) -> None:
            save_notes([])
    """))
    assert found == set()


# -- Textual: callbacks handed to the app (push_screen, call_later, the command palette) ---------------------------

def test_a_push_screen_callback_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _with(_NOTES, """

    class Confirm(Screen[bool]):
        pass


    class NotesScreen(Screen[None]):
        def delete_all(self) -> None:
            def confirmed(yes: bool) -> None:
                if yes:
                    save_notes([])

            self.app.push_screen(Confirm(), confirmed)
    """))
    assert ("blocking_file_io", "STORE.write_text(json.dumps(notes))") in found


def test_call_later_and_a_command_palette_hit_run_their_callables_on_the_loop(tmp_path):
    found = flagged(tmp_path, _with(_NOTES, """
    from functools import partial

    from textual.command import Hit, Provider


    def open_docs(page):
        webbrowser.open(page)


    class Commands(Provider):
        async def search(self, query: str):
            yield Hit(1.0, "docs", partial(open_docs, "https://example.org"))


    class NotesScreen(Screen[None]):
        def refresh_later(self) -> None:
            self.call_later(self.flush)

        def flush(self) -> None:
            save_notes([])
    """))
    assert found == {("blocking_subprocess", "webbrowser.open(page)"),
                     ("blocking_file_io", "STORE.write_text(json.dumps(notes))")}


def test_a_callable_kept_but_handed_to_nothing_textual_stays_silent(tmp_path):
    found = flagged(tmp_path, _with(_NOTES, """

    class NotesScreen(Screen[None]):
        def remember(self) -> None:
            self.pending = self.flush

        def flush(self) -> None:
            save_notes([])
    """))
    assert found == set()


# -- Textual: a typed query returns the widget it names -------------------------------------------------------------

_VIEWER = """
    from textual.screen import Screen
    from textual.widgets import Static


    class Viewer(Static):
        def forward(self) -> None:
            self.position = 1

        def save(self, path) -> None:
            with open(path, "w") as out:
                out.write("position")
"""


def test_a_method_of_a_queried_widget_is_its_own_not_a_look_alike(tmp_path):
    found = flagged(tmp_path, _with(_VIEWER, """

    class Main(Screen[None]):
        def action_forward(self) -> None:
            self.query_one(Viewer).forward()
    """))
    assert found == set()


def test_a_queried_widget_method_that_writes_blocks(tmp_path):
    found = flagged(tmp_path, _with(_VIEWER, """

    class Main(Screen[None]):
        def action_keep(self) -> None:
            self.query_one("#viewer", Viewer).save("/tmp/position.txt")
    """))
    assert found == {("blocking_file_io", 'with open(path, "w") as out:')}


# -- the clipboard through pyperclip --------------------------------------------------------------------------------

def test_pyperclip_copy_waits_for_the_clipboard_program(tmp_path):
    found = flagged(tmp_path, """
        import pyperclip

        async def copy_link(request):
            pyperclip.copy(request.url)
    """)
    assert found == {("blocking_subprocess", "pyperclip.copy(request.url)")}


def test_pyperclip_copy_in_a_worker_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import pyperclip

        async def copy_link(request):
            await asyncio.to_thread(pyperclip.copy, request.url)
    """)
    assert found == set()


# -- asyncio protocol callbacks run on the loop ---------------------------------------------------------------------

_FETCHER = """
    import asyncio
    import urllib.request


    def fetch_model(url):
        with urllib.request.urlopen(url) as response:
            return response.read()
"""


def test_a_protocols_data_received_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _with(_FETCHER, """

    class Control(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            self.handle(data)

        def handle(self, data: bytes) -> None:
            pass


    class Satellite(Control):
        def handle(self, data: bytes) -> None:
            fetch_model(data.decode())
    """))
    assert found == {("blocking_http", "with urllib.request.urlopen(url) as response:")}


def test_a_class_handed_to_create_server_as_the_protocol_factory_is_a_protocol(tmp_path):
    found = flagged(tmp_path, _with(_FETCHER, """

    class Server:
        def __init__(self, state):
            self.state = state

        def connection_lost(self, exc) -> None:
            fetch_model(self.state)


    async def main(state):
        loop = asyncio.get_running_loop()
        await loop.create_server(lambda: Server(state), "0.0.0.0", 6053)
    """))
    assert found == {("blocking_http", "with urllib.request.urlopen(url) as response:")}


def test_a_data_received_method_of_a_class_no_loop_is_given_stays_silent(tmp_path):
    found = flagged(tmp_path, _with(_FETCHER, """

    class Recorder:
        def data_received(self, data: bytes) -> None:
            fetch_model(data.decode())
    """))
    assert found == set()


# -- SoundCard asks the sound server for its devices ----------------------------------------------------------------

def test_soundcard_device_queries_wait_for_the_sound_server(tmp_path):
    found = flagged(tmp_path, """
        import soundcard as sc

        async def main(name):
            mic = sc.get_microphone(name) if name else sc.default_microphone()
            print([m.name for m in sc.all_microphones()])
            return mic.record(numframes=16000, samplerate=16000)
    """)
    assert found == {("blocking_socket_io", "mic = sc.get_microphone(name) if name else sc.default_microphone()"),
                     ("blocking_socket_io", "print([m.name for m in sc.all_microphones()])"),
                     ("blocking_sleep", "return mic.record(numframes=16000, samplerate=16000)")}


def test_soundcard_queried_in_a_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import soundcard as sc

        async def main():
            return await asyncio.to_thread(sc.default_microphone)
    """)
    assert found == set()


# -- a loader of an unlisted package given its path by keyword ------------------------------------------------------

def test_a_class_level_loader_given_a_path_by_keyword_opens_it(tmp_path):
    found = flagged(tmp_path, """
        from hotword_engine import Detector

        async def load(settings):
            return Detector.from_config(config_path=settings.detector_path)
    """)
    assert found == {("blocking_file_io", "return Detector.from_config(config_path=settings.detector_path)")}


def test_a_class_level_factory_given_no_path_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from hotword_engine import Detector

        async def load(settings):
            return Detector.from_config(sensitivity=settings.sensitivity)
    """)
    assert found == set()


# -- a class a function returns (-> Type[Base]), then called ---------------------------------------------------------

_CLIENTS = """
    import ssl
    from importlib import import_module
    from typing import Type


    class Transport:
        def __init__(self, ca_file):
            self.ca_file = ca_file

        @staticmethod
        def named(module: str) -> Type["Transport"]:
            return import_module(module).Implementation
"""


def test_the_constructor_of_a_returned_class_runs_where_it_is_called(tmp_path):
    found = flagged(tmp_path, _with(_CLIENTS, """

    class TlsTransport(Transport):
        def __init__(self, ca_file):
            super().__init__(ca_file)
            self.context = ssl.create_default_context()
            self.context.load_verify_locations(ca_file)


    async def connect(settings):
        return Transport.named(settings.module)(settings.ca_file)
    """))
    assert ("blocking_file_io", "self.context.load_verify_locations(ca_file)") in found


def test_a_returned_class_whose_constructors_do_nothing_slow_stays_quiet(tmp_path):
    found = flagged(tmp_path, _with(_CLIENTS, """

    class PlainTransport(Transport):
        pass


    async def connect(settings):
        chosen = Transport.named(settings.module)
        return chosen(settings.ca_file)
    """))
    assert found == {("blocking_file_io", "return import_module(module).Implementation")}


# -- `async with` binds what __aenter__ returns; isinstance narrows a receiver several classes were assigned -------

_SESSION = """
    import time

    import requests


    class SyncClient:
        def get(self, url):
            return requests.get(url)


    class AsyncClient:
        async def get(self, url):
            return url


    class Session:
        def __init__(self):
            self.client = None

        def __enter__(self) -> SyncClient:
            self.client = SyncClient()
            return self.client

        async def __aenter__(self) -> AsyncClient:
            self.client = AsyncClient()
            return self.client
"""


def test_async_with_binds_the_async_client_and_isinstance_keeps_the_sync_one_out(tmp_path):
    found = flagged(tmp_path, _with(_SESSION, """

    async def bulk(urls):
        async with Session() as session:
            return [await session.get(u) for u in urls]


    async def fetch(session: Session, url):
        client = session.client
        if isinstance(client, AsyncClient):
            return await client.get(url)
        raise TypeError("an async session is needed")
    """))
    assert found == set()


def test_with_binds_the_sync_client_and_an_unnarrowed_receiver_may_be_either(tmp_path):
    found = flagged(tmp_path, _with(_SESSION, """

    async def one(url):
        with Session() as session:
            return session.get(url)


    async def fetch(session: Session, url):
        client = session.client
        return client.get(url)
    """))
    assert found == {("blocking_http", "return requests.get(url)")}


def test_isinstance_narrows_a_parameter_annotated_as_a_union(tmp_path):
    source = _with(_SESSION, """

    async def fetch(client: Union[SyncClient, AsyncClient], url):
        if isinstance(client, AsyncClient):
            return await client.get(url)
        return client.get(url)
    """).replace("import time", "from typing import Union")
    found = flagged(tmp_path, source)
    assert found == {("blocking_http", "return requests.get(url)")}
    narrowed_only = source.replace("\n    return client.get(url)", "\n    raise TypeError(url)")
    assert flagged(tmp_path, narrowed_only, "narrowed.py") == set()


def test_an_async_with_whose_aenter_returns_a_sync_client_blocks(tmp_path):
    found = flagged(tmp_path, """
        import requests


        class Quiet:
            def get(self, url):
                return url


        class Loud:
            def get(self, url):
                return requests.get(url)


        class Session:
            def __enter__(self) -> Quiet:
                return Quiet()

            async def __aenter__(self) -> Loud:
                return Loud()

            async def __aexit__(self, *exc):
                return None


        async def fetch(url):
            async with Session() as session:
                return session.get(url)
    """)
    assert found == {("blocking_http", "return requests.get(url)")}


# -- branches no caller takes: `and`/`or` tests, forwarded parameters, short-circuit expressions --------------------

_PARSER = """
    import sqlite3
    from pathlib import Path


    def driver_version(package):
        return Path(package).read_bytes()


    class Page:
        def __init__(self, html, adaptive: bool = False):
            self.html = html
            self.db = sqlite3.connect("elements.db")
            self.adaptive = bool(adaptive)

        def css(self, query, auto_save: bool = False):
            return self.xpath(query, auto_save)

        def xpath(self, query, auto_save: bool = False):
            found = [query]
            if self.adaptive and auto_save:
                self.db.execute("INSERT INTO elements VALUES (?)", (query,))
            return found


    def headers(browser_mode: bool = False):
        if browser_mode and (version := driver_version("playwright")):
            return {"version": version}
        return {}
"""


def test_branches_no_caller_takes_through_and_forwarding_and_flags_stay_silent(tmp_path):
    found = flagged(tmp_path, _with(_PARSER, """

    async def challenge(html):
        page = Page(html)
        return page.css("script"), headers(browser_mode=False)
    """))
    assert found == {("blocking_db", 'self.db = sqlite3.connect("elements.db")')}


def test_a_flag_turned_on_where_the_object_is_built_keeps_the_blocker(tmp_path):
    found = flagged(tmp_path, _with(_PARSER, """

    async def remember(html):
        page = Page(html, adaptive=True)
        return page.css("script", auto_save=True), headers(browser_mode=True)
    """))
    assert found == {("blocking_db", 'self.db = sqlite3.connect("elements.db")'),
                     ("blocking_db", 'self.db.execute("INSERT INTO elements VALUES (?)", (query,))'),
                     ("blocking_file_io", "return Path(package).read_bytes()")}


@pytest.mark.parametrize("built, kept", [("Kept(html)", False), ("Kept(html, adaptive=True)", True)],
                         ids=["flag-off", "flag-on"])
def test_a_flag_of_the_object_built_on_the_path_decides_its_branch(tmp_path, built, kept):
    found = flagged(tmp_path, _with(_PARSER, f"""

    class Kept(Page):
        def remember(self):
            if self.adaptive:
                self.db.execute("SELECT 1")


    async def challenge(html):
        page = {built}
        return page.remember()
    """))
    connect = ("blocking_db", 'self.db = sqlite3.connect("elements.db")')
    assert found == ({connect, ("blocking_db", 'self.db.execute("SELECT 1")')} if kept else {connect})


@pytest.mark.parametrize("call, kept", [('Page().css("body")', False), ('Page().css("body", auto_save=True)', True)],
                         ids=["default", "passed"])
def test_the_value_a_path_passes_decides_where_other_callers_are_unknown(tmp_path, call, kept):
    found = flagged(tmp_path, f"""
        class Page:
            def css(self, query, auto_save=False):
                return self.xpath(query, auto_save)

            def xpath(self, query, auto_save=False):
                if auto_save:
                    open("saved.txt", "w").write(query)
                return query


        async def elsewhere(node, query):
            return node.xpath(query, True)


        async def handler():
            return {call}
    """)
    assert found == ({("blocking_file_io", 'open("saved.txt", "w").write(query)')} if kept else set())


def test_an_or_test_that_is_always_true_never_reaches_its_else(tmp_path):
    found = flagged(tmp_path, """
        def cached_or_read(path, cached: bool = True):
            if cached or path is None:
                return "cached"
            else:
                return open(path).read()


        async def handler(path):
            return cached_or_read(path)
    """)
    assert found == set()


def test_a_conditional_expression_on_a_parameter_keeps_its_taken_side(tmp_path):
    found = flagged(tmp_path, """
        def load(path, fresh: bool = False):
            return open(path).read() if fresh else "cached"


        async def handler(path):
            return load(path), load(path, fresh=True)
    """)
    assert found == {("blocking_file_io", 'return open(path).read() if fresh else "cached"')}


# -- a path a filter drops leaves the site's other paths ------------------------------------------------------------

def test_a_blocker_reached_by_an_untaken_short_path_and_a_live_longer_one_is_found(tmp_path):
    found = flagged(tmp_path, """
        def save_state(path):
            with open(path, "w") as out:
                out.write("{}")


        class Store:
            def flush(self, to_disk: bool = False):
                if to_disk:
                    save_state("state.json")


        def stage():
            save_state("state.json")


        def checkpoint():
            stage()


        async def tick():
            Store().flush()


        async def shutdown():
            checkpoint()
    """)
    assert found == {("blocking_file_io", 'with open(path, "w") as out:')}


# -- matplotlib's figure from plt.subplots(), a module loaded from a file, a command looked up by name --------------

def test_a_figure_made_by_subplots_and_saved_on_the_loop_blocks(tmp_path):
    found = flagged_package(tmp_path, {
        "__init__.py": "",
        "charts.py": """
            import matplotlib.pyplot as plt


            def pie(values):
                fig, ax = plt.subplots()
                ax.pie(values)
                return fig
        """,
        "views.py": """
            from io import BytesIO

            from .charts import pie


            async def chart(values):
                buffer = BytesIO()
                figure = pie(values)
                figure.savefig(buffer, format="png", dpi=300)
                return buffer.getvalue()
        """,
    })
    assert found == {("views.py", "blocking_file_io", 'figure.savefig(buffer, format="png", dpi=300)')}


def test_a_module_executed_from_a_file_blocks(tmp_path):
    found = flagged(tmp_path, """
        import importlib.util


        async def load_plugin(path):
            spec = importlib.util.spec_from_file_location("plugin", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    """)
    assert found == {("blocking_file_io", "spec.loader.exec_module(module)")}


_COMMANDS = """
    import webbrowser


    class Prompt:
        def submit(self, word: str, argument: str) -> None:
            getattr(self, f"command_{word}")(argument)

        def command_help(self, argument: str) -> None:
            self.shown = argument
"""


def test_a_command_looked_up_by_its_prefix_may_be_any_command(tmp_path):
    found = flagged(tmp_path, _with(_COMMANDS, """
        def command_docs(self, argument: str) -> None:
            webbrowser.open("https://example.org/" + argument)


    async def on_line(prompt: Prompt, line: str):
        prompt.submit(*line.split(" ", 1))
    """))
    assert found == {("blocking_subprocess", 'webbrowser.open("https://example.org/" + argument)')}


def test_a_lookup_without_a_written_prefix_names_no_method(tmp_path):
    found = flagged(tmp_path, _with(_COMMANDS, """
        def docs(self, argument: str) -> None:
            webbrowser.open("https://example.org/" + argument)

        def run(self, word: str, argument: str) -> None:
            getattr(self, word)(argument)


    async def on_line(prompt: Prompt, line: str):
        prompt.run(*line.split(" ", 1))
    """))
    assert found == set()

"""check blocking: the known kinds the held-out waves 53 and 57 left (issue 17, stop 49). Each blocker is found at
its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package


def test_a_client_given_a_server_and_a_key_keyword_calls_it_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from trackerlib import Tracker

        async def start(settings):
            tracker = Tracker(settings.TRACKER_URL, key=settings.TRACKER_KEY)
            me = tracker.user.get("current")
            return me.name
    """)
    assert found == {("blocking_http", 'me = tracker.user.get("current")')}


def test_a_key_without_a_server_or_a_literal_key_is_no_credential(tmp_path):
    found = flagged(tmp_path, """
        from boxlib import SecretBox
        from shapelib import RequestShape

        async def seal(data, secret, url):
            box = SecretBox(key=secret)
            shape = RequestShape(url=url, key="id")
            return box.encrypt(data), shape.render()
    """)
    assert found == set()


_TOOLS_INIT = """
    import importlib
    import pkgutil
    from pathlib import Path

    _REGISTRY = None

    def _discover(names):
        found = {}
        base = __name__
        for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{base}.{info.name}")
            for name in names:
                if callable(getattr(module, name, None)):
                    found[name] = getattr(module, name)
        return found

    def _registry():
        global _REGISTRY
        if _REGISTRY is None:
            _REGISTRY = _discover(["forecast", "quote"])
        return _REGISTRY

    def run_tool(name, arguments):
        fn = _registry().get(name)
        return fn(**arguments)
"""


def test_a_tool_looked_up_by_name_in_the_package_modules_runs_on_the_loop(tmp_path):
    found = flagged_package(tmp_path, {
        "tools/__init__.py": _TOOLS_INIT,
        "tools/weather.py": """
            import requests

            def forecast(city):
                return requests.get("https://wx.example/api", params={"q": city}).json()
        """,
        "tools/_private.py": """
            import requests

            def quote(symbol):
                return requests.get("https://quotes.example/" + symbol).text
        """,
        "bot.py": """
            from svc.tools import run_tool

            async def on_message(name, arguments):
                return run_tool(name, arguments)
        """,
    })
    assert {f for f in found if f[0] != "tools/__init__.py"} == {("tools/weather.py", "blocking_http",
                      'return requests.get("https://wx.example/api", params={"q": city}).json()')}


def test_a_registry_of_literal_modules_or_offloaded_tools_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "tools/__init__.py": _TOOLS_INIT.replace('f"{base}.{info.name}"', '"json"'),
        "tools/weather.py": """
            import requests

            def forecast(city):
                return requests.get("https://wx.example/api", params={"q": city}).json()
        """,
        "bot.py": """
            import asyncio
            from svc.tools import run_tool

            async def on_message(name, arguments):
                return run_tool(name, arguments)

            async def on_offloaded(name, arguments):
                return await asyncio.to_thread(run_tool, name, arguments)
        """,
    })
    assert {f for f in found if f[0] != "tools/__init__.py"} == set()  # there: the import_module itself


_SHEETS = """
    import requests

    class Sheets:
        def rows(self, sheet):
            return []

    class CachedSheets(Sheets):
        pass

    class OtherSheets:
        def rows(self, sheet):
            return []

    class Importer:
        def __init__(self, source):
            self.source = source

        def read(self, sheet):
            if isinstance(self.source, Sheets):
                rows = self.source.rows(sheet)
            else:
                rows = requests.get("https://sheets.example/" + sheet).json()
            return rows

    def load_source():
        return object()

    async def handle(sheet):
        source = {made}
        return Importer(source).read(sheet)

    def test_importer_reads_a_stand_in():
        assert Importer(OtherSheets()).read("s") == []
"""


def test_an_isinstance_fallback_some_construction_takes_is_still_found(tmp_path):
    for made in ("OtherSheets()", "load_source()"):
        found = flagged(tmp_path, _SHEETS.replace("{made}", made))
        assert found == {("blocking_http", 'rows = requests.get("https://sheets.example/" + sheet).json()')}, made


def test_an_isinstance_fallback_no_construction_takes_is_silent(tmp_path):
    for made in ("Sheets()", "CachedSheets()"):
        assert flagged(tmp_path, _SHEETS.replace("{made}", made)) == set(), made

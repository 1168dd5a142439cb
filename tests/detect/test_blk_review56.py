"""Review of the session-56 blocking changes: a parameter defaulting to the module's own function, and a
once-per-process library warmed by another program's entry point."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- a parameter whose default is the module's function of the same name holds that function ----------------------

_FETCHERS = """
    import requests
    from fastapi import FastAPI

    app = FastAPI()


    def lookup(code):
        return requests.get("https://rates.example.net/" + code, timeout=3).json()


    async def lookup_cached(code):
        return {"code": code}

    {handlers}
"""


def test_a_parameter_defaulting_to_the_module_s_blocking_function_is_followed(tmp_path):
    found = flagged(tmp_path, _FETCHERS.replace("{handlers}", """
    @app.get("/rate/{code}")
    async def rate(code: str, lookup=lookup):
        return lookup(code)
    """))
    assert found == {("blocking_http", 'return requests.get("https://rates.example.net/" + code, timeout=3).json()')}


def test_a_parameter_of_the_same_name_bound_to_something_else_stays_silent(tmp_path):
    found = flagged(tmp_path, _FETCHERS.replace("{handlers}", """
    @app.get("/rate/{code}")
    async def rate(code: str, lookup=lookup_cached):
        return await lookup(code)


    @app.get("/plain/{code}")
    async def plain(code: str, lookup=None):
        lookup = lookup_cached
        return await lookup(code)
    """))
    assert found == set()


# -- a once-per-process cache is warm only in the process whose entry point warmed it ------------------------------

_SERVER = """
    import tldextract
    from fastapi import FastAPI

    app = FastAPI()


    @app.get("/site")
    async def site(url: str):
        return {"site": tldextract.extract(url).registered_domain}
"""


def test_a_warm_up_in_another_script_s_entry_point_leaves_the_server_s_call_found(tmp_path):
    found = flagged_package(tmp_path, {"server.py": _SERVER, "report.py": """
        import asyncio

        import tldextract


        async def summary():
            print("done")


        if __name__ == "__main__":
            print(tldextract.extract("https://example.org").registered_domain)
            asyncio.run(summary())
    """})
    assert found == {("server.py", "blocking_http", 'return {"site": tldextract.extract(url).registered_domain}')}


def test_a_warm_up_before_the_loop_that_runs_the_same_coroutine_stays_silent(tmp_path):
    found = flagged_package(tmp_path, {"server.py": _SERVER, "run.py": """
        import asyncio

        import tldextract

        from server import site


        async def main(urls):
            for url in urls:
                await site(url)


        if __name__ == "__main__":
            tldextract.extract("https://example.org")
            asyncio.run(main(["https://example.org/a"]))
    """})
    assert found == set()


# -- a loop variable reused by two loops over different classes: each loop calls its own rows' methods --------------

_SINKS = """
    import asyncio
    import json


    class JournalSink:
        def flush(self, record):
            with open("/var/log/journal.jsonl", "a") as fh:
                fh.write(json.dumps(record))


    class AuditSink:
        def flush(self, record):
            with open("/var/log/audit.jsonl", "a") as fh:
                fh.write(json.dumps(record))


    class RingSink:
        def __init__(self):
            self.rows = []

        def flush(self, record):
            self.rows.append(record)


    class TallySink:
        def __init__(self):
            self.count = 0

        def flush(self, record):
            self.count += 1

    {handler}
"""


def test_the_in_memory_loop_after_an_offloaded_loop_of_the_same_variable_stays_silent(tmp_path):
    found = flagged(tmp_path, _SINKS.replace("{handler}", """
    async def record(event):
        for sink in [JournalSink(), AuditSink()]:
            await asyncio.to_thread(sink.flush, event)
        for sink in [RingSink(), TallySink()]:
            sink.flush(event)
        return event
    """))
    assert found == set()


def test_the_loop_over_file_sinks_is_found_beside_an_in_memory_loop_of_the_same_variable(tmp_path):
    found = flagged(tmp_path, _SINKS.replace("{handler}", """
    async def record(event):
        for sink in [RingSink(), TallySink()]:
            sink.flush(event)
        for sink in [JournalSink(), RingSink()]:
            sink.flush(event)
        return event
    """))
    assert found == {("blocking_file_io", 'with open("/var/log/journal.jsonl", "a") as fh:')}

"""check blocking: a plain ``def`` tool of the MCP SDK's FastMCP (v1.x) runs on the event loop (issue 17); the
standalone ``fastmcp`` package runs one in a thread pool. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_a_sync_tool_resource_or_prompt_of_the_sdk_fastmcp_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import subprocess
        import time

        import requests
        from mcp.server.fastmcp import FastMCP

        class ShelfServer(FastMCP):
            pass

        shelf = ShelfServer("shelf")
        plain = FastMCP("plain")

        def fetch_catalogue(url):
            return requests.get(url, timeout=5).json()

        @shelf.tool()
        def list_books(url: str) -> list:
            return fetch_catalogue(url)

        @plain.resource("shelf://status")
        def status() -> str:
            return subprocess.run(["uptime"], capture_output=True).stdout.decode()

        @plain.prompt
        def slow_prompt() -> str:
            time.sleep(3)
            return "hello"

        def register(server: FastMCP):
            @server.tool()
            def read_label(path: str) -> str:
                with open(path) as fh:
                    return fh.read()
    """)
    assert ("blocking_http", "return requests.get(url, timeout=5).json()") in found
    assert ("blocking_subprocess", 'return subprocess.run(["uptime"], capture_output=True).stdout.decode()') in found
    assert ("blocking_sleep", "time.sleep(3)") in found
    assert ("blocking_file_io", "with open(path) as fh:") in found


def test_a_sync_tool_of_the_standalone_fastmcp_runs_in_its_thread_pool_unless_told_not_to(tmp_path):
    found = flagged(tmp_path, """
        import time

        from fastmcp import FastMCP

        server = FastMCP("weather")

        def unregistered():
            time.sleep(1)

        @server.tool()
        def forecast(city: str) -> str:
            time.sleep(2)
            return city

        @server.tool(run_in_thread=False)
        def inline_forecast(city: str) -> str:
            time.sleep(4)
            return city
    """)
    assert ("blocking_sleep", "time.sleep(4)") in found
    assert not {line for _, line in found} & {"time.sleep(1)", "time.sleep(2)"}


def test_a_sync_handler_registered_with_add_tool_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import subprocess
        import time

        from mcp.server import FastMCP

        class Module:
            def __init__(self, client):
                self.client = client

            def _add_tool(self, server: FastMCP, method, name: str) -> None:
                server.add_tool(method, name=f"shop_{name}")

            def register_tools(self, server: FastMCP) -> None:
                self._add_tool(server, self.wait_for_job, "wait")

            def wait_for_job(self, job_id: str) -> str:
                time.sleep(2)
                return job_id

        class Server:
            def __init__(self):
                self.server = FastMCP("shop")
                self.server.add_tool(self.uptime, name="uptime")
                Module(None).register_tools(self.server)

            def uptime(self) -> str:
                return subprocess.run(["uptime"], capture_output=True).stdout.decode()
    """)
    assert found == {("blocking_sleep", "time.sleep(2)"),
                     ("blocking_subprocess", 'return subprocess.run(["uptime"], capture_output=True).stdout.decode()')}


def test_add_tool_of_the_standalone_fastmcp_or_an_unregistered_def_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import time

        from fastmcp import FastMCP

        server = FastMCP("weather")

        def forecast(city: str) -> str:
            time.sleep(2)
            return city

        def helper(city: str) -> str:
            time.sleep(3)
            return city

        def add(server: FastMCP, method):
            server.add_tool(method)

        server.add_tool(forecast)
        add(server, helper)
    """)
    assert found == set()


def test_a_coroutine_entry_is_named_before_a_def_its_framework_runs_on_the_loop(tmp_path):
    path = tmp_path / "svc.py"
    path.write_text(textwrap.dedent("""
        import requests
        from mcp.server.fastmcp import FastMCP

        server = FastMCP("search")

        def call_api(query):
            return requests.get("https://api.example.org", params={"q": query}, timeout=5).json()

        def a_sync_tool(query: str):
            return call_api(query)

        async def z_async_tool(query: str):
            return call_api(query)

        server.add_tool(a_sync_tool)
        server.add_tool(z_async_tool)
    """))
    findings = analyze_path(path).findings
    assert [f.evidence["entry"] for f in findings] == ["z_async_tool"]
    assert "reached from async def z_async_tool" in findings[0].message
    assert findings[0].evidence["entry_calls"][0]["function"] == "z_async_tool"

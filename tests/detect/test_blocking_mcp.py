"""check blocking: a plain ``def`` tool of the MCP SDK's FastMCP (v1.x) runs on the event loop (issue 17); the
standalone ``fastmcp`` package runs one in a thread pool. Every example is written for this test."""

from __future__ import annotations

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

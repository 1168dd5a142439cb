"""check blocking: the kinds held-out wave 45 (issue 17; FastAPI services calling S3 and e-mail SDKs, a Lightning
wallet server, a measurement API with periodic tasks) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- a periodic task of fastapi-utils: a plain def it runs through run_in_threadpool ------------------------------------
def test_a_sync_function_under_repeat_every_runs_in_the_thread_pool(tmp_path):
    found = flagged(tmp_path, """
        import urllib.request
        from fastapi_utils.tasks import repeat_every

        @repeat_every(seconds=600)
        def refresh_mirror():
            with urllib.request.urlopen("https://example.org/list.csv") as answer:
                return answer.read()

        async def on_start():
            await refresh_mirror()
    """)
    assert not any("urlopen" in line for _, line in found)


def test_a_function_under_an_unknown_periodic_decorator_still_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import urllib.request
        from mytimers import every

        @every(seconds=600)
        def refresh_mirror():
            with urllib.request.urlopen("https://example.org/list.csv") as answer:
                return answer.read()

        async def on_start():
            refresh_mirror()
    """)
    assert ("blocking_http", 'with urllib.request.urlopen("https://example.org/list.csv") as answer:') in found


# -- Core Lightning's JSON-RPC client: every method is a round trip over the node's unix socket -------------------------
def test_a_lightning_rpc_call_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        from pyln.client import LightningRpc

        class Node:
            def __init__(self, socket_path):
                self.rpc = LightningRpc(socket_path)

            async def balance(self):
                funds = self.rpc.listfunds()
                return sum(o["amount_msat"] for o in funds["outputs"])
    """)
    assert ("blocking_socket_io", "funds = self.rpc.listfunds()") in found


def test_a_lightning_rpc_call_handed_to_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from pyln.client import LightningRpc

        class Node:
            def __init__(self, socket_path):
                self.rpc = LightningRpc(socket_path)

            async def balance(self):
                funds = await asyncio.to_thread(self.rpc.listfunds)
                return len(funds["outputs"])
    """)
    assert not found


# -- os.waitpid with WNOHANG returns at once --------------------------------------------------------------------------
def test_waitpid_without_wnohang_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        import os

        async def reap(pid):
            _, status = os.waitpid(pid, 0)
            return status
    """)
    assert ("blocking_subprocess", "_, status = os.waitpid(pid, 0)") in found


def test_waitpid_with_wnohang_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import os

        async def reap(pid):
            _, status = os.waitpid(pid, os.WNOHANG)
            done, _ = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
            return status, done
    """)
    assert not found

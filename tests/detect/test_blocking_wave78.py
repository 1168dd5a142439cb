"""check blocking: the kinds held-out wave 78 (issue 17; agent and developer-tool servers) left, fixed by kind.

F1: a plain ``def`` decorated with LangGraph's functional-API ``@task`` (or ``@entrypoint``) runs in a worker thread
when an async entrypoint awaits it, so what it calls blocks no loop; an ``async def`` task still runs on the loop.
M1: a callback handed down through the parameters of two or more functions before the last one calls it on the loop.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.detect.blocking_source import flagged

# -- F1: LangGraph functional-API tasks ---------------------------------------------------------------------------------

_TASK_HEAD = """
    import requests
    from langgraph.func import entrypoint, task

"""

_FETCH = ("blocking_http", 'return requests.get(f"http://tickets.invalid/{key}").json()')

_SYNC_TASKS = {
    "a bare @task": """
        @task
        def load_ticket(key):
            return requests.get(f"http://tickets.invalid/{key}").json()
    """,
    "@task() with options": """
        @task(name="load")
        def load_ticket(key):
            return requests.get(f"http://tickets.invalid/{key}").json()
    """,
    "a helper below the task": """
        def _get(key):
            return requests.get(f"http://tickets.invalid/{key}").json()


        @task
        def load_ticket(key):
            return _get(key)
    """,
}

_ENTRY = """

    @entrypoint()
    async def triage(inputs):
        ticket = await load_ticket(inputs["key"])
        return ticket["title"]
"""


@pytest.mark.parametrize("tasks", list(_SYNC_TASKS.values()), ids=list(_SYNC_TASKS))
def test_a_sync_langgraph_task_runs_in_a_worker_thread(tmp_path, tasks):
    found = flagged(tmp_path, textwrap.dedent(_TASK_HEAD) + textwrap.dedent(tasks) + textwrap.dedent(_ENTRY))
    assert not found


def test_an_async_langgraph_task_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _TASK_HEAD + """
    @task
    async def load_ticket(key):
        return requests.get(f"http://tickets.invalid/{key}").json()


    @entrypoint()
    async def triage(inputs):
        ticket = await load_ticket(inputs["key"])
        return ticket["title"]
    """)
    assert _FETCH in found


def test_a_sync_function_of_the_same_name_undecorated_blocks(tmp_path):
    found = flagged(tmp_path, _TASK_HEAD + """
    def load_ticket(key):
        return requests.get(f"http://tickets.invalid/{key}").json()


    @entrypoint()
    async def triage(inputs):
        ticket = load_ticket(inputs["key"])
        return ticket["title"]
    """)
    assert _FETCH in found


def test_a_sync_task_also_called_directly_from_a_handler_blocks_there(tmp_path):
    found = flagged(tmp_path, _TASK_HEAD + """
    from fastapi import FastAPI

    app = FastAPI()


    def load_ticket(key):
        return requests.get(f"http://tickets.invalid/{key}").json()


    load_task = task(load_ticket)


    @app.get("/t/{key}")
    async def show(key: str):
        return load_ticket(key)
    """)
    assert _FETCH in found


# -- M1: a callback handed down through several parameters -------------------------------------------------------------

_NOTIFY = ("blocking_http", 'requests.post("http://chat.invalid/hook", json={"item": item})')

_HOOK = """
    import asyncio

    import requests
    from asgiref.sync import sync_to_async
    from fastapi import FastAPI

    app = FastAPI()


    def notify(item):
        requests.post("http://chat.invalid/hook", json={"item": item})
"""

_DRIVE = """

    async def drive(items, on_done=None):
        for item in items:
            if on_done:
                on_done(item)
"""

_MIDDLE = """

    async def middle(items, on_done=None):
        await drive(items, on_done=on_done)
"""

_RUN = """

    @app.post("/run")
    async def run(items: list[str]):
        await middle(items, on_done=notify)
"""

_QUIET = """

    @app.post("/quiet")
    async def quiet(items: list[str]):
        await middle(items, on_done=lambda item: None)
"""

_CHAINS = {
    "one middle function, by keyword": _DRIVE + _MIDDLE + _RUN,
    "two middle functions, by position": _DRIVE + """

        async def outer(items, cb):
            await middle(items, cb)


        async def middle(items, cb):
            await drive(items, cb)


        @app.post("/run")
        async def run(items: list[str]):
            await outer(items, notify)
    """,
    "a closure of the handler": _DRIVE + _MIDDLE + """

        @app.post("/run")
        async def run(items: list[str]):
            def done(item):
                notify(item)

            await middle(items, on_done=done)
    """,
    "one call site, when another passes a lambda": _DRIVE + _MIDDLE + _QUIET + _RUN,
}


def _service(*parts: str) -> str:
    return "".join(textwrap.dedent(p) for p in (_HOOK, *parts))


@pytest.mark.parametrize("chain", list(_CHAINS.values()), ids=list(_CHAINS))
def test_a_callback_forwarded_through_parameters_runs_where_it_is_called(tmp_path, chain):
    assert _NOTIFY in flagged(tmp_path, _service(chain))


_SILENT = {
    "the last function hands it to a thread": """

        async def drive(items, on_done=None):
            for item in items:
                await asyncio.to_thread(on_done, item)
    """,
    "the last function only stores it": """
        HOOKS = []


        async def drive(items, on_done=None):
            HOOKS.append(on_done)
            return len(items)
    """,
    "the last function runs in a worker thread": """

        @sync_to_async
        def drive(items, on_done=None):
            for item in items:
                on_done(item)
    """,
}


@pytest.mark.parametrize("drive", list(_SILENT.values()), ids=list(_SILENT))
@pytest.mark.parametrize("sites", [_RUN, _QUIET + _RUN], ids=["one site", "beside a lambda"])
def test_a_forwarded_callback_never_called_on_the_loop_is_silent(tmp_path, drive, sites):
    assert not flagged(tmp_path, _service(drive, _MIDDLE, sites))

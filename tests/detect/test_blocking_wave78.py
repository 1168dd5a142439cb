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

_CHAIN_HEAD = """
    import requests
    from fastapi import FastAPI

    app = FastAPI()


    def notify(item):
        requests.post("http://chat.invalid/hook", json={"item": item})


    async def drive(items, on_done=None):
        for item in items:
            if on_done:
                on_done(item)
"""

_CHAINS = {
    "one middle function, by keyword": """
        async def middle(items, on_done=None):
            await drive(items, on_done=on_done)


        @app.post("/run")
        async def run(items: list[str]):
            await middle(items, on_done=notify)
    """,
    "two middle functions, by position": """
        async def outer(items, cb):
            await middle(items, cb)


        async def middle(items, cb):
            await drive(items, cb)


        @app.post("/run")
        async def run(items: list[str]):
            await outer(items, notify)
    """,
    "a closure of the handler": """
        async def middle(items, on_done=None):
            await drive(items, on_done=on_done)


        @app.post("/run")
        async def run(items: list[str]):
            def done(item):
                notify(item)

            await middle(items, on_done=done)
    """,
}


@pytest.mark.parametrize("chain", list(_CHAINS.values()), ids=list(_CHAINS))
def test_a_callback_forwarded_through_parameters_runs_where_it_is_called(tmp_path, chain):
    found = flagged(tmp_path, _CHAIN_HEAD + chain)
    assert _NOTIFY in found


def test_a_forwarded_callback_called_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
    import asyncio

    import requests
    from fastapi import FastAPI

    app = FastAPI()


    def notify(item):
        requests.post("http://chat.invalid/hook", json={"item": item})


    async def drive(items, on_done=None):
        for item in items:
            await asyncio.to_thread(on_done, item)


    async def middle(items, on_done=None):
        await drive(items, on_done=on_done)


    @app.post("/run")
    async def run(items: list[str]):
        await middle(items, on_done=notify)
    """)
    assert not found


def test_a_forwarded_parameter_the_last_function_never_calls_is_silent(tmp_path):
    found = flagged(tmp_path, """
    import requests
    from fastapi import FastAPI

    app = FastAPI()
    HOOKS = []


    def notify(item):
        requests.post("http://chat.invalid/hook", json={"item": item})


    async def drive(items, on_done=None):
        HOOKS.append(on_done)
        return len(items)


    async def middle(items, on_done=None):
        await drive(items, on_done=on_done)


    @app.post("/run")
    async def run(items: list[str]):
        await middle(items, on_done=notify)
    """)
    assert not found


_MIXED = """
    async def middle(items, on_done=None):
        await drive(items, on_done=on_done)


    @app.post("/quiet")
    async def quiet(items: list[str]):
        await middle(items, on_done=lambda item: None)
"""


def test_a_callback_forwarded_at_one_call_site_runs_there_when_another_passes_a_lambda(tmp_path):
    found = flagged(tmp_path, _CHAIN_HEAD + _MIXED + """

    @app.post("/run")
    async def run(items: list[str]):
        await middle(items, on_done=notify)
    """)
    assert _NOTIFY in found


def test_a_callback_forwarded_to_a_function_run_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
    import requests
    from asgiref.sync import sync_to_async
    from fastapi import FastAPI

    app = FastAPI()


    def notify(item):
        requests.post("http://chat.invalid/hook", json={"item": item})


    @sync_to_async
    def drive(items, on_done=None):
        for item in items:
            on_done(item)


    async def middle(items, on_done=None):
        await drive(items, on_done=on_done)


    @app.post("/quiet")
    async def quiet(items: list[str]):
        await middle(items, on_done=lambda item: None)


    @app.post("/run")
    async def run(items: list[str]):
        await middle(items, on_done=notify)
    """)
    assert not found

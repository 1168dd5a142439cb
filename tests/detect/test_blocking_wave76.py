"""check blocking: the kind held-out wave 76 (issue 17; LLM gateways and chat backends) left, fixed by kind.

A loop variable (a comprehension's, ``next(iter(xs))``, ``xs[0]``) takes the element type a container's annotation
writes: a method or function returning ``list[X]``, an attribute annotated ``list[X]``, a filtered comprehension or a
``+`` of such lists. Each blocker is found at its line with its kind; each look-alike stays silent. Every example is
written for this test."""

from __future__ import annotations

import textwrap

import pytest

from tests.detect.blocking_source import flagged, flagged_package, joined

# -- a gateway's backends: an abstract base, a subclass calling out with requests ----------------------------------

_BACKENDS = """
    import abc

    import requests


    class Backend(abc.ABC):
        def answer(self, prompt: str) -> str:
            return self.send(prompt)

        @abc.abstractmethod
        def send(self, prompt: str) -> str:
            ...


    class EchoBackend(Backend):
        def send(self, prompt: str) -> str:
            return requests.post("http://echo.invalid/v1", json={"p": prompt}).text


    KINDS = {"echo": EchoBackend}
"""

_SLOTS = """
    from dataclasses import dataclass, field
    from typing import TYPE_CHECKING, Optional

    if TYPE_CHECKING:
        from .backends import Backend


    @dataclass
    class Slot:
        backend: "Backend"
        weight: int = 1
        idle: bool = True


    @dataclass
    class Route:
        name: str
        slots: list[Slot] = field(default_factory=list)

        def usable(self) -> list[Slot]:
            return [s for s in self.slots if s.weight > 0]


    class Table:
        def __init__(self):
            self.routes: dict[str, Route] = {}

        def find(self, name: str) -> Optional[Route]:
            return self.routes.get(name)
"""

_APP_HEAD = """
    from fastapi import FastAPI

    from .slots import Table

    app = FastAPI()
    table = Table()
"""

_SEND = ("backends.py", "blocking_http", 'return requests.post("http://echo.invalid/v1", json={"p": prompt}).text')


def _gateway(app: str, slots: str = _SLOTS, backends: str = _BACKENDS) -> set:
    return {"__init__.py": "", "backends.py": backends, "slots.py": slots, "app.py": joined(_APP_HEAD, app)}


_HANDLERS = {
    "a loop over a method annotated -> list[Slot]": """
        for slot in route.usable():
            return slot.backend.answer(prompt)
    """,
    "filtered comprehensions of it, concatenated": """
        ready = route.usable()
        fresh = [s for s in ready if s.idle]
        busy = [s for s in ready if not s.idle]
        order = fresh + busy
        for slot in order:
            return slot.backend.answer(prompt)
    """,
    "an attribute of another object annotated list[Slot]": """
        return [slot.backend.answer(prompt) for slot in route.slots]
    """,
    "an item of it by index, over the values of a dict annotated in __init__": """
        for other in table.routes.values():
            other.slots[0].backend.answer(prompt)
    """,
    "next(iter(...)) of the method's list": """
        slot = next(iter(table.find(name).usable()))
        return slot.backend.answer(prompt)
    """,
}


@pytest.mark.parametrize("body", list(_HANDLERS.values()), ids=list(_HANDLERS))
def test_an_element_of_an_annotated_container_is_followed(tmp_path, body):
    handler = """
        @app.post("/chat")
        async def chat(name: str, prompt: str):
            route = table.find(name)
    """
    found = flagged_package(tmp_path, _gateway(textwrap.dedent(handler) + textwrap.indent(textwrap.dedent(body), "    ")))
    assert _SEND in found


def test_an_elements_async_method_awaited_is_silent(tmp_path):
    found = flagged_package(tmp_path, _gateway("""
        @app.post("/chat")
        async def chat(name: str, prompt: str):
            route = table.find(name)
            for slot in route.usable():
                return await slot.backend.answer(prompt)
    """, backends="""
        import abc

        import httpx


        class Backend(abc.ABC):
            async def answer(self, prompt: str) -> str:
                return await self.send(prompt)

            @abc.abstractmethod
            async def send(self, prompt: str) -> str:
                ...


        class EchoBackend(Backend):
            async def send(self, prompt: str) -> str:
                async with httpx.AsyncClient() as client:
                    return (await client.post("http://echo.invalid/v1", json={"p": prompt})).text
    """))
    assert not found


def test_an_elements_sync_method_offloaded_is_silent(tmp_path):
    found = flagged_package(tmp_path, _gateway("""
        import asyncio


        @app.post("/chat")
        async def chat(name: str, prompt: str):
            route = table.find(name)
            fresh = [s for s in route.usable() if s.idle]
            for slot in fresh + route.usable():
                return await asyncio.to_thread(slot.backend.answer, prompt)
    """))
    assert not found


# -- functions of one module -------------------------------------------------------------------------------------------

_WORKERS = """
    import time
    from typing import Iterable, Sequence


    class Worker:
        def drain(self) -> None:
            time.sleep(0.5)


    class Quiet:
        def drain(self) -> None:
            return None


    def workers() -> Sequence["Worker"]:
        return [Worker(), Worker()]


    def quiet() -> Iterable[Quiet]:
        return [Quiet()]


    def pairs() -> tuple[Worker, ...]:
        return (Worker(),)


    def named() -> dict[str, Worker]:
        return {"a": Worker()}
"""


def test_a_function_annotated_sequence_of_a_forward_reference(tmp_path):
    found = flagged(tmp_path, _WORKERS + """
    async def stop():
        for w in workers():
            w.drain()
    """)
    assert ("blocking_sleep", "time.sleep(0.5)") in found


def test_a_tuple_and_a_dicts_items_from_annotated_functions(tmp_path):
    found = flagged(tmp_path, _WORKERS + """
    async def stop():
        for _, w in named().items():
            w.drain()
    """)
    assert ("blocking_sleep", "time.sleep(0.5)") in found
    found = flagged(tmp_path, _WORKERS + """
    async def stop():
        first = pairs()[0]
        first.drain()
    """)
    assert ("blocking_sleep", "time.sleep(0.5)") in found


def test_elements_whose_method_does_not_block_are_silent(tmp_path):
    found = flagged(tmp_path, _WORKERS + """
    async def stop():
        for q in quiet():
            q.drain()
    """)
    assert not found

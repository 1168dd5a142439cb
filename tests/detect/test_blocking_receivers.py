"""check blocking: receivers whose class the code never writes at the call -- the class ``self`` is along the call
path (a base's sync helper calling an abstract method), a generic manager's type parameter, a dict attribute of
models filled elsewhere, a module global set from a loader's return in another module (the run-time choices:
test_blocking_choices.py) -- each blocker found at its line, each healthy look-alike (offloaded, awaited, or a harmless class) silent.
Every example is written for this test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def flagged_dir(root: Path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    """``(file, kind, stripped line)`` of every finding of a directory of sources written for a test."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    report = analyze_path(root)
    assert report.complete
    out = set()
    for f in report.findings:
        path = Path(f.location["file"])
        out.add((path.relative_to(root).as_posix(), f.kind,
                 path.read_text().splitlines()[f.location["line"] - 1].strip()))
    return out


def test_self_in_a_base_helper_is_the_class_the_call_path_knows(tmp_path):
    found = flagged(tmp_path, """
        import subprocess
        import time
        from abc import ABC, abstractmethod

        class Renderer(ABC):
            def render(self, text):
                return self._draw(text)

            @abstractmethod
            def _draw(self, text): ...

        class Slow(Renderer):
            def _draw(self, text):
                return subprocess.run(["convert", text])

            async def handle(self, text):
                return self.render(text)

        class Fast(Renderer):
            def _draw(self, text):
                return text.upper()

            async def handle(self, text):
                return self.render(text)

        class Sleepy(Renderer):
            def _draw(self, text):
                time.sleep(1)

        async def any_renderer(renderer: Renderer, text):
            return renderer.render(text)
    """)
    # Fast.handle's self is a Fast: only Fast._draw runs there (silent); a bare Renderer may be any subclass
    assert found == {("blocking_subprocess", 'return subprocess.run(["convert", text])'),
                     ("blocking_sleep", "time.sleep(1)")}
    report = analyze_path(tmp_path / "svc.py")
    entries = {f.evidence["call"]: sorted(f.evidence["entries"]) for f in report.findings}
    assert entries['subprocess.run(["convert", text])'] == ["Slow.handle", "any_renderer"]
    assert entries["time.sleep(1)"] == ["any_renderer"]


def test_an_override_of_a_concrete_base_method_runs_for_the_subclass_receiver(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Source:
            def fetch(self, url):
                return self.get(url)

            def get(self, url):
                return url

        class Remote(Source):
            def get(self, url):
                return requests.get(url)

        class Local(Source):
            pass

        async def pull(remote: Remote, local: Local, url):
            local.fetch(url)
            return remote.fetch(url)
    """)
    assert found == {("blocking_http", "return requests.get(url)")}


def test_a_generic_managers_type_parameter_is_the_model_it_yields(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from contextlib import contextmanager
        from typing import Generic, Iterator, TypeVar

        import onnxruntime

        T = TypeVar("T")

        class Lease(Generic[T]):
            def __init__(self, model: T):
                self.model = model

            def __enter__(self) -> T:
                return self.model

            def __exit__(self, *exc):
                return None

        class Manager(Generic[T]):
            def __init__(self):
                self.cache = {}

            def lease(self, name: str) -> Lease[T]:
                return self.cache[name]

            @contextmanager
            def borrow(self, name: str) -> Iterator[T]:
                yield self.cache[name]

        class Detector:
            def __init__(self, path):
                self.session = onnxruntime.InferenceSession(path)

            def __call__(self, frame):
                return self.session.run(None, {"x": frame})

        class Labeller:
            def __call__(self, frame):
                return [frame]

        class DetectorManager(Manager[Detector]):
            pass

        async def detect(manager: DetectorManager, frame):
            with manager.lease("d") as detector:
                boxes = detector(frame)
            with manager.borrow("d") as again:
                boxes += again(frame)
            return boxes

        async def label(manager: Manager[Labeller], frame):
            with manager.lease("l") as labeller:
                return labeller(frame)

        def detect_sync(manager: DetectorManager, frame):
            with manager.lease("d") as detector:
                return detector(frame)

        async def detect_offloaded(manager: DetectorManager, frame):
            return await asyncio.to_thread(detect_sync, manager, frame)
    """)
    assert found == {("blocking_cpu", 'return self.session.run(None, {"x": frame})')}
    report = analyze_path(tmp_path / "svc.py")
    assert [f.evidence["entries"] for f in report.findings] == [["detect"]]
    assert {o["function"] for o in report.offloaded} == {"detect_sync"}


def test_a_dict_attribute_of_models_has_the_type_stored_under_its_key(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import speechkit
        from speechkit import Diarizer

        class Engine:
            def __init__(self):
                self.models = {"asr": None, "diarizer": None, "cache": {}}
                self.notes: dict[str, Note] = {}

            def load(self):
                self.models["asr"] = speechkit.load_asr_model("base")
                self.models["diarizer"] = Diarizer()

            async def transcribe(self, audio):
                text = self.models["asr"].transcribe(audio)
                self.models["cache"].get(audio)
                self.notes["last"].write(text)
                return text

            async def transcribe_offloaded(self, audio):
                return await asyncio.to_thread(self.models["asr"].transcribe, audio)

        class Note:
            def write(self, text):
                with open("notes.txt", "a") as out:
                    out.write(text)

        class Pool:
            def __init__(self):
                self.clients = {}

            def add(self, name):
                self.clients[name] = Note()

            async def handle(self, name, text):
                self.clients[name].write(text)
                self.clients.get(name).write(text)
    """)
    assert found == {("blocking_cpu", 'text = self.models["asr"].transcribe(audio)'),
                     ("blocking_file_io", 'with open("notes.txt", "a") as out:')}
    report = analyze_path(tmp_path / "svc.py")
    opened = [f for f in report.findings if f.kind == "blocking_file_io"]
    assert sorted(opened[0].evidence["entries"]) == ["Engine.transcribe", "Pool.handle"]


def test_a_module_dict_filled_by_a_loader_types_its_elements(tmp_path):
    found = flagged(tmp_path, """
        import redis

        CLIENTS = {}
        NAMES = {}

        def connect(name, url):
            CLIENTS[name] = redis.Redis.from_url(url)
            NAMES[name] = name.upper()

        async def count(name):
            NAMES[name].lower()
            return CLIENTS[name].incr("hits")
    """)
    assert found == {("blocking_db", 'return CLIENTS[name].incr("hits")')}


def test_a_module_global_set_from_a_loaders_tuple_in_another_module(tmp_path):
    found = flagged_dir(tmp_path / "svc", {
        "state.py": """
            model = None
            tokenizer = None
            cache = None
        """,
        "loading.py": """
            from transformers import AutoModelForCausalLM, AutoTokenizer

            class Cache:
                def lookup(self, key):
                    return key

            def load(name):
                model = AutoModelForCausalLM.from_pretrained(name)
                tokenizer = AutoTokenizer.from_pretrained(name)
                return model, tokenizer

            def fresh_cache():
                return Cache(), None
        """,
        "main.py": """
            import asyncio

            import state
            from loading import fresh_cache, load

            def startup(name):
                state.model, state.tokenizer = load(name)
                state.cache, _ = fresh_cache()

            def reply(prompt):
                ids = state.tokenizer(prompt)
                state.cache.lookup(prompt)
                return state.model.generate(ids)

            async def chat(prompt):
                return reply(prompt)

            async def chat_offloaded(prompt):
                return await asyncio.to_thread(reply, prompt)
        """,
    })
    assert found == {("main.py", "blocking_cpu", "return state.model.generate(ids)")}


def test_an_override_reached_through_the_base_runs_its_subclasses_overrides(tmp_path):
    found = flagged(tmp_path, """
        import time
        from abc import ABC, abstractmethod

        class Model(ABC):
            @abstractmethod
            def step(self, batch): ...

        class Causal(Model):
            def step(self, batch):
                return self.forward(batch)

            def forward(self, batch):
                return batch

        class Vision(Causal):
            def forward(self, batch):
                time.sleep(0.5)
                return batch

        class Plain(Model):
            def step(self, batch):
                return batch

            def forward(self, batch):
                return open("never-read-by-step.bin").read()

        class Service:
            def __init__(self, model: Model):
                self.model = model

            async def prefill(self, batch):
                return self.model.step(batch)

        async def plain_only(model: Plain, batch):
            return model.step(batch)
    """)
    # Causal.step's `self` may be a Vision (its forward runs there), never a Plain (a sibling of Causal)
    assert found == {("blocking_sleep", "time.sleep(0.5)")}
    assert [f.evidence["entries"] for f in analyze_path(tmp_path / "svc.py").findings] == [["Service.prefill"]]


def test_reading_a_property_runs_its_getter(tmp_path):
    found = flagged(tmp_path, """
        import json
        from functools import cached_property

        class Settings:
            @property
            def values(self):
                with open("settings.json") as f:
                    return json.load(f)

            @cached_property
            def name(self):
                return "svc"

            def reload(self):
                return self.values

        async def handler(settings: Settings):
            name = settings.name
            reload = settings.reload
            return settings.values[name], reload
    """)
    assert found == {("blocking_file_io", 'with open("settings.json") as f:')}

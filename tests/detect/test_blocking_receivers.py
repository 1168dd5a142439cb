"""check blocking: receivers whose class the code never writes at the call -- the class ``self`` is along the call
path (a base's sync helper calling an abstract method), a generic manager's type parameter, a dict attribute of
models filled elsewhere, a module global set from a loader's return in another module, a class chosen at run
time -- each blocker found at its line, each healthy look-alike (offloaded, awaited, or a harmless class) silent.
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


def test_a_class_chosen_at_run_time_and_a_factorys_closure(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import subprocess

        import onnxruntime

        class Backend:
            def run(self, x):
                raise NotImplementedError

        class OnnxBackend(Backend):
            def __init__(self, path):
                self.session = onnxruntime.InferenceSession(path)

            def run(self, x):
                return self.session.run(None, {"x": x})

        class EchoBackend(Backend):
            def __init__(self, path):
                self.path = path

            def run(self, x):
                return x

        def make_runner(path):
            def run(x):
                return subprocess.run(["engine", path, x])
            return run

        def make_echo(path):
            def echo(x):
                return x
            return echo

        class Service:
            def __init__(self, path):
                self.runner = make_runner(path)
                self.echo = make_echo(path)

            async def call(self, x):
                self.echo(x)
                return self.runner(x)

        async def predict(path, x, fast):
            Chosen = OnnxBackend if fast else EchoBackend
            backend = Chosen(path)
            return backend.run(x)

        async def echo_only(path, x):
            local = make_echo(path)
            return local(x)

        async def predict_offloaded(path, x):
            runner = make_runner(path)
            return await asyncio.to_thread(runner, x)
    """)
    assert found == {("blocking_file_io", "self.session = onnxruntime.InferenceSession(path)"),
                     ("blocking_cpu", 'return self.session.run(None, {"x": x})'),
                     ("blocking_subprocess", 'return subprocess.run(["engine", path, x])')}


def test_a_union_receiver_runs_each_members_method(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time
        from typing import Optional, Union

        class Slow:
            def generate(self, prompt):
                time.sleep(1)
                yield prompt

        class Quick:
            def generate(self, prompt):
                yield prompt

        class Other:
            def generate(self, prompt):
                yield prompt

        async def complete(model: Union[Slow, Quick], prompt):
            return [token for token in model.generate(prompt)]

        async def complete_quick(model: Optional[Quick | Other], prompt):
            return [token for token in model.generate(prompt)]

        async def complete_offloaded(model: Union[Slow, Quick], prompt):
            return await asyncio.to_thread(lambda: list(model.generate(prompt)))
    """)
    assert found == {("blocking_sleep", "time.sleep(1)")}


def test_parameters_filled_by_a_decorator_a_base_init_or_a_functions_own_import(tmp_path):
    found = flagged(tmp_path, """
        from functools import wraps

        from sqlalchemy import create_engine
        from sqlalchemy.orm import sessionmaker

        Maker = sessionmaker(bind=create_engine("sqlite://"))

        def with_session(func):
            @wraps(func)
            def wrapper(*args, **kwargs):
                kwargs["session"] = Maker()
                return func(*args, **kwargs)
            return wrapper

        @with_session
        def add_row(row, session):
            session.add(row)
            session.commit()

        def plain_add(row, session):
            session.append(row)

        async def create(row):
            plain_add(row, [])
            return add_row(row)

        class Engine:
            def __init__(self, model):
                self.model = model

            def complete(self, prompt):
                return self.model.create_completion(prompt)

        class TextEngine(Engine):
            def __init__(self, model):
                super().__init__(model)

        def Llama(path):
            from llama_cpp import Llama
            return TextEngine(Llama(model_path=path))

        async def answer(path, prompt):
            engine = Llama(path)
            return engine.complete(prompt)
    """)
    assert ("blocking_db", "session.commit()") in found
    assert ("blocking_cpu", "return self.model.create_completion(prompt)") in found
    assert not any("append" in line for _, line in found)


def test_in_memory_buffers_and_module_globals_unpacked_from_a_tuple(tmp_path):
    found = flagged(tmp_path, """
        import io

        import requests
        import torch

        def make_client():
            return "cfg", requests.Session()

        config, client = make_client()

        async def snapshot(tensor, data, path):
            buffer = io.BytesIO()
            torch.save(tensor, buffer)
            restored = torch.load(io.BytesIO(data), weights_only=True)
            torch.save(tensor, path)
            client.get("http://loopback/health")
            config.upper()
            return buffer.getvalue(), restored
    """)
    assert found == {("blocking_cpu", "restored = torch.load(io.BytesIO(data), weights_only=True)"),
                     ("blocking_file_io", "torch.save(tensor, path)"),
                     ("blocking_http", 'client.get("http://loopback/health")')}


def test_a_global_switched_between_models_may_be_any_of_them(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from sentence_transformers import SentenceTransformer
        from transformers import AutoModel

        embedder = None
        labels = None

        def load(name, fast):
            global embedder, labels
            if fast:
                embedder = AutoModel.from_pretrained(name)
            else:
                embedder = SentenceTransformer(name)
            labels = ["a", "b"]

        def current():
            return embedder

        async def embed(texts):
            model = current()
            labels.index("a")
            return model.encode(texts)

        async def embed_offloaded(texts):
            model = current()
            return await asyncio.to_thread(model.encode, texts)
    """)
    assert found == {("blocking_cpu", "return model.encode(texts)")}


def test_a_class_reference_chosen_in_branches(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM

        class Echo:
            @classmethod
            def from_pretrained(cls, name):
                return cls()

        class Quiet:
            @classmethod
            def from_pretrained(cls, name):
                return cls()

        async def load(name, seq2seq):
            if seq2seq:
                Loader = AutoModelForSeq2SeqLM
            else:
                Loader = AutoModelForCausalLM
            return Loader.from_pretrained(name)

        async def load_local(name, quiet):
            if quiet:
                Loader = Quiet
            else:
                Loader = Echo
            return Loader.from_pretrained(name)
    """)
    assert found == {("blocking_file_io", "return Loader.from_pretrained(name)")}
    assert [f.location["function"] for f in analyze_path(tmp_path / "svc.py").findings] == ["load"]


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
                return self.forward(batch)

            def forward(self, batch):
                return batch

        class Service:
            def __init__(self, model: Model):
                self.model = model

            async def prefill(self, batch):
                return self.model.step(batch)

        async def plain_only(model: Plain, batch):
            return model.step(batch)
    """)
    # Causal.step's `self` may be a Vision: its forward runs there
    assert found == {("blocking_sleep", "time.sleep(0.5)")}
    assert [f.evidence["entries"] for f in analyze_path(tmp_path / "svc.py").findings] == [["Service.prefill"]]

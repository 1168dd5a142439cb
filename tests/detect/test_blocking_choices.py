"""check blocking: receivers that may hold one of several classes or a value the code puts elsewhere -- a class
chosen at run time (an if-expression, assignments in branches), a factory's returned function, ``Union[A, B]``,
parameters a decorator injects or a subclass passes to ``super().__init__``, a function's own imports, module
globals unpacked from a tuple, a global switched between model types, writes into an in-memory buffer -- each
blocker found at its line, each healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged

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
            Loader = Echo
            if quiet:
                Loader = Quiet
            return Loader.from_pretrained(name)
    """)
    assert found == {("blocking_file_io", "return Loader.from_pretrained(name)")}
    assert [f.location["function"] for f in analyze_path(tmp_path / "svc.py").findings] == ["load"]

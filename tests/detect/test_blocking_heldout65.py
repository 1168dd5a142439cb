"""check blocking: the kinds held-out wave 65 (issue 17; model services outside FastAPI -- grpc.aio, aiohttp,
websockets, Litestar, Quart) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

import textwrap

from tests.detect.blocking_source import flagged, flagged_package


def _with(shared: str, extra: str) -> str:
    """A shared module source followed by the lines one test adds, both at the module's top level."""
    return textwrap.dedent(shared) + textwrap.dedent(extra)


# -- a model kept by an object a classmethod factory builds (-> Self, cls(...)) ----------------------------------------

_RANKER = """
    import torch
    from typing_extensions import Self


    class Ranker:
        def __init__(self, net: torch.nn.Module, vocab):
            self.net = net
            self.vocab = vocab

        @classmethod
        def restore(cls, folder) -> Self:
            net = torch.jit.load(folder + "/ranker.pt")
            ranker = cls(net=net, vocab=folder)
            return ranker

        def rank(self, ids):
            return self.net(torch.tensor(ids)).tolist()


    class RankService:
        def __init__(self, ranker):
            self.ranker = ranker
"""


def test_a_model_of_an_object_a_self_annotated_factory_builds_blocks(tmp_path):
    found = flagged(tmp_path, _with(_RANKER, """
        def build():
            return RankService(Ranker.restore("/srv/models"))


        class Handler:
            def __init__(self):
                self.ranker = Ranker.restore("/srv/models")

            async def Rank(self, request, context):
                return self.ranker.rank(list(request.ids))
    """))
    assert ("blocking_cpu", "return self.net(torch.tensor(ids)).tolist()") in found


def test_the_same_factory_product_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, _with(_RANKER, """
        import asyncio


        class Handler:
            def __init__(self):
                self.ranker = Ranker.restore("/srv/models")

            async def Rank(self, request, context):
                return await asyncio.to_thread(self.ranker.rank, list(request.ids))
    """))
    assert not found


_PROBES = """
    import time
    from typing import Self


    class Probe:
        @classmethod
        def make(cls) -> Self:
            return cls()

        def check(self):
            return True


    class SlowProbe(Probe):
        def check(self):
            time.sleep(0.5)
            return True


    class FastProbe(Probe):
        pass
"""


def test_self_on_a_subclass_runs_the_subclass_method(tmp_path):
    found = flagged(tmp_path, _with(_PROBES, """
        async def slow_health():
            return SlowProbe.make().check()
    """))
    assert found == {("blocking_sleep", "time.sleep(0.5)")}


def test_self_on_a_sibling_subclass_runs_its_own_method(tmp_path):
    found = flagged(tmp_path, _with(_PROBES, """
        async def fast_health():
            return FastProbe.make().check()
    """))
    assert not found


def test_an_unannotated_init_parameter_takes_what_cls_is_given(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoModelForSequenceClassification


        class Sentiment:
            def __init__(self, model, labels):
                self.model, self.labels = model, labels

            @classmethod
            def pretrained(cls, name):
                return cls(AutoModelForSequenceClassification.from_pretrained(name), ["neg", "pos"])

            def label(self, batch):
                return self.model(**batch).logits.argmax(-1)


        class Consumer:
            def __init__(self):
                self.sentiment = Sentiment.pretrained("some/checkpoint")

            async def on_message(self, batch):
                return self.sentiment.label(batch)
    """)
    assert ("blocking_cpu", "return self.model(**batch).logits.argmax(-1)") in found


def test_cls_given_plain_values_types_nothing(tmp_path):
    found = flagged(tmp_path, """
        class Window:
            def __init__(self, size, items=None):
                self.size, self.items = size, items or []

            @classmethod
            def empty(cls, size):
                return cls(size)

            def push(self, item):
                self.items.append(item)
                return self.items[-self.size:]


        WINDOW = Window.empty(8)


        async def on_item(item):
            return WINDOW.push(item)
    """)
    assert not found


# -- Optimum's ONNX Runtime models and tools; a class handed in as a parameter -------------------------------------------

def test_an_optimum_ort_model_call_blocks(tmp_path):
    found = flagged(tmp_path, """
        from optimum.onnxruntime import ORTModelForFeatureExtraction

        encoder = ORTModelForFeatureExtraction.from_pretrained("/srv/encoder")


        async def vectors(request):
            batch = await request.json()
            return encoder(**batch).last_hidden_state.mean(axis=1).tolist()
    """)
    assert ("blocking_cpu", "return encoder(**batch).last_hidden_state.mean(axis=1).tolist()") in found


def test_an_optimum_ort_model_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from optimum.onnxruntime import ORTModelForFeatureExtraction

        encoder = ORTModelForFeatureExtraction.from_pretrained("/srv/encoder")


        async def vectors(request):
            batch = await request.json()
            out = await asyncio.to_thread(lambda: encoder(**batch))
            return out.last_hidden_state.mean(axis=1).tolist()
    """)
    assert not found


_CONVERT = """
    from optimum.onnxruntime import ORTModelForQuestionAnswering, ORTModelForSeq2SeqLM, ORTOptimizer
    from optimum.onnxruntime.configuration import AutoOptimizationConfig


    def convert(checkpoint, model_class, target):
        model = model_class.from_pretrained(checkpoint, export=True)
        tuner = ORTOptimizer.from_pretrained(model)
        tuner.optimize(save_dir=target, optimization_config=AutoOptimizationConfig.O2())
        return target


    def convert_reader(checkpoint):
        return convert(checkpoint, model_class=ORTModelForQuestionAnswering, target="/tmp/reader")


    def convert_writer(checkpoint):
        return convert(checkpoint, ORTModelForSeq2SeqLM, "/tmp/writer")
"""


def test_a_model_class_handed_in_loads_and_the_optimiser_writes(tmp_path):
    found = flagged(tmp_path, _with(_CONVERT, """
        async def prepare(request):
            return convert_reader((await request.json())["checkpoint"])
    """))
    assert ("blocking_file_io", "model = model_class.from_pretrained(checkpoint, export=True)") in found
    assert ("blocking_file_io", "tuner.optimize(save_dir=target, optimization_config=AutoOptimizationConfig.O2())"
            ) in found


def test_the_conversion_in_a_worker_thread_is_silent(tmp_path):
    found = flagged(tmp_path, _with(_CONVERT, """
        import asyncio


        async def prepare(request):
            checkpoint = (await request.json())["checkpoint"]
            return await asyncio.to_thread(convert_writer, checkpoint)
    """))
    assert not found


def test_a_parameter_given_plain_functions_is_no_class(tmp_path):
    found = flagged(tmp_path, """
        def shout(text):
            return text.upper()


        def whisper(text):
            return text.lower()


        def render(text, style):
            return style.__name__ + ":" + style(text)


        async def loud(request):
            return render(await request.text(), shout)


        async def quiet(request):
            return render(await request.text(), style=whisper)
    """)
    assert not found



# -- a transformers model head named for tokens is a model, not a tokenizer ----------------------------------------------

def test_a_token_classification_model_global_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoModelForTokenClassification

        ner = AutoModelForTokenClassification.from_pretrained("/srv/ner")


        async def entities(encoded):
            return ner(**encoded).logits.argmax(-1)
    """)
    assert found == {("blocking_cpu", "return ner(**encoded).logits.argmax(-1)")}


def test_a_tokenizer_global_called_on_the_loop_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoTokenizer

        splitter = AutoTokenizer.from_pretrained("/srv/ner")


        async def pieces(text):
            return splitter(text, truncation=True)["input_ids"]
    """)
    assert not found


# -- functools.partial globals and the callables of a returned tuple (kept in an aiohttp application) -------------------

_SCORING = """
    from functools import partial

    import torch

    scorer = torch.jit.load("/srv/scorer.pt")


    def normalise(text, lower):
        return text.lower() if lower else text


    def score(text, net):
        with torch.inference_mode():
            return net(torch.tensor([len(text)])).item()


    prepare = partial(normalise, lower=True)
    rate = partial(score, net=scorer)


    def pipeline():
        return prepare, rate
"""


def test_a_global_partial_of_a_model_call_blocks(tmp_path):
    found = flagged(tmp_path, _with(_SCORING, """
        async def handle(request):
            return {"score": rate(await request.text())}
    """))
    assert ("blocking_cpu", "return net(torch.tensor([len(text)])).item()") in found


def test_a_global_partial_handed_to_an_executor_is_silent(tmp_path):
    found = flagged(tmp_path, _with(_SCORING, """
        import asyncio


        async def handle(request):
            text = await request.text()
            return {"score": await asyncio.get_running_loop().run_in_executor(None, rate, text)}
    """))
    assert not found


def _served(handler: str, route: str) -> dict[str, str]:
    """The scoring module and an aiohttp app module keeping its pipeline under app["pipeline"], with ``handler``."""
    name = handler.split("async def ", 1)[1].split("(", 1)[0]
    app = textwrap.dedent("""
        from aiohttp import web

        from svc.scoring import pipeline
    """) + textwrap.dedent(handler) + textwrap.dedent(f"""

        def make_app():
            app = web.Application()
            app["pipeline"] = pipeline()
            app.router.add_post("{route}", {name})
            return app
    """)
    return {"scoring.py": _SCORING, "app.py": app}


def test_the_model_item_of_a_tuple_kept_in_an_aiohttp_app_blocks(tmp_path):
    found = flagged_package(tmp_path, _served("""
        async def rate_text(request):
            clean, rate = request.app["pipeline"]
            return web.json_response({"score": rate(clean(await request.text()))})
    """, "/rate"))
    assert ("scoring.py", "blocking_cpu", "return net(torch.tensor([len(text)])).item()") in found


def test_the_cheap_item_of_the_same_tuple_is_silent(tmp_path):
    found = flagged_package(tmp_path, _served("""
        async def clean_text(request):
            clean, _ = request.app["pipeline"]
            return web.json_response({"text": clean(await request.text())})
    """, "/clean"))
    assert not found


def test_a_local_unpacked_from_a_returned_tuple_runs_its_item(tmp_path):
    found = flagged(tmp_path, _with(_SCORING, """
        async def handle(text):
            prep, run = pipeline()
            return run(prep(text))
    """))
    assert ("blocking_cpu", "return net(torch.tensor([len(text)])).item()") in found


# -- PortAudio initialisation ------------------------------------------------------------------------------------------

def test_constructing_pyaudio_in_a_coroutine_blocks(tmp_path):
    found = flagged(tmp_path, """
        import pyaudio


        class Speaker:
            def __init__(self):
                self.audio = pyaudio.PyAudio()

            def play(self, frames):
                return len(frames)


        async def stream_reply(ws):
            out = Speaker()
            async for frames in ws:
                out.play(frames)
    """)
    assert ("blocking_file_io", "self.audio = pyaudio.PyAudio()") in found


def test_pyaudio_constants_and_a_constructor_run_in_a_thread_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import pyaudio

        WIDTH = pyaudio.get_sample_size(pyaudio.paInt16)


        async def stream_reply(ws):
            audio = await asyncio.to_thread(pyaudio.PyAudio)
            async for frames in ws:
                await ws.send(str(len(frames) // WIDTH))
            return audio
    """)
    assert not found


# -- commonmeta: a metadata lookup by identifier, and the deposit writers ------------------------------------------------

def test_commonmeta_metadata_of_an_identifier_blocks(tmp_path):
    found = flagged(tmp_path, """
        from commonmeta import Metadata


        async def cite(work_id: str):
            record = Metadata(work_id)
            return record.titles


        async def cite_lowered(raw):
            handle = raw["doi"]
            handle = handle.strip()
            return Metadata(handle).titles


        async def cite_feed(slug):
            return Metadata(f"https://feeds.example.org/{slug}", via="jsonfeed").titles
    """)
    assert {("blocking_http", "record = Metadata(work_id)"), ("blocking_http", "return Metadata(handle).titles"),
            ("blocking_http", 'return Metadata(f"https://feeds.example.org/{slug}", via="jsonfeed").titles')} <= found


def test_commonmeta_metadata_of_a_mapping_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from commonmeta import Metadata


        async def render(row: dict):
            return Metadata(row, via="commonmeta").write(to="bibtex")


        async def render_stored(db, key):
            entry = await db.fetch_one(key)
            entry = dict(entry)
            return Metadata(entry, via="jsonfeed").write()
    """)
    assert not found


def test_commonmeta_deposit_writers_block_and_offloaded_ones_do_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from commonmeta.writers.crossref_xml_writer import push_crossref_xml
        from commonmeta.writers.inveniordm_writer import push_inveniordm


        async def register(work, login, password):
            return push_crossref_xml(work, login_id=login, login_passwd=password)


        async def archive(work, host, token):
            return await asyncio.to_thread(push_inveniordm, work, host, token)
    """)
    assert found == {("blocking_http", "return push_crossref_xml(work, login_id=login, login_passwd=password)")}


# -- pypandoc's installer check --------------------------------------------------------------------------------------------

_PANDOC = """
    from functools import lru_cache

    import pypandoc


    @lru_cache(maxsize=1)
    def pandoc_ready():
        pypandoc.ensure_pandoc_installed(delete_installer=True)
        return True
"""


def test_the_pandoc_installer_check_on_first_use_blocks(tmp_path):
    found = flagged(tmp_path, _with(_PANDOC, """
        async def word_count(request):
            pandoc_ready()
            return len((await request.text()).split())
    """))
    assert found == {("blocking_subprocess", "pypandoc.ensure_pandoc_installed(delete_installer=True)")}


def test_the_pandoc_installer_check_filled_at_import_is_silent(tmp_path):
    found = flagged(tmp_path, _with(_PANDOC, """
        READY = pandoc_ready()


        async def word_count(request):
            pandoc_ready()
            return len((await request.text()).split())
    """))
    assert not found


# -- a model instance an Advanced Alchemy repository returns; SQLAlchemy init listeners --------------------------------

_ACCOUNTS = """
    import hashlib

    from advanced_alchemy.repository import SQLAlchemyAsyncRepository
    from sqlalchemy import event
    from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


    class Base(DeclarativeBase):
        pass


    class Member(Base):
        __tablename__ = "members"
        handle: Mapped[str] = mapped_column(primary_key=True)
        secret: Mapped[str] = mapped_column()

        def matches(self, attempt: str) -> bool:
            digest = hashlib.scrypt(attempt.encode(), salt=b"pepper", n=2**15, r=8, p=1, maxmem=2**26)
            return digest.hex() == self.secret

        def greeting(self) -> str:
            return "hello " + self.handle


    class MemberRepository(SQLAlchemyAsyncRepository[Member]):
        model_type = Member


    @event.listens_for(Member, "init")
    def derive_secret(target, args, kwargs):
        if "secret" in kwargs:
            kwargs["secret"] = hashlib.scrypt(kwargs["secret"].encode(), salt=b"pepper", n=2**15, r=8, p=1,
                                              maxmem=2**26).hex()
"""


def test_a_method_of_an_instance_a_repository_returned_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _with(_ACCOUNTS, """
        async def sign_in(members: MemberRepository, handle: str, attempt: str):
            if member := await members.get_one_or_none(Member.handle == handle):
                return member.matches(attempt)
            return False
    """))
    assert ("blocking_cpu",
            'digest = hashlib.scrypt(attempt.encode(), salt=b"pepper", n=2**15, r=8, p=1, maxmem=2**26)') in found


def test_a_cheap_method_of_the_same_instance_is_silent(tmp_path):
    found = flagged(tmp_path, _with(_ACCOUNTS, """
        async def welcome(members: MemberRepository, handle: str):
            member = await members.get_one(Member.handle == handle)
            return member.greeting()
    """))
    assert not found


def test_constructing_a_mapped_class_runs_its_init_listener(tmp_path):
    found = flagged(tmp_path, _with(_ACCOUNTS, """
        async def sign_up(members: MemberRepository, handle: str, secret: str):
            return await members.add(Member(handle=handle, secret=secret))
    """))
    assert ("blocking_cpu",
            'kwargs["secret"] = hashlib.scrypt(kwargs["secret"].encode(), salt=b"pepper", n=2**15, r=8, p=1,') in found


def test_a_listener_for_another_event_or_class_does_not_run_on_construction(tmp_path):
    found = flagged(tmp_path, """
        import hashlib

        from sqlalchemy import event
        from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


        class Base(DeclarativeBase):
            pass


        class Note(Base):
            __tablename__ = "notes"
            key: Mapped[str] = mapped_column(primary_key=True)


        class Tag(Base):
            __tablename__ = "tags"
            key: Mapped[str] = mapped_column(primary_key=True)


        @event.listens_for(Note, "load")
        def on_load(target, context):
            target.checksum = hashlib.scrypt(target.key.encode(), salt=b"s", n=2**15, r=8, p=1, maxmem=2**26)


        @event.listens_for(Tag, "init")
        def on_tag(target, args, kwargs):
            kwargs["key"] = hashlib.scrypt(kwargs["key"].encode(), salt=b"s", n=2**15, r=8, p=1, maxmem=2**26)


        async def make_note(session, key):
            session.add(Note(key=key))
            await session.commit()
    """)
    assert not found


# -- a streamed requests response read on the loop -----------------------------------------------------------------------

def test_reading_a_streamed_response_on_the_loop_blocks_at_each_read(tmp_path):
    found = flagged(tmp_path, """
        import requests


        async def relay(payload):
            upstream = requests.get("http://backend/export", params=payload, stream=True)
            if upstream.status_code >= 400:
                problem = upstream.json()
                raise RuntimeError(problem.get("detail"))

            async def chunks():
                for piece in upstream.iter_lines():
                    yield piece

            return chunks()
    """)
    assert {("blocking_http", "problem = upstream.json()"), ("blocking_http", "for piece in upstream.iter_lines():")
            } <= found


def test_a_second_read_of_a_stored_body_and_an_unstreamed_response_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import requests


        async def relay(payload):
            upstream = await asyncio.to_thread(requests.get, "http://backend/export", stream=True)
            body = await asyncio.to_thread(lambda: upstream.content)
            try:
                return upstream.json()
            except ValueError:
                return {"raw": upstream.text, "size": len(body)}


        async def plain(payload):
            reply = await asyncio.to_thread(requests.get, "http://backend/export")
            return reply.json()
    """)
    assert not found


def test_a_streamed_body_handed_on_as_an_iterator_is_read_where_it_is_iterated(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import requests
        from starlette.responses import StreamingResponse


        async def speak(text):
            audio = await asyncio.to_thread(requests.post, "http://tts/speak", json={"text": text}, stream=True)
            return StreamingResponse(audio.iter_content(chunk_size=4096), media_type="audio/mpeg")
    """)
    assert not found


# -- Fabric connections and the SFTP client they open ----------------------------------------------------------------------

def test_fabric_sftp_round_trips_block_as_socket_io(tmp_path):
    found = flagged(tmp_path, """
        from fabric import Connection


        def fetch_report(host, name):
            with Connection(host, user="reports") as link:
                with link.sftp() as channel:
                    size = channel.stat(name).st_size
                    with channel.open(name, "rb") as remote:
                        return remote.read(), size


        async def report(request):
            return fetch_report(request.query["host"], request.query["name"])[0]
    """)
    assert {("blocking_socket_io", "with link.sftp() as channel:"),
            ("blocking_socket_io", "size = channel.stat(name).st_size"),
            ("blocking_socket_io", 'with channel.open(name, "rb") as remote:'),
            ("blocking_socket_io", "return remote.read(), size")} <= found
    assert not any(kind == "blocking_db" for kind, _ in found)


def test_building_a_fabric_connection_and_offloaded_transfers_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from fabric import Connection


        def push(link, local_path):
            link.put(local_path, remote="/srv/inbox/")


        async def upload(host, local_path):
            link = Connection(host, user="deploy")
            await asyncio.to_thread(push, link, local_path)
            return link.host
    """)
    assert not found


# -- huggingface_hub's module-level functions of the default HfApi ---------------------------------------------------------

def test_hub_functions_bound_to_the_default_api_block(tmp_path):
    found = flagged(tmp_path, """
        from huggingface_hub import list_repo_commits, repo_exists


        async def newest(repo_id, known):
            if not repo_exists(repo_id):
                return None
            shas = map(lambda entry: entry.commit_id, list_repo_commits(repo_id))
            return next((s for s in shas if s in known), None)
    """)
    assert {("blocking_http", "if not repo_exists(repo_id):"),
            ("blocking_http", "shas = map(lambda entry: entry.commit_id, list_repo_commits(repo_id))")} <= found


def test_hub_helpers_without_requests_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from huggingface_hub import hf_hub_url, list_repo_commits


        async def links(repo_id, name):
            history = await asyncio.to_thread(list_repo_commits, repo_id)
            return [hf_hub_url(repo_id, name, revision=c.commit_id) for c in history]
    """)
    assert not found

"""check blocking: the kinds held-out wave 40 (issue 17; RAG and agent backends on AWS, an LLM router server, a
crawler and its server, a Quart bot API) got wrong, fixed by kind: boto3 resource actions (DynamoDB's Table) and the
data they return, attributes typed through a lazy property or stored under the class's own name, docling's
conversion, configuration objects taken for clients, a package importing itself, an absolute import beside a
module of the package's name, a local bound to different clients in different branches, an instance built from a
table of classes, a class's inherited ``from_pretrained``, and Hugging Face ``datasets`` loading.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package


# -- boto3 resources: an action sends a request; what it returns is the response, a dict --------------------------------
def test_dynamodb_table_actions_block_and_their_responses_are_data(tmp_path):
    found = flagged(tmp_path, """
        import boto3

        class Notes:
            def __init__(self):
                self.ddb = boto3.resource("dynamodb")
                self.notes = self.ddb.Table("notes")

            async def read(self, key):
                reply = self.notes.get_item(Key={"id": key})
                note = reply.get("Item")
                return note.get("body") if note else None

            async def search(self, owner):
                page = self.notes.query(KeyConditionExpression=owner)
                return [n.get("id") for n in page.get("Items", [])]

            async def save_all(self, rows):
                with self.notes.batch_writer() as batch:
                    for row in rows:
                        batch.put_item(Item=row)

            async def pair(self, keys):
                got = self.ddb.meta.client.batch_get_item(RequestItems={"notes": {"Keys": keys}})
                return got.get("Responses", {}).get("notes", [])

            async def rename(self, key, title):
                out = self.notes.update_item(Key={"id": key}, UpdateExpression="SET t = :t",
                                             ExpressionAttributeValues={":t": title}, ReturnValues="ALL_NEW")
                return out.get("Attributes", {}).get("t")
    """)
    assert found == {
        ("blocking_http", 'reply = self.notes.get_item(Key={"id": key})'),
        ("blocking_http", "page = self.notes.query(KeyConditionExpression=owner)"),
        ("blocking_http", "batch.put_item(Item=row)"),
        ("blocking_http", 'got = self.ddb.meta.client.batch_get_item(RequestItems={"notes": {"Keys": keys}})'),
        ("blocking_http", 'out = self.notes.update_item(Key={"id": key}, UpdateExpression="SET t = :t",'),
    }


def test_an_s3_object_get_still_blocks_and_reading_its_body_too(tmp_path):
    found = flagged(tmp_path, """
        import boto3

        async def fetch(bucket, key):
            s3 = boto3.resource("s3")
            obj = s3.Object(bucket, key)
            head = obj.get()
            return head["Body"].read()
    """)
    assert found == {
        ("blocking_http", 's3 = boto3.resource("s3")'),
        ("blocking_http", "head = obj.get()"),
        ("blocking_http", 'return head["Body"].read()'),
    }


# -- attributes: a lazy property's value, and one stored under the class's name --------------------------------------
def test_a_table_reached_through_lazy_properties_and_a_class_level_cache(tmp_path):
    found = flagged(tmp_path, """
        import boto3

        class Sessions:
            _shared = None

            def __init__(self, name):
                self.name = name
                self._db = None
                self._table = None

            @property
            def db(self):
                if self._db is None:
                    self._db = boto3.resource("dynamodb")
                return self._db

            @property
            def table(self):
                if self._table is None:
                    self._table = self.db.Table(self.name)
                return self._table

            async def find(self, sid):
                return self.table.get_item(Key={"sid": sid})

            def _cached(self):
                if Sessions._shared is None:
                    Sessions._shared = boto3.resource("dynamodb").Table("shared")
                return Sessions._shared

            def _lookup(self, table, sid):
                return table.query(KeyConditionExpression=sid)

            async def shared(self, sid):
                return self._lookup(self._cached(), sid)

            async def label(self):
                return self.name.upper()
    """)
    assert found == {
        ("blocking_http", 'self._db = boto3.resource("dynamodb")'),
        ("blocking_http", 'return self.table.get_item(Key={"sid": sid})'),
        ("blocking_http", 'Sessions._shared = boto3.resource("dynamodb").Table("shared")'),
        ("blocking_http", "return table.query(KeyConditionExpression=sid)"),
    }


# -- docling: convert runs the layout/OCR pipeline; building the converter does not -----------------------------------
def test_docling_convert_blocks_building_the_converter_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from docling.document_converter import DocumentConverter

        async def to_markdown(path):
            converter = DocumentConverter()
            result = converter.convert(path)
            return result.document.export_to_markdown()

        async def offloaded(path):
            converter = DocumentConverter()
            result = await asyncio.to_thread(converter.convert, path)
            return result.document.export_to_markdown()
    """)
    assert found == {("blocking_cpu", "result = converter.convert(path)")}


# -- an inferred client: a configuration object holding a credentialed one is not a client -----------------------------
def test_a_settings_object_given_a_credentialed_strategy_is_not_a_client(tmp_path):
    found = flagged(tmp_path, """
        from vendorkit import FetchSettings, Extractor, Fetcher

        TOKEN = "secret"

        async def run(data):
            cfg = FetchSettings(extractor=Extractor(api_token=TOKEN))
            again = FetchSettings.load(data)
            return cfg.dump(), again

        async def fetch(url):
            fetcher = Fetcher(api_key=TOKEN)
            return fetcher.download(url)
    """)
    assert {line for _, line in found} == {"return fetcher.download(url)"}


# -- importlib.import_module of the caller's own package: already in sys.modules --------------------------------------
def test_importing_the_package_that_encloses_the_caller_is_a_lookup(tmp_path):
    found = flagged_package(tmp_path, {
        "mypkg/__init__.py": "",
        "mypkg/sub/__init__.py": "",
        "mypkg/sub/loader.py": """
            import importlib

            async def own(name):
                return getattr(importlib.import_module("mypkg"), name)

            async def own_sub(name):
                return getattr(importlib.import_module("mypkg.sub"), name)

            async def looped(name):
                for path in ["mypkg"]:
                    mod = importlib.import_module(path)
                    if hasattr(mod, name):
                        return getattr(mod, name)

            async def plugin(name):
                return importlib.import_module("mypkg_plugins")

            async def sibling_module():
                return importlib.import_module("mypkg.extra")

            async def looped_mixed():
                for path in ["mypkg", "otherpkg"]:
                    importlib.import_module(path)
        """,
    })
    assert found == {
        ("mypkg/sub/loader.py", "blocking_file_io", 'return importlib.import_module("mypkg_plugins")'),
        ("mypkg/sub/loader.py", "blocking_file_io", 'return importlib.import_module("mypkg.extra")'),
        ("mypkg/sub/loader.py", "blocking_file_io", "importlib.import_module(path)"),
    }


# -- `from svc.rag import Rag` inside the package svc, beside a module svc.py that has no `rag` -------------------------
def test_an_absolute_import_of_the_package_beside_a_module_of_its_name(tmp_path):
    found = flagged_package(tmp_path, {
        "__init__.py": "",
        "svc.py": """
            def health():
                return "ok"
        """,
        "rag.py": """
            import subprocess

            class Rag:
                def prepare(self, url):
                    subprocess.run(["git", "clone", url], check=True)
        """,
        "chat.py": """
            from svc.rag import Rag
            from svc.svc import health

            async def ask(url):
                Rag().prepare(url)
                return health()
        """,
    })
    assert found == {("rag.py", "blocking_subprocess", 'subprocess.run(["git", "clone", url], check=True)')}


# -- a local bound to the project's client in one branch and to a library's in another --------------------------------
def test_a_method_only_the_library_value_of_a_branch_bound_local_has(tmp_path):
    found = flagged(tmp_path, """
        import google.generativeai as genai

        class LocalModel:
            def prepare(self, prompt):
                return {"prompt": prompt}

            async def acall(self, kwargs):
                return kwargs

        async def answer(provider, prompt):
            if provider == "local":
                model = LocalModel()
                kwargs = model.prepare(prompt)
            else:
                model = genai.GenerativeModel(model_name="gemini")

            async def stream():
                if provider == "local":
                    yield await model.acall(kwargs)
                else:
                    for part in model.generate_content(prompt, stream=True):
                        yield part.text
            return stream()

        async def own_method(provider, prompt):
            if provider == "local":
                model = LocalModel()
            else:
                model = genai.GenerativeModel(model_name="gemini")
            return model.prepare(prompt)
    """)
    assert found == {("blocking_http", "for part in model.generate_content(prompt, stream=True):")}


# -- an instance built from a table of classes is one of their shared base ---------------------------------------------
def test_an_instance_from_an_imported_table_of_classes_runs_the_subclasses_work(tmp_path):
    found = flagged_package(tmp_path, {
        "scorers.py": """
            import abc
            import time

            class Scorer(abc.ABC):
                @abc.abstractmethod
                def score(self, text):
                    ...

                def pick(self, text):
                    return self.score(text) > 0.5

            class Slow(Scorer):
                def __init__(self, path):
                    with open(path) as f:
                        self.weights = f.read()

                def score(self, text):
                    time.sleep(0.2)
                    return 0.7

            class Fast(Scorer):
                def score(self, text):
                    return 0.1

            SCORERS = {"slow": Slow, "fast": Fast}
        """,
        "hub.py": """
            from scorers import SCORERS

            class Hub:
                def __init__(self, names):
                    self.scorers = {}
                    for name in names:
                        self.scorers[name] = SCORERS[name]("weights.txt")

                def choose(self, name, text):
                    return self.scorers[name].pick(text)

            async def start(names):
                return Hub(names)

            async def handle(hub: Hub, name, text):
                return hub.choose(name, text)
        """,
    })
    assert found == {
        ("scorers.py", "blocking_file_io", "with open(path) as f:"),
        ("scorers.py", "blocking_sleep", "time.sleep(0.2)"),
    }


# -- a class of the files loaded with an inherited from_pretrained is that class -------------------------------------
def test_an_inherited_from_pretrained_returns_the_class_itself(tmp_path):
    found = flagged_package(tmp_path, {
        "rank/__init__.py": "",
        "rank/model.py": """
            import time
            import torch
            from huggingface_hub import PyTorchModelHubMixin

            class Ranker(torch.nn.Module, PyTorchModelHubMixin):
                def rank(self, text):
                    time.sleep(0.1)
                    return len(text)

                def name(self):
                    return "ranker"
        """,
        "rank/router.py": """
            from rank.model import Ranker

            class Router:
                def __init__(self, path):
                    self.model = Ranker.from_pretrained(path)

                def route(self, text):
                    return self.model.rank(text)

                def label(self):
                    return self.model.name()

            async def handle(router: Router, text):
                return router.route(text), router.label()
        """,
    })
    assert found == {("rank/model.py", "blocking_sleep", "time.sleep(0.1)")}


# -- Hugging Face datasets: load_dataset downloads/prepares, load_from_disk reads --------------------------------------
def test_datasets_loading_blocks(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from datasets import load_dataset, load_from_disk

        async def startup(name, folder):
            battles = load_dataset(name, split="train")
            cached = load_from_disk(folder)
            later = await asyncio.to_thread(load_dataset, name)
            return battles, cached, later
    """)
    assert found == {
        ("blocking_http", 'battles = load_dataset(name, split="train")'),
        ("blocking_file_io", "cached = load_from_disk(folder)"),
    }

"""check blocking: the kinds held-out wave 47 (issue 17; a RAG service over vector databases, an OpenAI-compatible
router in front of model servers, an OpenAI proxy with a key-value cache, a document platform's Kafka workers, a
prompt compiler's API) found, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged, flagged_package

_POST = ("blocking_http", "requests.post(url, json=payload, timeout=5)")


# -- a coroutine submitted to a loop that a thread of its own runs is not on the server's loop -------------------------

def test_a_health_check_on_a_loop_run_by_its_own_thread_is_not_an_entry(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import threading
        import requests

        class Prober:
            def __init__(self, url):
                self.url = url
                self.loop = asyncio.new_event_loop()
                self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
                self.thread.start()
                asyncio.run_coroutine_threadsafe(self.watch(), self.loop)

            def healthy(self, payload):
                return requests.post(self.url, json=payload, timeout=5).ok

            async def watch(self):
                while True:
                    self.healthy({})
                    await asyncio.sleep(10)
    """)
    assert found == set()


_NOTIFIER = """
    import asyncio
    import threading
    import requests
    {other}
    class Notifier:
        def __init__(self, url, server_loop):
            self.url = url
            self.loop = server_loop

        def push(self, payload):
            asyncio.run_coroutine_threadsafe(self.send(payload), self.loop)

        async def send(self, payload):
            url = self.url
            requests.post(url, json=payload, timeout=5)
"""

_OTHER_CLASS_WITH_A_THREAD_LOOP = """
    class Background:
        def __init__(self):
            self.loop = asyncio.new_event_loop()
            threading.Thread(target=self.loop.run_forever, daemon=True).start()
"""


@pytest.mark.parametrize("other", ["", _OTHER_CLASS_WITH_A_THREAD_LOOP], ids=["alone", "namesake_in_another_class"])
def test_a_coroutine_submitted_to_a_loop_no_thread_of_its_own_runs_stays_an_entry(tmp_path, other):
    assert flagged(tmp_path, _NOTIFIER.replace("{other}", other)) == {_POST}


# -- LangChain's token splitters load a tiktoken encoding when they are built ------------------------------------------

def test_a_token_splitter_built_in_a_worker_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        from langchain_text_splitters import TokenTextSplitter

        def split(blocks):
            splitter = TokenTextSplitter(chunk_size=256, chunk_overlap=50)
            return [piece for block in blocks for piece in splitter.split_text(block)]

        async def on_chunk_event(blocks):
            return split(blocks)
    """)
    assert found == {("blocking_file_io", "splitter = TokenTextSplitter(chunk_size=256, chunk_overlap=50)")}


def test_a_token_splitter_built_inside_a_thread_and_a_character_splitter_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter

        def split(blocks):
            splitter = TokenTextSplitter(chunk_size=256, chunk_overlap=50)
            return [piece for block in blocks for piece in splitter.split_text(block)]

        async def on_chunk_event(blocks, text):
            by_structure = RecursiveCharacterTextSplitter(chunk_size=3000).split_text(text)
            return by_structure + await asyncio.to_thread(split, blocks)
    """)
    assert found == set()


# -- a package and a module of one name side by side: the import finds the package -------------------------------------

_MODEL = {("gates/cache/store.py", "blocking_file_io", 'self.model = SentenceTransformer("mini")'),
          ("gates/cache/store.py", "blocking_cpu", "return self.model.encode(text)")}


def _cache_service(package_has_the_model: bool) -> dict[str, str]:
    model_side, stub_side = (
        """
        from sentence_transformers import SentenceTransformer

        class Cache:
            def __init__(self):
                self.model = SentenceTransformer("mini")

            def lookup(self, text):
                return self.model.encode(text)

        def get_cache():
            return Cache()
        """,
        """
        class Cache:
            def lookup(self, text):
                return None

        def get_cache():
            return Cache()
        """,
    )
    package, module = (model_side, stub_side) if package_has_the_model else (stub_side, model_side)
    return {
        "__init__.py": "",
        "gates/__init__.py": "",
        "gates/cache.py": module,
        "gates/cache/__init__.py": "from svc.gates.cache.store import Cache, get_cache\n",
        "gates/cache/store.py": package,
        "gates/hooks.py": """
            from svc.gates.cache import get_cache

            async def before_request(text):
                return get_cache().lookup(text)
        """,
    }


def test_the_package_is_what_an_import_of_a_name_shared_with_a_module_finds(tmp_path):
    found = flagged_package(tmp_path, _cache_service(package_has_the_model=True))
    assert found == _MODEL


def test_the_module_beside_a_package_of_its_name_is_never_what_the_import_finds(tmp_path):
    assert flagged_package(tmp_path, _cache_service(package_has_the_model=False)) == set()


# -- a client method handed to a loop scheduler in a plain def is evidence of a coroutine API --------------------------

_ROUTER = """
    import asyncio
    import threading
    from cachecoord.manager import CoordinatorManager

    class Router:
        def __init__(self, host):
            controller_urls = {"pull": f"{host}:8300"}
            self.manager = CoordinatorManager(controller_urls)

        def start(self):
            self.loop = asyncio.new_event_loop()
            threading.Thread(target=self.loop.run_forever, daemon=True).start()
            {start}

        def ask(self, message):
            return self.manager.lookup(message)

        async def route(self, message):
            return await self.ask(message)
"""


def test_a_client_whose_method_a_plain_def_submits_to_a_loop_is_no_sync_guess(tmp_path):
    source = _ROUTER.replace("{start}", "asyncio.run_coroutine_threadsafe(self.manager.start_all(), self.loop)")
    assert flagged(tmp_path, source) == set()


def test_a_client_a_plain_def_only_calls_keeps_the_sync_guess(tmp_path):
    source = _ROUTER.replace("{start}", "self.manager.start_all()")
    found = flagged(tmp_path, source)
    assert ("blocking_http", "return self.manager.lookup(message)") in found


# -- MilvusClient's request builders send nothing; the request they are handed to does ---------------------------------

def test_milvus_index_params_are_built_in_memory_and_the_create_index_is_the_request(tmp_path):
    found = flagged(tmp_path, """
        from pymilvus import MilvusClient

        client = MilvusClient(uri="http://milvus:19530")

        async def make_collection(name, dim):
            schema = client.create_schema(auto_id=True)
            params = client.prepare_index_params()
            params.add_index(field_name="vector", index_type="FLAT", metric_type="IP")
            client.create_index(collection_name=name, index_params=params)
    """)
    assert found == {("blocking_db", "client.create_index(collection_name=name, index_params=params)")}


# -- a handle looked up by a key (get_<handle>_by_<key>) is a handle of the client's server ----------------------------

_STORE = """
    from vaultstore.ml import get_client as get_store_client

    async def load(uri, dest):
        store = get_store_client()
        {line}
"""


def test_a_data_directory_looked_up_by_its_name_is_downloaded_over_the_network(tmp_path):
    lines = "folder = store.get_data_directory_by_fqn(uri)\n        return folder.download(path=dest)"
    source = _STORE.replace("{line}", lines)
    found = flagged(tmp_path, source)
    assert ("blocking_http", "return folder.download(path=dest)") in found


def test_a_record_looked_up_by_a_key_is_data_not_a_handle(tmp_path):
    source = _STORE.replace("{line}", "profile = store.get_profile_by_name(uri)\n        return profile.get(dest)")
    found = flagged(tmp_path, source)
    assert ("blocking_http", "return profile.get(dest)") not in found

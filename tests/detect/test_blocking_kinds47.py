"""check blocking: the kinds the waves of stop 46 left (issue 17, stop 47). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_an_undetected_chromedriver_is_a_selenium_driver(tmp_path):
    found = flagged(tmp_path, """
        import undetected_chromedriver as uc

        async def snapshot(page):
            browser = uc.Chrome(headless=True)
            browser.get(page)
            return browser.page_source
    """)
    assert found == {("blocking_http", "browser = uc.Chrome(headless=True)"), ("blocking_http", "browser.get(page)"),
                     ("blocking_http", "return browser.page_source")}  # a WebDriver command too (stop 48)


def test_an_undetected_chromedriver_started_in_a_worker_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import undetected_chromedriver as uc

        def grab(page):
            browser = uc.Chrome(headless=True)
            browser.get(page)
            return browser.page_source

        async def snapshot(page):
            return await asyncio.to_thread(grab, page)
    """)
    assert found == set()


def test_a_docker_client_made_on_the_loop_asks_the_daemon_its_version(tmp_path):
    found = flagged(tmp_path, """
        import docker

        async def image_present(tag):
            engine = docker.from_env(version="auto")
            spare = docker.DockerClient(base_url="unix:///run/docker.sock")
            return bool(engine.images.list(name=tag)) and spare is not None
    """)
    assert found == {("blocking_http", 'engine = docker.from_env(version="auto")'),
                     ("blocking_http", 'spare = docker.DockerClient(base_url="unix:///run/docker.sock")'),
                     ("blocking_http", "return bool(engine.images.list(name=tag)) and spare is not None")}


def test_a_docker_client_with_a_pinned_api_version_sends_nothing_when_made(tmp_path):
    found = flagged(tmp_path, """
        import docker

        async def engine_for(job):
            job.engine = docker.from_env(version="1.43")
            return job
    """)
    assert found == set()


def test_kubernetes_config_loaders_read_files_even_in_the_asyncio_client(tmp_path):
    found = flagged(tmp_path, """
        import kubernetes
        from kubernetes_asyncio import config as kconfig

        async def connect_cluster(state):
            try:
                kconfig.load_incluster_config()
            except kconfig.ConfigException:
                await kconfig.load_kube_config()
            state.ready = True

        async def legacy(state):
            kubernetes.config.load_kube_config(context=state.context)
    """)
    assert found == {("blocking_file_io", "kconfig.load_incluster_config()"),
                     ("blocking_file_io", "kubernetes.config.load_kube_config(context=state.context)")}


def test_kubernetes_config_loaded_before_the_loop_starts_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from kubernetes import config

        async def serve():
            await asyncio.sleep(0)

        def main():
            config.load_incluster_config()
            asyncio.run(serve())
    """)
    assert found == set()


def test_an_in_memory_sqlite_connection_and_its_cursors_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        async def engine_version():
            probe = sqlite3.connect(":memory:")
            row = probe.execute("select sqlite_version()").fetchone()
            scratch = sqlite3.connect("file:{}?mode=memory&cache=shared".format("scratch"), uri=True)
            cur = scratch.cursor()
            cur.execute("create table t(x)")
            return row, cur.fetchall()
    """)
    assert found == set()


def test_a_file_backed_sqlite_connection_stays_a_finding(tmp_path):
    found = flagged(tmp_path, """
        try:
            import pysqlite3 as sqlite3
        except ImportError:
            import sqlite3

        async def count_rows(path):
            db = sqlite3.connect(path)
            n = db.execute("select count(*) from t").fetchone()
            odd = sqlite3.connect("file:notes?mode=memory")
            return n, odd
    """)
    assert found == {("blocking_db", "db = sqlite3.connect(path)"),
                     ("blocking_db", 'n = db.execute("select count(*) from t").fetchone()'),
                     ("blocking_db", 'odd = sqlite3.connect("file:notes?mode=memory")')}


def test_a_generated_api_clients_serialisation_helper_sends_nothing(tmp_path):
    found = flagged(tmp_path, """
        from pikachu_orchestrator import ApiClient

        async def created(spec):
            api = ApiClient()
            body = api.sanitize_for_serialization(spec)
            return api.deserialize(body, "V1Pod"), body
    """)
    assert found == set()


def test_a_client_guessed_by_its_name_still_blocks_on_a_request_method(tmp_path):
    found = flagged(tmp_path, """
        from pikachu_orchestrator import ApiClient

        async def created(spec):
            api = ApiClient()
            return api.call_api("/pods", "POST", body=spec)
    """)
    assert found == {("blocking_http", 'return api.call_api("/pods", "POST", body=spec)')}


def test_shutting_down_an_executor_after_waiting_on_its_only_task_waits_for_nothing_more(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import ThreadPoolExecutor, TimeoutError as Late

        def ask(prompt):
            return prompt.upper()

        async def answer(prompt, limit):
            pool = ThreadPoolExecutor(max_workers=1)
            pending = pool.submit(ask, prompt)
            late = False
            try:
                return pending.result(timeout=limit)
            except Late:
                late = True
                raise
            finally:
                pool.shutdown(wait=not late)
    """)
    assert found == {("blocking_task", "return pending.result(timeout=limit)")}


def test_shutting_down_an_executor_with_other_tasks_or_after_a_timed_wait_still_waits(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import ThreadPoolExecutor

        def ask(prompt):
            return prompt.upper()

        async def answer(prompt, limit):
            pool = ThreadPoolExecutor(max_workers=2)
            pending = pool.submit(ask, prompt)
            try:
                return pending.result(timeout=limit)
            finally:
                pool.shutdown()

        async def both(prompt):
            pool = ThreadPoolExecutor(max_workers=2)
            first = pool.submit(ask, prompt)
            pool.submit(ask, prompt + "!")
            try:
                return first.result()
            finally:
                pool.shutdown(wait=True)
    """)
    assert found == {("blocking_task", "return pending.result(timeout=limit)"), ("blocking_task", "pool.shutdown()"),
                     ("blocking_task", "return first.result()"), ("blocking_task", "pool.shutdown(wait=True)")}


def test_adding_one_vector_to_a_faiss_index_is_no_blocker(tmp_path):
    found = flagged(tmp_path, """
        import faiss
        import numpy as np

        class Cache:
            def __init__(self, dim):
                self.index = faiss.IndexFlatIP(dim)

            async def remember(self, vector):
                vector = vector.reshape(1, -1)
                self.index.add(vector)
                self.index.add(np.array([vector[0]], dtype="float32"))
                self.index.add(vector[0][None, :])
    """)
    assert found == set()


def test_adding_many_vectors_or_searching_a_faiss_index_blocks(tmp_path):
    found = flagged(tmp_path, """
        import faiss

        class Cache:
            def __init__(self, dim):
                self.index = faiss.IndexFlatIP(dim)

            async def fill(self, vectors):
                self.index.add(vectors.reshape(-1, 384))
                return self.index.search(vectors[:1], 4)
    """)
    assert found == {("blocking_cpu", "self.index.add(vectors.reshape(-1, 384))"),
                     ("blocking_cpu", "return self.index.search(vectors[:1], 4)")}


def test_a_path_taken_from_a_list_built_by_comprehension_is_opened_from_disk(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        async def settings(folder: Path):
            chosen = []
            if folder.name:
                chosen = [folder / name for name in ("a.json", "b.json") if name]
            if chosen:
                with chosen[0].open() as fp:
                    return fp.read()
    """)
    assert found == {("blocking_file_io", "with chosen[0].open() as fp:")}


def test_an_item_of_a_list_of_names_or_of_mixed_values_is_not_taken_for_a_path(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        async def settings(folder: Path, pick):
            names = [name.upper() for name in ("a.json", "b.json")]
            mixed = [folder / "a.json", pick]
            return names[0].strip(), mixed[1].open()
    """)
    assert found == set()


def test_a_module_a_lazy_loader_helper_returns_is_that_library(tmp_path):
    found = flagged(tmp_path, """
        _lib = None

        def _storage_sdk():
            global _lib
            if _lib is None:
                import boto3 as loaded
                _lib = loaded
            return _lib

        def _plain():
            import boto3
            return boto3

        async def push(path):
            _storage_sdk().client("s3").upload_file(path, "bucket", "key")
            _plain().client("s3").upload_file(path, "bucket", "key")
    """)
    assert found == {("blocking_http", '_storage_sdk().client("s3").upload_file(path, "bucket", "key")'),
                     ("blocking_http", '_plain().client("s3").upload_file(path, "bucket", "key")')}


def test_a_loader_helper_returning_something_else_than_its_import_stays_unknown(tmp_path):
    found = flagged(tmp_path, """
        def _maybe(stub):
            import boto3
            return stub if boto3 else None

        async def push(path, stub):
            _maybe(stub).upload_file(path, "bucket", "key")
    """)
    assert found == set()


def test_a_traitlets_dynamic_default_runs_when_a_coroutine_first_reads_the_trait(tmp_path):
    found = flagged(tmp_path, """
        from traitlets import Any, HasTraits, default
        from kubernetes import client, config

        class Quota(HasTraits):
            api = Any()
            label = Any()

            @default("api")
            def _make_api(self):
                config.load_incluster_config()
                return client.CoreV1Api()

            def _label_default(self):
                with open("/etc/quota-label") as fp:
                    return fp.read()

            async def check(self, name):
                pods = self.api
                return pods, self.label, name
    """)
    assert found == {("blocking_file_io", "config.load_incluster_config()"),
                     ("blocking_file_io", 'with open("/etc/quota-label") as fp:')}


def test_a_trait_without_a_dynamic_default_or_one_set_off_the_loop_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from traitlets import Any, HasTraits, default
        from kubernetes import client, config

        class Quota(HasTraits):
            api = Any()
            size = Any()

            @default("api")
            def _make_api(self):
                config.load_incluster_config()
                return client.CoreV1Api()

            async def check(self, name):
                return self.size, name
    """)
    assert found == set()


def test_a_callback_runs_its_queries_on_the_connection_the_receiving_function_hands_it(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        class Store:
            def __init__(self, path):
                self.path = path
                self.conn = None

            async def run_with(self, work):
                if self.conn is None:
                    self.conn = sqlite3.connect(self.path)
                return work(self.conn)

            async def count(self, table):
                def counting(conn):
                    rows = conn.cursor()
                    rows.execute("select count(*) from " + table)
                    return rows.fetchone()
                return await self.run_with(counting)
    """)
    assert found == {("blocking_db", "self.conn = sqlite3.connect(self.path)"),
                     ("blocking_db", 'rows.execute("select count(*) from " + table)'),
                     ("blocking_db", "return rows.fetchone()")}


def test_a_callback_handed_a_plain_value_does_no_query(tmp_path):
    found = flagged(tmp_path, """
        class Store:
            def __init__(self):
                self.names = ["a", "b"]

            async def run_with(self, work):
                return work(self.names)

            async def first(self):
                def picking(names):
                    rows = names.copy()
                    rows.sort()
                    return rows.pop()
                return await self.run_with(picking)
    """)
    assert found == set()


def test_a_connect_helper_that_opens_memory_on_one_branch_and_a_file_on_another_stays_a_disk_connection(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        class Db:
            def __init__(self, path):
                self.path = path

            def open(self):
                if self.path is None:
                    return sqlite3.connect(":memory:")
                return sqlite3.connect(self.path)

            async def write(self, row):
                conn = self.open()
                conn.execute("insert into t values (?)", (row,))
    """)
    assert found == {("blocking_db", "return sqlite3.connect(self.path)"),
                     ("blocking_db", 'conn.execute("insert into t values (?)", (row,))')}


def test_an_optional_path_asserted_by_isinstance_is_a_path_in_a_comprehension(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        class Site:
            def __init__(self, folder=None):
                assert folder is None or isinstance(folder, Path), "folder must be a Path"
                picked = []
                if folder:
                    picked = [folder / n for n in ("a.yml", "b.yml") if n]
                if picked:
                    with picked[0].open() as fp:
                        self.text = fp.read()

        async def start(folder):
            return Site(folder)
    """)
    assert found == {("blocking_file_io", "with picked[0].open() as fp:")}


def test_an_assert_that_only_excludes_none_narrows_nothing(tmp_path):
    found = flagged(tmp_path, """
        class Site:
            def __init__(self, folder=None):
                assert folder is None or folder.startswith("/"), "absolute"
                picked = [folder + n for n in ("a.yml", "b.yml")]
                self.text = picked[0].strip()

        async def start(folder):
            return Site(folder)
    """)
    assert found == set()


def test_the_official_kubernetes_clients_api_calls_block_and_the_asyncio_clients_are_awaited(tmp_path):
    found = flagged(tmp_path, """
        from kubernetes import client
        from kubernetes_asyncio import client as aclient

        class Pods:
            def __init__(self):
                self.core = client.CoreV1Api()
                self.acore = aclient.CoreV1Api()

            async def label(self, name, ns):
                pod = self.core.read_namespaced_pod(name, ns)
                other = await self.acore.read_namespaced_pod(name, ns)
                return pod, other
    """)
    assert found == {("blocking_http", "pod = self.core.read_namespaced_pod(name, ns)")}


def test_a_name_bound_to_a_memory_connection_on_one_branch_and_a_file_on_another_keeps_blocking(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        async def open_db(path):
            if path is None:
                conn = sqlite3.connect(":memory:")
            else:
                conn = sqlite3.connect(path)
            conn.execute("pragma journal_mode=wal")
            return conn
    """)
    assert found == {("blocking_db", "conn = sqlite3.connect(path)"),
                     ("blocking_db", 'conn.execute("pragma journal_mode=wal")')}

"""check blocking: the kinds held-out wave 44 (issue 17; MCP servers over SQL, Docker and Jupyter, a Discord bot, a
Telegram userbot and a PDF-to-markdown server) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package


# -- a module global declared by its annotation and set by a start-up function -----------------------------------------
def test_a_global_declared_by_a_bare_annotation_has_that_type(tmp_path):
    found = flagged(tmp_path, """
        import docker

        engine: docker.DockerClient

        def setup(made):
            global engine
            engine = made

        async def list_boxes():
            return engine.containers.list()
    """)
    assert ("blocking_http", "return engine.containers.list()") in found


def test_a_global_set_from_an_annotated_parameter_has_its_type(tmp_path):
    found = flagged(tmp_path, """
        import docker

        engine = None

        async def serve(made: docker.DockerClient):
            global engine
            engine = made

        async def list_boxes():
            return engine.containers.list()
    """)
    assert ("blocking_http", "return engine.containers.list()") in found


def test_a_declared_global_imported_from_the_package_keeps_its_type(tmp_path):
    found = flagged_package(tmp_path, {
        "__init__.py": "",
        "store.py": """
            import redis

            class Keys:
                def __init__(self, url):
                    self.db = redis.Redis.from_url(url)

                def put(self, key, value):
                    self.db.set(key, value)
        """,
        "shared.py": """
            from svc.store import Keys

            keys: Keys
        """,
        "handlers.py": """
            from svc.shared import keys

            async def remember(key, value):
                keys.put(key, value)
        """,
    })
    assert ("store.py", "blocking_db", "self.db.set(key, value)") in found


def test_a_global_declared_as_an_async_client_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import httpx

        client: httpx.AsyncClient

        async def fetch(url):
            return await client.get(url)
    """)
    assert found == set()


# -- docker-py: every collection and object action asks the daemon ------------------------------------------------------
def test_docker_object_actions_and_the_image_property_block(tmp_path):
    found = flagged(tmp_path, """
        import docker
        from docker.models.containers import Container

        client = docker.from_env()

        def describe(box: Container):
            return {"name": box.name, "image": box.image}

        async def restart(name):
            box = client.containers.get(name)
            box.stop()
            box.start()
            client.images.push("repo/app")
            return describe(box)
    """)
    assert {("blocking_http", "box.stop()"), ("blocking_http", "box.start()"),
            ("blocking_http", 'client.images.push("repo/app")'),
            ("blocking_http", 'return {"name": box.name, "image": box.image}')} <= found


def test_reading_a_containers_cached_attributes_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from docker.models.containers import Container

        async def summary(box: Container):
            return {"name": box.name, "status": box.status, "labels": box.attrs.get("Config")}
    """)
    assert found == set()


# -- catbox-uploader posts the file to catbox.moe -------------------------------------------------------------------------
def test_a_catbox_upload_blocks_and_one_in_a_thread_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from catbox import CatboxUploader

        uploader = CatboxUploader()

        async def share(path):
            return uploader.upload_file(path)

        async def share_in_thread(path):
            return await asyncio.to_thread(uploader.upload_file, path)
    """)
    assert found == {("blocking_http", "return uploader.upload_file(path)")}


# -- a module global bound to an object's method, called by its alias ----------------------------------------------------
def test_a_global_alias_of_a_bound_method_calls_that_method(tmp_path):
    found = flagged_package(tmp_path, {
        "__init__.py": """
            from catbox import CatboxUploader

            uploader = CatboxUploader()
            send = uploader.upload_file
        """,
        "here.py": """
            from svc import uploader

            post = uploader.upload_file

            async def share(path):
                return post(path)
        """,
        "there.py": """
            from svc import send as share_file

            async def share(path):
                return share_file(path)
        """,
    })
    assert {("here.py", "blocking_http", "return post(path)"),
            ("there.py", "blocking_http", "return share_file(path)")} <= found


def test_a_global_alias_of_an_in_memory_method_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        seen = []
        remember = seen.append

        async def note(item):
            remember(item)
    """)
    assert found == set()


# -- an instance attribute bound to a typed attribute's method -----------------------------------------------------------
def test_an_attribute_bound_to_a_clients_method_calls_it(tmp_path):
    found = flagged(tmp_path, """
        import redis

        class Settings:
            def __init__(self, url):
                self.db = redis.Redis.from_url(url)
                self.write = self.db.set

            def save(self, key, value):
                return self.write(key, value)

        settings = Settings("redis://cache")

        async def on_command(key, value):
            settings.save(key, value)
    """)
    assert ("blocking_db", "return self.write(key, value)") in found


def test_an_attribute_bound_to_a_dicts_method_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        class Settings:
            def __init__(self):
                self.values = {}
                self.write = self.values.__setitem__

            def save(self, key, value):
                return self.write(key, value)

        settings = Settings()

        async def on_command(key, value):
            settings.save(key, value)
    """)
    assert found == set()


# -- SQLAlchemy reflection: inspect(connection) is an Inspector that queries the catalogue --------------------------------
def test_an_inspector_from_a_connection_queries_the_database(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine, inspect

        engine = create_engine("postgresql://db/app")

        async def tables():
            with engine.connect() as conn:
                return inspect(conn).get_table_names()
    """)
    assert ("blocking_db", "return inspect(conn).get_table_names()") in found


def test_inspecting_a_mapped_object_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import inspect

        async def changed_fields(row):
            state = inspect(row)
            return [a.key for a in state.attrs if a.history.has_changes()]
    """)
    assert found == set()


# -- a nested def typed from its parent's calls ---------------------------------------------------------------------------
def test_a_nested_helper_receives_the_parents_inspector(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine, inspect

        engine = create_engine("postgresql://db/app")

        async def schema(names):
            def columns(insp, name):
                return insp.get_columns(name)

            with engine.connect() as conn:
                insp = inspect(conn)
                return [columns(insp, n) for n in names]
    """)
    assert ("blocking_db", "return insp.get_columns(name)") in found


def test_a_nested_helper_given_plain_text_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        async def render(names):
            def line(text, width):
                return text.ljust(width)

            return [line(n, 20) for n in names]
    """)
    assert found == set()


# -- an unannotated @contextmanager hands its caller what it yields ------------------------------------------------------
def test_a_contextmanager_that_yields_a_cursor_binds_that_cursor(tmp_path):
    found = flagged(tmp_path, """
        from contextlib import contextmanager
        import pymysql

        conn = pymysql.connect(host="db")

        @contextmanager
        def cursor_for():
            cur = conn.cursor()
            try:
                yield cur
            finally:
                pass

        async def count(table):
            with cursor_for() as cur:
                cur.execute("select count(*) from t")
    """)
    assert ("blocking_db", 'cur.execute("select count(*) from t")') in found


def test_a_contextmanager_that_yields_a_list_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from contextlib import contextmanager

        @contextmanager
        def collecting():
            items = []
            yield items

        async def gather(values):
            with collecting() as items:
                items.extend(values)
    """)
    assert found == set()


# -- a Dict[str, Any] annotation says nothing of the values its stores put in ---------------------------------------------
def test_a_dict_annotated_with_any_values_keeps_the_stored_type(tmp_path):
    found = flagged(tmp_path, """
        from typing import Any, Dict
        import pymysql

        class Pool:
            def __init__(self):
                self.open: Dict[str, Any] = {}

            def add(self, name, host):
                self.open[name] = pymysql.connect(host=host)

            def check(self, name: str) -> Any:
                conn = self.open[name]
                conn.ping(reconnect=True)
                return conn

        pool = Pool()

        async def health(name):
            return pool.check(name)
    """)
    assert ("blocking_db", "conn.ping(reconnect=True)") in found


def test_a_dict_with_any_values_of_plain_data_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from typing import Any, Dict

        class Registry:
            def __init__(self):
                self.rows: Dict[str, Any] = {}

            def add(self, name):
                self.rows[name] = {"hits": 0}

            def hit(self, name: str) -> Any:
                row = self.rows[name]
                row.update(hits=row["hits"] + 1)
                return row

        registry = Registry()

        async def count(name):
            return registry.hit(name)
    """)
    assert found == set()


# -- pymongo: a database's own collection commands -------------------------------------------------------------------------
def test_dropping_a_collection_blocks(tmp_path):
    found = flagged(tmp_path, """
        from pymongo import MongoClient

        db = MongoClient("mongodb://db")["app"]

        async def forget(key):
            db.drop_collection(key)
    """)
    assert ("blocking_db", "db.drop_collection(key)") in found


# -- a base calls self.set(...) that its subclasses bind to their driver's method ----------------------------------------
def test_a_base_call_reaches_what_a_subclass_binds_and_the_overrides(tmp_path):
    found = flagged(tmp_path, """
        import redis
        from pymongo import MongoClient

        class Store:
            def set_key(self, key, value):
                return self.set(key, str(value))

        class RedisStore(Store):
            def __init__(self, url):
                self.db = redis.Redis.from_url(url)
                self.set = self.db.set

        class MongoStore(Store):
            def __init__(self, url):
                self.db = MongoClient(url)["app"]

            def set(self, key, value):
                self.db[key].insert_one({"value": value})

        store: Store

        async def on_command(key, value):
            store.set_key(key, value)
    """)
    assert {("blocking_db", "return self.set(key, str(value))"),
            ("blocking_db", 'self.db[key].insert_one({"value": value})')} <= found


def test_a_base_call_that_subclasses_bind_to_a_dict_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        class Store:
            def set_key(self, key, value):
                return self.set(key, str(value))

        class MemoryStore(Store):
            def __init__(self):
                self.values = {}
                self.set = self.values.__setitem__

        store: Store

        async def on_command(key, value):
            store.set_key(key, value)
    """)
    assert found == set()


# -- Surya's predictors load a checkpoint when built and run it when called ----------------------------------------------
def test_building_and_calling_a_surya_predictor_blocks(tmp_path):
    found = flagged(tmp_path, """
        from surya.layout import LayoutPredictor

        async def layout(images):
            predictor = LayoutPredictor()
            return predictor(images)
    """)
    assert {("blocking_file_io", "predictor = LayoutPredictor()"), ("blocking_cpu", "return predictor(images)")} <= found


def test_a_surya_result_schema_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from surya.layout.schema import LayoutBox

        async def box(points):
            return LayoutBox(polygon=points, label="Text", position=0)
    """)
    assert found == set()

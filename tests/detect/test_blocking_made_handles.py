"""check blocking: clients and handles made by factories of SDKs nobody listed
(:mod:`faultlib.detect.serving.blocking.made_handles`, used by the inference of synchronous clients). Found: a driver
from a class-level factory and its sessions, a DB-API ``connect()`` and its cursor, a collection handed out by a
client named as one, an index obtained from a client given a key, a package configured with a key, a value declared
with a lower-case class and built with credentials. Silent: async clients made by factories (an async part in the
name, or awaited elsewhere), handles of an object nothing gives a server. The package names are invented for these
tests (no vocabulary entry, nothing installed)."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_a_driver_made_by_a_class_level_factory_and_its_sessions_block(tmp_path):
    found = flagged(tmp_path, """
        from graphstore import GraphStore

        class Graph:
            def __init__(self, uri, user, password):
                self._driver = GraphStore.driver(uri, auth=(user, password))

            def _session(self):
                return self._driver.session()

            async def count(self):
                with self._session() as session:
                    rows = session.run("MATCH (n) RETURN count(n)")
                return rows
    """)
    assert found == {("blocking_http", 'rows = session.run("MATCH (n) RETURN count(n)")')}


def test_the_finding_names_the_factory_and_where_the_server_was_given(tmp_path):
    path = tmp_path / "svc.py"
    path.write_text(
        "import os\n"
        "import sqldrive\n"
        "conn = sqldrive.connect(os.environ['PG_DSN'])\n"
        "async def rows():\n"
        "    cur = conn.cursor()\n"
        "    cur.execute('select 1')\n"
        "    return cur.fetchall()\n")
    findings = analyze_path(path).findings
    assert {(f.kind, f.location["line"]) for f in findings} == {("blocking_db", 6), ("blocking_db", 7)}
    inferred = findings[0].evidence["inferred"]
    assert inferred["type"] == "sqldrive.connect().cursor()"
    assert "obtained from" in inferred["evidence"][-1]["what"] or "connect" in inferred["evidence"][0]["what"]


def test_a_collection_handed_out_by_a_client_named_as_one_blocks(tmp_path):
    found = flagged(tmp_path, """
        import vecbase

        store = vecbase.DiskClient(path="./vectors")

        def collection(user):
            return store.get_or_create_collection(name=user)

        async def remember(user, text, vector):
            docs = collection(user)
            docs.upsert(ids=[text], embeddings=[vector])
            return docs.query(query_embeddings=[vector], n_results=3)
    """)
    assert found == {("blocking_http", "return store.get_or_create_collection(name=user)"),  # the client's own
                     ("blocking_http", "docs.upsert(ids=[text], embeddings=[vector])"),
                     ("blocking_http", "return docs.query(query_embeddings=[vector], n_results=3)")}


def test_an_index_obtained_from_a_client_given_a_key_blocks(tmp_path):
    found = flagged(tmp_path, """
        from pinestore import Pinestore

        class Search:
            def __init__(self, key, name):
                self.pc = Pinestore(api_key=key)
                self.index = self.pc.Index(name)

            async def search(self, vector):
                return self.index.query(vector=vector, top_k=5)
    """)
    assert found == {("blocking_http", "return self.index.query(vector=vector, top_k=5)")}


def test_a_package_configured_with_a_key_makes_its_class_calls_requests(tmp_path):
    found = flagged(tmp_path, """
        import os
        import payco

        payco.api_key = os.environ["PAYCO_KEY"]

        async def customer(number):
            return payco.Customer.retrieve(number)
    """)
    assert found == {("blocking_http", "return payco.Customer.retrieve(number)")}


def test_a_package_connect_function_given_a_host_connects_and_configures_its_classes(tmp_path):
    found = flagged(tmp_path, """
        import os
        from vecdb import connections, Collection

        async def startup():
            connections.connect("default", host=os.environ["VEC_HOST"], port="19530")

        async def search(vector):
            return Collection("docs").search(vector)
    """)
    assert found == {("blocking_http", 'connections.connect("default", host=os.environ["VEC_HOST"], port="19530")'),
                     ("blocking_http", 'return Collection("docs").search(vector)')}


def test_a_value_declared_as_a_lower_case_class_and_built_with_credentials_blocks(tmp_path):
    found = flagged(tmp_path, """
        import tradekit

        class Bot:
            def __init__(self, venue, key):
                maker = getattr(tradekit, venue)
                self.venue: tradekit.kraken = maker({"apiKey": key})

            async def tick(self):
                return self.venue.fetch_ticker("ETH/USD")
    """)
    assert found == {("blocking_http", 'return self.venue.fetch_ticker("ETH/USD")')}


def test_async_clients_made_by_factories_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        import kvstore.asyncio
        import docbase

        cache = kvstore.asyncio.from_url(os.environ["CACHE_URL"])
        db = docbase.connect(os.environ["DOCS_URL"])

        async def remember(key, value):
            cache.pipeline()
            await cache.set(key, value)
            items = db.get_collection("items")
            items.insert_one({"k": key})

        async def recall(key):
            return await db.get_collection("items").find_one({"k": key})
    """)
    assert found == set()


def test_factories_of_async_twins_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        import aiostore
        from vendorkit import AsyncVendor

        llm = AsyncVendor.from_env()
        session = aiostore.Session(api_key=os.environ["STORE_KEY"])

        async def upload(name, body):
            async with session.client("s3") as s3:
                s3.generate_presigned_url(name)
                await s3.put_object(Key=name, Body=body)
            chat = llm.get_session()
            chat.send(name)
    """)
    assert found == set()


def test_handles_of_an_object_nothing_gives_a_server_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import layoutkit

        async def render(doc):
            page = layoutkit.Renderer(dpi=300).get_table("summary")
            page.add_row(doc)
            return page.render()
    """)
    assert found == set()


GRAPHKIT = {
    "graphkit/__init__.py": """
        from graphkit.core import Driver, Cache


        def driver(uri) -> Driver:
            return _pooled(uri)


        def _pooled(uri):
            return None
    """,
    "graphkit/core.py": """
        import requests


        class Driver:
            def __init__(self, uri):
                self.uri = uri

            def query(self, text):
                return requests.post(self.uri, json={"q": text}).json()


        class Cache:
            def __init__(self, uri):
                self.uri = uri

            @classmethod
            def connect(cls, uri):
                return cls(uri)

            def fetch(self, key):
                return requests.get(f"{self.uri}/{key}").json()
    """,
}


def test_an_installed_library_says_what_its_factories_return(tmp_path):
    site = tmp_path / "site-packages"
    for rel, text in GRAPHKIT.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(textwrap.dedent(text))
    svc = tmp_path / "svc" / "app.py"
    svc.parent.mkdir()
    svc.write_text(textwrap.dedent("""
        import graphkit
        from graphkit import Cache

        drv = graphkit.driver("http://graph.internal")
        cache = Cache.connect("http://cache.internal")

        async def lookup(key):
            rows = drv.query(key)
            return rows, cache.fetch(key)
    """))
    findings = analyze_path(svc, site_dirs=[site]).findings
    assert {(f.location["line"], str(f.evidence["library"]["chain"]).rpartition(" ")[2]) for f in findings} == {
        (9, "requests.post"), (10, "requests.get")}

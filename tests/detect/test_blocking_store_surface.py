"""check blocking: SQL drivers, graph/wide-column/vector stores and local rerankers filled from their documentation
(issue 17). A driver's connect, a cursor's execute, a graph session's run, a store query's terminal call and a
reranker's scoring inside an ``async def`` are reported at their line; the builders that send nothing
(``cursor()``, ``driver.session()``, ``table.search(v).limit(k)``, ``client.table(t).select(...)``) and the async
twins (``AsyncGraphDatabase``, ``acreate_client``, ``connect_async``) stay silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_sql_drivers_connect_and_execute_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import mysql.connector
        import pyodbc

        async def orders(host):
            conn = mysql.connector.connect(host=host, user="shop")
            cur = conn.cursor()
            cur.execute("SELECT id FROM orders")
            return cur.fetchall()

        async def report(dsn):
            def run():
                return pyodbc.connect(dsn).cursor().execute("SELECT 1").fetchone()
            return await asyncio.to_thread(run)
    """)
    assert found == {
        ("blocking_db", 'conn = mysql.connector.connect(host=host, user="shop")'),
        ("blocking_db", 'cur.execute("SELECT id FROM orders")'),
        ("blocking_db", "return cur.fetchall()"),
    }


def test_graph_and_vector_stores_block_and_their_builders_and_async_twins_do_not(tmp_path):
    found = flagged(tmp_path, """
        import lancedb
        from neo4j import AsyncGraphDatabase, GraphDatabase
        from supabase import acreate_client, create_client

        DRIVER = GraphDatabase.driver("bolt://graph:7687")
        ADRIVER = AsyncGraphDatabase.driver("bolt://graph:7687")

        async def friends(name):
            session = DRIVER.session()
            rows = session.run("MATCH (p {name: $n})--(f) RETURN f", n=name)
            async with ADRIVER.session() as asession:
                more = await asession.run("MATCH (n) RETURN n")
            return rows, more

        async def nearest(vector):
            table = lancedb.connect("data/vectors").open_table("docs")
            query = table.search(vector).limit(5)
            return query.to_list()

        async def profile(url, key, user_id):
            client = create_client(url, key)
            request = client.table("profiles").select("*").eq("id", user_id)
            rows = request.execute()
            change = client.table("profiles").update({"seen": True}).eq("id", user_id)
            change.execute()
            aclient = await acreate_client(url, key)
            more = await aclient.table("profiles").select("*").execute()
            return rows, more
    """)
    assert found == {
        ("blocking_db", 'rows = session.run("MATCH (p {name: $n})--(f) RETURN f", n=name)'),
        ("blocking_file_io", 'table = lancedb.connect("data/vectors").open_table("docs")'),
        ("blocking_file_io", "return query.to_list()"),
        ("blocking_http", "rows = request.execute()"),
        ("blocking_http", "change.execute()"),
    }


def test_rerankers_score_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from FlagEmbedding import FlagReranker
        from sentence_transformers import CrossEncoder

        RERANK = FlagReranker("BAAI/bge-reranker-base")
        CROSS = CrossEncoder("cross-encoder/ms-marco-MiniLM-L-6-v2")

        async def order(query, passages):
            scores = RERANK.compute_score([[query, p] for p in passages])
            ranked = CROSS.rank(query, passages)
            return scores, ranked
    """)
    assert found == {
        ("blocking_cpu", "scores = RERANK.compute_score([[query, p] for p in passages])"),
        ("blocking_cpu", "ranked = CROSS.rank(query, passages)"),
    }


def test_a_vault_request_blocks_and_reading_the_dict_it_returned_does_not(tmp_path):
    found = flagged(tmp_path, """
        import hvac

        async def vault_ready(url):
            client = hvac.Client(url=url)
            health = client.sys.read_health_status(method="GET")
            return not health.get("sealed", True)
    """)
    assert found == {("blocking_http", 'health = client.sys.read_health_status(method="GET")')}

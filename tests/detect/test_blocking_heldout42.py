"""check blocking: the kinds held-out wave 42 (issue 17; nine GraphRAG libraries, LLM gateways, chat bots and voice
servers) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- in-process vector indexes and graph files (hnswlib, nano-vectordb, igraph, NetworkX, graspologic) ---------------
def test_an_hnsw_index_insert_search_and_save_block_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import hnswlib

        class Shelf:
            def __init__(self, dim):
                self.index = hnswlib.Index(space="l2", dim=dim)
                self.index.init_index(max_elements=1000)

            async def put(self, vectors, ids):
                self.index.add_items(vectors, ids, num_threads=4)

            async def nearest(self, vector):
                return self.index.knn_query(vector, k=3)

            async def flush(self, path):
                self.index.save_index(path)
    """)
    assert ("blocking_cpu", "self.index.add_items(vectors, ids, num_threads=4)") in found
    assert ("blocking_cpu", "return self.index.knn_query(vector, k=3)") in found
    assert ("blocking_file_io", "self.index.save_index(path)") in found
    assert not any("init_index" in line for _, line in found)


def test_an_hnsw_index_searched_in_a_worker_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import hnswlib

        class Shelf:
            def __init__(self, dim):
                self.index = hnswlib.Index(space="l2", dim=dim)

            async def nearest(self, vector):
                return await asyncio.to_thread(self.index.knn_query, vector, 3)
    """)
    assert found == set()


def test_a_nano_vectordb_query_and_save_block_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from nano_vectordb import NanoVectorDB

        class Memory:
            def __init__(self, path):
                self.db = NanoVectorDB(384, storage_file=path)

            async def recall(self, vector):
                return self.db.query(query=vector, top_k=5)

            async def persist(self):
                self.db.save()
    """)
    assert ("blocking_cpu", "return self.db.query(query=vector, top_k=5)") in found
    assert ("blocking_file_io", "self.db.save()") in found


def test_igraph_files_and_pagerank_block_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from typing import Optional
        import igraph as ig

        class Web:
            graph: Optional[ig.Graph] = None

            async def open(self, path):
                self.graph = ig.Graph.Read_Picklez(path)

            async def rank(self, seeds):
                return self.graph.personalized_pagerank(reset_vertices=seeds)

            async def close(self, path):
                ig.Graph.write_picklez(self.graph, path)
    """)
    assert ("blocking_file_io", "self.graph = ig.Graph.Read_Picklez(path)") in found
    assert ("blocking_cpu", "return self.graph.personalized_pagerank(reset_vertices=seeds)") in found
    assert ("blocking_file_io", "ig.Graph.write_picklez(self.graph, path)") in found


def test_igraph_cheap_queries_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import igraph as ig

        async def sizes():
            g = ig.Graph(directed=False)
            g.add_vertices(3)
            return g.vcount(), g.ecount()
    """)
    assert found == set()


def test_networkx_graph_files_and_graspologic_clustering_block_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import networkx as nx

        class Atlas:
            @staticmethod
            def dump(graph, path):
                nx.write_graphml(graph, path)

            def __init__(self):
                self.graph = nx.Graph()

            async def done(self, path):
                Atlas.dump(self.graph, path)

            async def communities(self):
                from graspologic.partition import hierarchical_leiden
                return hierarchical_leiden(self.graph, max_cluster_size=10)
    """)
    assert ("blocking_file_io", "nx.write_graphml(graph, path)") in found
    assert ("blocking_cpu", "return hierarchical_leiden(self.graph, max_cluster_size=10)") in found


def test_networkx_in_memory_graph_work_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import networkx as nx

        async def degree_of(edges, node):
            g = nx.Graph()
            g.add_edges_from(edges)
            return g.degree(node)
    """)
    assert found == set()


# -- pymongo handles reached through get_database / get_collection, and MontyDB (pymongo's API over local files) ------
def test_a_collection_from_get_database_and_get_collection_is_a_pymongo_collection(tmp_path):
    found = flagged(tmp_path, """
        from pymongo import MongoClient

        class Ledger:
            def __init__(self, uri):
                db = MongoClient(uri).get_database("shop")
                self.orders = db.get_collection("orders")

            async def latest(self, customer):
                return self.orders.find_one({"customer": customer})
    """)
    assert ("blocking_db", 'return self.orders.find_one({"customer": customer})') in found


def test_a_motor_collection_awaited_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from motor.motor_asyncio import AsyncIOMotorClient

        class Ledger:
            def __init__(self, uri):
                db = AsyncIOMotorClient(uri).get_database("shop")
                self.orders = db.get_collection("orders")

            async def latest(self, customer):
                return await self.orders.find_one({"customer": customer})
    """)
    assert found == set()


def test_a_montydb_collection_reads_its_files_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from montydb import MontyClient

        class Notes:
            def __init__(self, folder):
                self.client = MontyClient(folder)
                self.table = self.client["app"]["notes"]

            async def add(self, note):
                self.table.insert_one(note)
    """)
    assert ("blocking_db", "self.table.insert_one(note)") in found


# -- Litestar runs a plain def route handler on the loop unless sync_to_thread=True ----------------------------------
def test_a_plain_def_litestar_handler_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import requests
        from litestar import post

        @post("/forecast")
        def forecast(data: dict) -> dict:
            return requests.post("http://weather.internal/api", json=data, timeout=5).json()
    """)
    assert ("blocking_http", 'return requests.post("http://weather.internal/api", json=data, timeout=5).json()') in found


def test_a_litestar_handler_sent_to_a_thread_and_a_fastapi_plain_def_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import requests
        from fastapi import FastAPI
        from litestar import get

        app = FastAPI()

        @get("/forecast", sync_to_thread=True)
        def forecast() -> dict:
            return requests.get("http://weather.internal/api", timeout=5).json()

        @app.get("/today")
        def today() -> dict:
            return requests.get("http://weather.internal/today", timeout=5).json()
    """)
    assert found == set()


# -- a name bound to the call of a function annotated to return a Union ----------------------------------------------
def test_a_method_called_on_a_union_returned_by_a_factory_runs_each_member(tmp_path):
    found = flagged(tmp_path, """
        import redis

        class LocalStore:
            def __init__(self):
                self.items = {}

            def fetch(self, key):
                return self.items.get(key)

        class SharedStore:
            def __init__(self, url):
                self.conn = redis.Redis.from_url(url)

            def fetch(self, key):
                return self.conn.get(key)

        def open_store(url: str | None) -> LocalStore | SharedStore:
            return SharedStore(url) if url else LocalStore()

        sessions = open_store(None)

        async def session_of(token):
            return sessions.fetch(token)
    """)
    assert ("blocking_db", "return self.conn.get(key)") in found


def test_a_union_of_in_memory_stores_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        class LocalStore:
            def __init__(self):
                self.items = {}

            def fetch(self, key):
                return self.items.get(key)

        class NullStore:
            def fetch(self, key):
                return None

        def open_store(flag: bool) -> LocalStore | NullStore:
            return LocalStore() if flag else NullStore()

        sessions = open_store(True)

        async def session_of(token):
            return sessions.fetch(token)
    """)
    assert found == set()


# -- process waits, pip in-process, audio resampling and SILK transcoding, Baidu AI's SDK ----------------------------
def test_process_waits_pip_resampling_silk_and_baidu_censor_block_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import os
        import librosa
        import psutil
        import pysilk
        from aip import AipContentCensor
        from pip import main as pip_main

        moderator = AipContentCensor("app", "key", "secret")

        async def judge(text):
            return moderator.textCensorUserDefined(text)

        async def reap():
            for kid in psutil.Process(os.getpid()).children(recursive=True):
                kid.wait(timeout=3)

        async def voice_note(pcm, out):
            pysilk.encode(pcm, out, 24000, 24000)

        async def narrowband(samples, rate):
            return librosa.resample(samples, orig_sr=rate, target_sr=8000)

        async def add_plugin(name):
            pip_main(["install", name])
    """)
    assert ("blocking_http", "return moderator.textCensorUserDefined(text)") in found
    assert ("blocking_subprocess", "kid.wait(timeout=3)") in found
    assert ("blocking_cpu", "pysilk.encode(pcm, out, 24000, 24000)") in found
    assert ("blocking_cpu", "return librosa.resample(samples, orig_sr=rate, target_sr=8000)") in found
    assert ("blocking_subprocess", 'pip_main(["install", name])') in found


def test_process_listing_and_client_settings_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        import psutil
        from aip import AipContentCensor

        moderator = AipContentCensor("app", "key", "secret")

        async def tune():
            moderator.setConnectionTimeoutInMillis(1500)

        async def memory():
            return psutil.Process(os.getpid()).memory_info().rss
    """)
    assert found == set()


# -- the body of a response awaited from an async AWS client ----------------------------------------------------------
def test_the_body_of_an_offloaded_sync_request_is_read_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import boto3

        runtime = boto3.client("bedrock-runtime")

        async def embed(payload):
            reply = await asyncio.to_thread(runtime.invoke_model, modelId="m", body=payload)
            return reply["body"].read()
    """)
    assert ("blocking_http", 'return reply["body"].read()') in found


def test_the_body_of_a_response_awaited_from_an_async_client_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import aioboto3

        async def embed(payload, wide):
            async with aioboto3.Session().client("bedrock-runtime") as runtime:
                if wide:
                    reply = await runtime.invoke_model(modelId="wide", body=payload)
                else:
                    reply = await runtime.invoke_model(modelId="narrow", body=payload)
                return reply.get("body").read()
    """)
    assert found == set()


# -- a DSPy program's saved state read back with load ----------------------------------------------------------------
def test_loading_a_saved_dspy_program_reads_its_file_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import dspy

        class Tagger(dspy.Module):
            def __init__(self):
                super().__init__()
                self.step = dspy.Predict("text -> tags")

        async def tagger_from(path):
            program = Tagger()
            program.load(path)
            return program
    """)
    assert ("blocking_file_io", "program.load(path)") in found


def test_loading_a_saved_dspy_program_in_a_worker_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import dspy

        class Tagger(dspy.Module):
            def __init__(self):
                super().__init__()
                self.step = dspy.Predict("text -> tags")

        async def tagger_from(path):
            program = Tagger()
            await asyncio.to_thread(program.load, path)
            return program
    """)
    assert found == set()

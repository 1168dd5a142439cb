"""check blocking: kinds the measure-only waves 60 and 61 (issue 17, stop 51) missed or wrongly flagged, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from faultlib.detect.serving.blocking.fastmcp_pins import _pyproject
from tests.detect.blocking_source import flagged, flagged_package


# -- namespaces of an SDK the vocabulary lists whole; a synchronous transport handed to a constructor --------------
def test_namespaced_calls_of_a_whole_package_sdk_client_block(tmp_path):
    found = flagged(tmp_path, """
        import os
        from elevenlabs.client import ElevenLabs

        speech = ElevenLabs(api_key=os.environ["SPEECH_KEY"])

        async def describe(voice_id):
            voice = speech.voices.get(voice_id=voice_id)
            docs = speech.conversational_ai.knowledge_base.documents.create_from_url(url="https://example.org")
            return voice, docs
    """)
    assert found == {("blocking_http", "voice = speech.voices.get(voice_id=voice_id)"),
                     ("blocking_http", 'docs = speech.conversational_ai.knowledge_base.documents.create_from_url('
                                       'url="https://example.org")')}


def test_namespaced_calls_of_an_sdk_object_given_no_server_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from elevenlabs.client import ElevenLabs

        async def summary(holder: ElevenLabs):
            return holder.settings.items()
    """)
    assert found == set()


def test_an_unlisted_class_given_a_sync_http_transport_is_a_client(tmp_path):
    found = flagged(tmp_path, """
        import httpx
        from acme_speech import Speaker

        speaker = Speaker(httpx_client=httpx.Client(timeout=10))

        async def say(text):
            return speaker.lines.render(text=text)
    """)
    assert found == {("blocking_http", "return speaker.lines.render(text=text)")}


def test_an_unlisted_class_given_an_async_transport_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import httpx
        from acme_speech import Speaker

        speaker = Speaker(httpx_client=httpx.AsyncClient(timeout=10))

        async def say(text):
            return speaker.lines.render(text=text)
    """)
    assert found == set()


def test_pydantic_data_methods_of_an_sdk_type_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from elevenlabs.types import CompositionPlan

        async def plan_of(raw: dict):
            plan = CompositionPlan.model_validate(raw)
            return plan.model_dump_json()
    """)
    assert found == set()


# -- a spooled temporary file that never rolls over ----------------------------------------------------------------
def test_a_spooled_file_with_max_size_zero_is_memory(tmp_path):
    found = flagged(tmp_path, """
        import tempfile

        async def buffer_text(text):
            spool = tempfile.SpooledTemporaryFile(mode="w+", max_size=0)
            spool.write(text)
            spool.seek(0)
            return spool.read()
    """)
    assert found == set()


def test_a_spooled_file_with_a_size_still_writes_to_disk(tmp_path):
    found = flagged(tmp_path, """
        import tempfile

        async def buffer_text(text):
            spool = tempfile.SpooledTemporaryFile(max_size=4096, mode="w+")
            spool.write(text)
            return spool
    """)
    assert ("blocking_file_io", "spool.write(text)") in found


# -- BigQuery and Snowpark ------------------------------------------------------------------------------------------
def test_bigquery_job_results_and_default_credentials_block(tmp_path):
    found = flagged(tmp_path, """
        from google.cloud import bigquery

        class Warehouse:
            def __init__(self, project, key_file):
                creds = None
                if key_file:
                    creds = load_key(key_file)
                self.bq = bigquery.Client(credentials=creds, project=project)

            def rows(self, sql):
                job = self.bq.query(sql)
                return list(job.result())

        def load_key(path):
            return path

        async def handle(project, key_file, sql):
            return Warehouse(project, key_file).rows(sql)
    """)
    assert found == {("blocking_http", "self.bq = bigquery.Client(credentials=creds, project=project)"),
                     ("blocking_http", "job = self.bq.query(sql)"),
                     ("blocking_http", "return list(job.result())")}


def test_bigquery_references_and_given_credentials_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from google.cloud import bigquery

        async def reference(project, creds, name):
            client = bigquery.Client(project, creds)
            return client.dataset(name)
    """)
    assert found == set()


def test_snowpark_session_creation_and_actions_block(tmp_path):
    found = flagged(tmp_path, """
        from snowflake.snowpark import Session

        class Store:
            async def open(self, options):
                self.session = Session.builder.configs(options).create()

            async def frame(self, sql):
                lazy = self.session.sql(sql)
                return lazy.to_pandas()
    """)
    assert found == {("blocking_db", "self.session = Session.builder.configs(options).create()"),
                     ("blocking_db", "return lazy.to_pandas()")}


# -- pypandoc, dnspython ----------------------------------------------------------------------------------------------
def test_pypandoc_text_conversion_runs_pandoc(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import pypandoc

        async def to_html(markdown):
            inline = pypandoc.convert_text(markdown, "html", format="md")
            offloaded = await asyncio.to_thread(pypandoc.convert_text, markdown, "rst", format="md")
            return inline, offloaded
    """)
    assert found == {("blocking_subprocess", 'inline = pypandoc.convert_text(markdown, "html", format="md")')}


def test_dnspython_sync_resolver_blocks_and_the_async_one_does_not(tmp_path):
    found = flagged(tmp_path, """
        import dns.asyncresolver
        import dns.resolver

        async def has_address(host):
            resolver = dns.resolver.Resolver()
            resolver.lifetime = 2
            answer = resolver.resolve(host, "A")
            again = await dns.asyncresolver.resolve(host, "AAAA")
            return answer, again
    """)
    assert found == {("blocking_socket_io", 'answer = resolver.resolve(host, "A")')}


# -- the requests session a REST client keeps ---------------------------------------------------------------------
def test_the_atlassian_clients_session_sends_requests(tmp_path):
    found = flagged(tmp_path, """
        from atlassian import Confluence

        class Pages:
            def __init__(self, url, token):
                self.wiki = Confluence(url=url, token=token)

            def views(self, page_id):
                return self.wiki._session.get(f"/rest/analytics/{page_id}").json()

            def tag(self, name):
                self.wiki._session.headers.update({"X-Tag": name})

        async def page_views(url, token, page_id):
            pages = Pages(url, token)
            pages.tag("mcp")
            return pages.views(page_id)
    """)
    assert ("blocking_http", 'return self.wiki._session.get(f"/rest/analytics/{page_id}").json()') in found
    assert not any("headers.update" in line for _, line in found)


# -- standalone fastmcp pinned below 3 runs plain def tools on the loop ---------------------------------------------
_TOOLS = """
    import requests
    from fastmcp import FastMCP
    from fastmcp.tools import Tool

    mcp = FastMCP("probe")

    @mcp.tool()
    def status(url: str) -> int:
        return requests.get(url).status_code

    def body(url: str) -> str:
        return requests.get(url).text

    mcp.add_tool(Tool.from_function(body))
"""


def test_fastmcp_pinned_below_3_runs_sync_tools_inline(tmp_path):
    found = flagged_package(tmp_path, {"pyproject.toml": """
        [project]
        name = "probe"
        dependencies = ["fastmcp>=2.0.0,<3.0.0", "requests"]
    """, "server.py": _TOOLS})
    assert {line for _, _, line in found} == {"return requests.get(url).status_code", "return requests.get(url).text"}


def test_fastmcp_admitting_3_runs_sync_tools_in_threads(tmp_path):
    found = flagged_package(tmp_path, {"requirements.txt": "fastmcp==3.4.2\nrequests\n", "server.py": _TOOLS})
    assert found == set()


# -- Flask async views run on a loop of their own ------------------------------------------------------------------
_VIEW = """
    import requests
    from {package} import {app_class}

    app = {app_class}(__name__)

    @app.route("/fetch", methods=["POST"])
    async def fetch():
        return requests.get("https://example.org").text
"""


def test_a_flask_async_view_is_no_loop_entry(tmp_path):
    assert flagged(tmp_path, _VIEW.format(package="flask", app_class="Flask")) == set()


def test_a_quart_async_view_is_an_entry(tmp_path):
    found = flagged(tmp_path, _VIEW.format(package="quart", app_class="Quart"))
    assert found == {("blocking_http", 'return requests.get("https://example.org").text')}


# -- LangChain vector-store factories and their retriever ------------------------------------------------------------
def test_a_loaded_vector_stores_retriever_searches_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from langchain_community.vectorstores import FAISS

        def open_index(embeddings):
            return FAISS.load_local("index", embeddings, allow_dangerous_deserialization=True)

        async def ask(question, embeddings):
            store = open_index(embeddings)
            finder = store.as_retriever(search_kwargs={"k": 4})
            hits = finder.invoke(question)
            more = await finder.ainvoke(question)
            return hits, more
    """)
    assert ("blocking_http", "hits = finder.invoke(question)") in found
    assert not any("ainvoke" in line for _, line in found)


# -- a string-similarity function given a file's name opens nothing --------------------------------------------------
def test_comparing_file_names_by_similarity_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        from fuzzywuzzy import fuzz

        async def closest(wanted_file, names):
            wanted_filename = os.path.basename(wanted_file)
            return max(names, key=lambda name: fuzz.token_sort_ratio(wanted_filename, name))
    """)
    assert found == set()


def test_an_unlisted_package_function_given_a_file_path_still_opens_it(tmp_path):
    found = flagged(tmp_path, """
        from acme_audio import decode_track

        async def duration(track_path):
            return decode_track(track_path).seconds
    """)
    assert found == {("blocking_file_io", "return decode_track(track_path).seconds")}


# -- mixins composed into one client class ----------------------------------------------------------------------------
_MIXINS = {
    "shop/protocols.py": """
        from abc import abstractmethod
        from typing import Protocol

        class OrderLookup(Protocol):
            @abstractmethod
            def find_orders(self, query: str) -> list: ...
    """,
    "shop/base.py": """
        import requests

        class Base:
            def __init__(self, url):
                self.http = requests.Session()
                self.url = url
    """,
    "shop/orders.py": """
        from shop.base import Base

        class OrdersMixin(Base):
            def find_orders(self, query):
                return self.http.get(self.url, params={"q": query}).json()
    """,
    "shop/reports.py": """
        from typing import Any
        from shop.protocols import OrderLookup

        class ReportsMixin(OrderLookup):
            http: Any
            url: Any

            def weekly(self):
                return len(self.find_orders("week"))

            def ping(self):
                return self.http.head(self.url).ok
    """,
    "shop/client.py": """
        from shop.orders import OrdersMixin
        from shop.reports import ReportsMixin

        class ShopClient(OrdersMixin, ReportsMixin):
            pass

        async def weekly_report(url):
            client = ShopClient(url)
            return client.weekly(), client.ping()
    """,
}


def test_a_mixins_stub_call_and_attribute_resolve_through_the_composed_class(tmp_path):
    found = flagged_package(tmp_path, _MIXINS)
    assert ("shop/orders.py", "blocking_http", 'return self.http.get(self.url, params={"q": query}).json()') in found
    assert ("shop/reports.py", "blocking_http", "return self.http.head(self.url).ok") in found


def test_a_mixin_no_class_composes_stays_silent(tmp_path):
    alone = {**_MIXINS, "shop/client.py": """
        from shop.reports import ReportsMixin

        class Reports(ReportsMixin):
            def find_orders(self, query):
                return [query]

        async def weekly_report():
            return Reports().weekly()
    """}
    found = flagged_package(tmp_path, alone)
    assert not any(path == "shop/reports.py" or "find_orders" in line for path, _, line in found)


@pytest.mark.parametrize("text", ['project = "x"', "[tool]\npoetry = 3", "[project]\ndependencies = 7",
                                  "[tool.poetry]\ndependencies = []"])
def test_a_pyproject_of_odd_shapes_says_nothing_and_raises_nothing(tmp_path, text):
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    assert _pyproject(str(path)) == []


def test_a_pyproject_pin_is_read(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\ndependencies = ["fastmcp<3", 1]\n[tool.poetry.dependencies]\nfastmcp = "^2.3"\n')
    assert _pyproject(str(path)) == ["fastmcp<3", "fastmcp>=2.3,<3"]

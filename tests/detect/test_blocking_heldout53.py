"""check blocking: the kinds held-out wave 53 (issue 17; MCP servers, Telegram bots, an agent framework) left,
fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- GitPython: a repository's `git` command object and its `index` -----------------------------------------------------


def test_a_repositorys_git_command_object_runs_git(tmp_path):
    found = flagged(tmp_path, """
        import git

        def pending(repo: git.Repo) -> str:
            return repo.git.status("--short")

        async def tool(path):
            repo = git.Repo(path)
            text = pending(repo)
            repo.git.switch("main")
            return text
    """)
    assert ("blocking_subprocess", 'return repo.git.status("--short")') in found
    assert ("blocking_subprocess", 'repo.git.switch("main")') in found


def test_the_staging_area_writes_objects_and_runs_read_tree(tmp_path):
    found = flagged(tmp_path, """
        from git import Repo

        def save(repo: Repo, note: str):
            repo.index.add(["notes.txt"])
            return repo.index.commit(note)

        def unstage(repo: Repo):
            repo.index.reset()

        async def handle(repo: Repo, note: str):
            head = repo.rev_parse("HEAD")
            unstage(repo)
            return save(repo, note), head
    """)
    assert ("blocking_file_io", 'repo.index.add(["notes.txt"])') in found
    assert ("blocking_file_io", "return repo.index.commit(note)") in found
    assert ("blocking_subprocess", "repo.index.reset()") in found
    assert ("blocking_subprocess", 'head = repo.rev_parse("HEAD")') in found


def test_a_repositorys_plain_attributes_and_an_own_git_attribute_are_silent(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import PurePath
        from git import Repo

        class Tools:
            def status(self):
                return "clean"

        class Holder:
            def __init__(self):
                self.git = Tools()

        async def where(repo: Repo, holder: Holder):
            return PurePath(repo.working_dir).name, repo.git_dir, holder.git.status()
    """)
    assert not found


# -- the standard library's webbrowser ----------------------------------------------------------------------------------


def test_opening_the_users_browser_from_a_coroutine_runs_the_browser_lookup(tmp_path):
    found = flagged(tmp_path, """
        import webbrowser

        async def login(url):
            webbrowser.open(url, new=1)
            return url
    """)
    assert ("blocking_subprocess", "webbrowser.open(url, new=1)") in found


def test_opening_the_browser_in_a_worker_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import webbrowser

        async def login(url):
            await asyncio.to_thread(webbrowser.open, url)
            return url
    """)
    assert not found


# -- readabilipy's Readability.js mode runs node --------------------------------------------------------------------------


def test_readability_extraction_runs_node(tmp_path):
    found = flagged(tmp_path, """
        from readabilipy import simple_json

        def simplify(html: str) -> str:
            return simple_json.simple_json_from_html_string(html, use_readability=True)["content"]

        async def fetch(body: str):
            return simplify(body)
    """)
    assert ("blocking_subprocess",
            'return simple_json.simple_json_from_html_string(html, use_readability=True)["content"]') in found


def test_readabilipys_pure_python_mode_is_no_subprocess(tmp_path):
    found = flagged(tmp_path, """
        from readabilipy import simple_json_from_html_string

        async def fetch(body: str):
            return simple_json_from_html_string(body)["plain_content"]
    """)
    assert not found


# -- Aspose.Words documents ------------------------------------------------------------------------------------------------


def test_aspose_words_loads_and_compares_documents(tmp_path):
    found = flagged(tmp_path, """
        import aspose.words as aw
        from datetime import datetime

        def changed(old_path, new_path) -> bool:
            old = aw.Document(old_path)
            new = aw.Document(new_path)
            old.compare(new, "bot", datetime.now())
            return old.revisions.count > 0

        async def poll(a, b):
            return changed(a, b)
    """)
    assert ("blocking_file_io", "old = aw.Document(old_path)") in found
    assert ("blocking_cpu", 'old.compare(new, "bot", datetime.now())') in found


def test_a_new_empty_aspose_document_reads_nothing(tmp_path):
    found = flagged(tmp_path, """
        import aspose.words as aw

        async def blank():
            return aw.Document()
    """)
    assert not found


# -- client constructors and factories the vocabulary did not type ---------------------------------------------------------


def test_a_jira_client_asks_the_server_for_its_info_when_built(tmp_path):
    found = flagged(tmp_path, """
        from jira import JIRA

        class Tracker:
            def __init__(self, url, user, token):
                self.jira = JIRA(server=url, basic_auth=(user, token))

        async def nightly(url, user, token):
            return Tracker(url, user, token)
    """)
    assert ("blocking_http", "self.jira = JIRA(server=url, basic_auth=(user, token))") in found


def test_a_jira_client_told_not_to_fetch_server_info_sends_nothing_when_built(tmp_path):
    found = flagged(tmp_path, """
        from jira import JIRA

        async def client(url, token):
            return JIRA(server=url, token_auth=token, get_server_info=False)
    """)
    assert not found


def test_a_gspread_client_from_authorize_sends_requests(tmp_path):
    found = flagged(tmp_path, """
        import gspread

        class Sheets:
            def __init__(self, credentials):
                self.client = gspread.authorize(credentials)

            def rows(self, key, name):
                return self.client.open_by_key(key).worksheet(name).get_all_records()

        async def import_rows(credentials, key):
            return Sheets(credentials).rows(key, "Tasks")
    """)
    assert ("blocking_http", 'return self.client.open_by_key(key).worksheet(name).get_all_records()') in found


def test_gspreads_cell_helpers_send_nothing(tmp_path):
    found = flagged(tmp_path, """
        from gspread.utils import rowcol_to_a1

        async def label(row, col):
            return rowcol_to_a1(row, col)
    """)
    assert not found


def test_a_chroma_collections_modify_is_a_request(tmp_path):
    found = flagged(tmp_path, """
        import chromadb

        client = chromadb.HttpClient(host="chroma", port=8000)

        async def rename(old, new):
            collection = client.get_collection(old)
            collection.modify(name=new)
    """)
    assert ("blocking_http", "collection.modify(name=new)") in found


def test_an_instructor_wrapped_bedrock_client_waits_for_the_answer(tmp_path):
    found = flagged(tmp_path, """
        import boto3
        import instructor

        runtime = boto3.client("bedrock-runtime")

        async def extract(model, text, schema):
            client = instructor.from_bedrock(runtime)
            return client.chat.completions.create(modelId=model, messages=[{"role": "user", "content": text}],
                                                  response_model=schema)
    """)
    assert any(kind == "blocking_http" and line.startswith("return client.chat.completions.create(")
               for kind, line in found)


def test_an_instructor_wrapped_async_client_is_awaited(tmp_path):
    found = flagged(tmp_path, """
        import instructor
        from openai import AsyncOpenAI

        async def extract(text, schema):
            client = instructor.from_openai(AsyncOpenAI())
            return await client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}],
                                                        response_model=schema)
    """)
    assert not found


# -- a lazy module global the sync entry point fills before it starts the loop ------------------------------------------


LAZY_NOTES_SERVER = """
import sqlite3
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")
_conn = None

def connection(path="notes.db"):
    global _conn
    if _conn is None:
        _conn = sqlite3.connect(path)
    return _conn

@mcp.tool()
async def count() -> int:
    return connection().total_changes
"""
"""An MCP server whose tool reads a connection built on first use; each test adds its own entry point."""


def test_a_lazy_client_the_entry_point_builds_before_serving_is_not_built_on_the_loop(tmp_path):
    found = flagged(tmp_path, LAZY_NOTES_SERVER + """
def main():
    try:
        connection("/var/notes.db")
    except Exception:
        raise
    mcp.run(transport="stdio")
""")
    assert not any("sqlite3.connect" in line for _, line in found)


def test_a_lazy_client_built_after_the_loop_starts_or_only_sometimes_is_still_built_on_the_loop(tmp_path):
    found = flagged(tmp_path, LAZY_NOTES_SERVER + """
def main(warm: bool):
    if warm:
        connection()
    mcp.run(transport="stdio")
    connection()
""")
    assert ("blocking_db", "_conn = sqlite3.connect(path)") in found


# -- a parameter annotated with a module is typed from its callers; a WebDriver's page source is a command ------------


def test_a_driver_handed_down_through_a_parameter_annotated_with_its_package_still_blocks(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from selenium import webdriver

        class Fallback:
            def _start(self):
                return webdriver.Firefox()

            def _page(self, driver, url):
                driver.get(url)
                return driver.page_source

            async def one(self, url, driver: webdriver = None):
                return self._page(driver, url)

            async def many(self, urls):
                driver = self._start()
                return await asyncio.gather(*[self.one(url=u, driver=driver) for u in urls])
    """)
    assert ("blocking_http", "driver.get(url)") in found
    assert ("blocking_http", "return driver.page_source") in found


def test_a_parameter_annotated_with_a_package_holding_no_client_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from selenium import webdriver

        def options(headless):
            opts = webdriver.ChromeOptions()
            if headless:
                opts.add_argument("--headless")
            return opts

        class Settings:
            def build(self, headless):
                return options(headless)

        async def configure(settings: webdriver = None):
            return Settings().build(True)
    """)
    assert not found

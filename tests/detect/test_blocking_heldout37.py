"""check blocking: the kinds held-out wave 37 (issue 17; Discord and Telegram bots, Home Assistant integrations, a
grpc.aio model server, a RAG API on an async database client, an asyncio crawler) got wrong, fixed by kind: Home
Assistant's executor jobs, an async request builder guessed a sync client by its name, a service hung on a bot object,
an instance kept in a class attribute, a flow step the framework calls with the form, a zero sleep, and the vocabulary
of pymongo's count, Pillow's rotate and python-magic.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations


from tests.detect.blocking_source import flagged, flagged_package



# -- Home Assistant runs an executor job's target in its thread pool --------------------------------------------------
def test_a_lambda_handed_to_a_home_assistant_executor_job_runs_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Display:
            async def refresh(self):
                shot = await self.hass.async_add_executor_job(lambda: requests.get(self.url, timeout=5))
                cfg = await self.hub.hass.async_add_executor_job(lambda: open(self.path, "rb").read())
                return requests.get(self.url + "/status", timeout=5), shot, cfg

        async def reboot(hass, url):
            await hass.async_add_executor_job(lambda: requests.post(url))
            return requests.post(url + "/ack")
    """)
    assert found == {("blocking_http", 'return requests.get(self.url + "/status", timeout=5), shot, cfg'),
                     ("blocking_http", 'return requests.post(url + "/ack")')}


# -- a request builder whose last call is awaited is an async client --------------------------------------------------
def test_a_client_whose_call_chains_end_awaited_is_no_sync_client_guess(tmp_path):
    found = flagged(tmp_path, """
        from billing import LedgerClient
        from supabase import AClient

        class Items:
            def __init__(self, db: AClient, ledger: LedgerClient):
                self.db = db
                self.ledger = ledger

            async def add(self, row):
                made = await self.db.table("items").insert(row).execute()
                await self.db.rpc("touch_items", params={"id": row["id"]}).execute()
                self.ledger.table("entries").insert(row).execute()
                return made
    """)
    assert found == {("blocking_http", 'self.ledger.table("entries").insert(row).execute()')}


# -- a service hung on the bot object and read back in a cog ---------------------------------------------------------
BOT_MAIN = """
    import discord
    from discord.ext import commands

    from svc.api import Backend

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())

    @bot.event
    async def setup_hook():
        bot.api = Backend()
"""
BOT_API = """
    import os

    import requests

    class Backend:
        def __init__(self):
            self.api = os.getenv("BACKEND_URL", "http://api.local")

        def role(self, role_id):
            return requests.get(f"{self.api}/roles/{role_id}", timeout=10).json()
"""


BOT_FILES = {"__init__.py": "", "main.py": BOT_MAIN, "api.py": BOT_API, "cogs/__init__.py": ""}


def test_a_service_hung_on_the_bot_is_what_a_cog_reads_back(tmp_path):
    found = flagged_package(tmp_path, {**BOT_FILES, "cogs/roles.py": """
        from discord.ext import commands

        class Roles(commands.Cog):
            def __init__(self, bot):
                self.bot = bot

            @commands.command()
            async def role(self, ctx):
                await ctx.send(str(self.bot.api.role("6")))

        async def setup(bot):
            await bot.add_cog(Roles(bot))
    """})
    assert found == {("api.py", "blocking_http",
                      'return requests.get(f"{self.api}/roles/{role_id}", timeout=10).json()')}


def test_a_service_hung_on_the_bot_is_read_through_a_differently_named_bot_of_the_same_class(tmp_path):
    found = flagged_package(tmp_path, {**BOT_FILES, "cogs/audit.py": """
        from discord.ext import commands

        async def audit(robot: commands.Bot):
            return robot.api.role("1")
    """})
    assert found == {("api.py", "blocking_http",
                      'return requests.get(f"{self.api}/roles/{role_id}", timeout=10).json()')}


def test_an_attribute_read_on_another_object_or_stored_on_a_project_object_is_not_the_bots(tmp_path):
    found = flagged_package(tmp_path, {**BOT_FILES, "cogs/roles.py": """
        from discord.ext import commands

        class Roles(commands.Cog):
            def __init__(self, bot, session):
                self.bot = bot
                self.session = session

            @commands.command()
            async def role(self, ctx):
                await ctx.send(str(self.session.api.role("6")))
    """, "cogs/local.py": """
        from svc.api import Backend

        class Holder:
            pass

        def build():
            holder = Holder()
            holder.cache = Backend()
            return holder

        async def show(box):
            return box.cache.role("7")
    """})
    assert found == set()


# -- an instance kept in a class attribute ----------------------------------------------------------------------------
def test_a_model_kept_in_a_class_attribute_runs_where_self_calls_it(tmp_path):
    found = flagged(tmp_path, """
        import httpx
        from llama_cpp import Llama

        class Model:
            llm = Llama(model_path="model.gguf")
            http = httpx.AsyncClient()
            limit = int("4")

            async def generate(self, prompt):
                for part in self.llm(prompt, stream=True):
                    yield part["choices"][0]["text"]

            async def ping(self):
                return await self.http.get("http://localhost/health"), self.limit
    """)
    assert found == {("blocking_cpu", "for part in self.llm(prompt, stream=True):")}


# -- a flow step the framework calls with the submitted form ----------------------------------------------------------
def test_a_framework_step_is_not_narrowed_by_the_projects_own_call(tmp_path):
    found = flagged(tmp_path, """
        import json

        from homeassistant import config_entries

        class PrayerFlow(config_entries.ConfigFlow, domain="prayer"):
            async def async_step_user(self, user_input=None):
                return await self.async_step_mosque()

            async def async_step_mosque(self, user_input=None):
                if user_input is not None:
                    with open("/config/prayer.json", "w") as f:
                        json.dump(user_input, f)
                    return self.async_create_entry(title="prayer", data=user_input)
                return self.async_show_form(step_id="mosque")

            async def async_step_reset(self, user_input=None):
                self._dump()
                return self.async_abort(reason="reset")

            def _dump(self, path=None):
                if path:
                    with open(path, "w") as f:
                        f.write("{}")
    """)
    assert found == {("blocking_file_io", 'with open("/config/prayer.json", "w") as f:')}


# -- a zero sleep yields and returns ----------------------------------------------------------------------------------
def test_a_zero_sleep_is_no_wait_and_a_variable_one_still_is(tmp_path):
    found = flagged(tmp_path, """
        import time

        async def pump(queue, backoff):
            while queue:
                queue.pop()
                time.sleep(0)
            time.sleep(backoff)
            time.sleep(0.5)
    """)
    assert found == {("blocking_sleep", "time.sleep(backoff)"), ("blocking_sleep", "time.sleep(0.5)")}


# -- vocabulary: pymongo's count, Pillow's rotate, python-magic -------------------------------------------------------
def test_the_vocabulary_of_pymongo_count_pillow_rotate_and_python_magic(tmp_path):
    found = flagged(tmp_path, """
        import io

        import magic
        import pymongo
        from PIL import Image

        files = pymongo.MongoClient("mongodb://db")["bot"]["files"]

        async def seen(url):
            return files.count({"url": url}) > 0

        async def turn(data, angle):
            img = Image.open(io.BytesIO(data))
            return img.rotate(angle, expand=True), img.size

        async def sniff(path, head):
            return magic.from_file(path, mime=True), magic.from_buffer(head, mime=True)
    """)
    sniffed = "return magic.from_file(path, mime=True), magic.from_buffer(head, mime=True)"
    assert found == {("blocking_db", 'return files.count({"url": url}) > 0'),
                     ("blocking_cpu", "return img.rotate(angle, expand=True), img.size"),
                     ("blocking_file_io", sniffed)}


# -- the atomic-write idiom: a serialiser writes the file os.fdopen wrapped --------------------------------------------
def test_a_serialiser_into_an_fdopen_file_object_is_the_write(tmp_path):
    found = flagged(tmp_path, """
        import io
        import json
        import os
        import tempfile

        import yaml

        async def persist(state, path):
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(state, f, indent=2)
            os.replace(tmp, path)
            buffer = io.StringIO()
            json.dump(state, buffer)
            with open(path) as g:
                json.load(g)
            with os.fdopen(os.open(path + ".yml", os.O_RDONLY)) as h:
                return yaml.safe_load(stream=h), buffer.getvalue()
    """)
    assert found == {("blocking_file_io", "json.dump(state, f, indent=2)"),
                     ("blocking_file_io", "with open(path) as g:"),
                     ("blocking_file_io", "return yaml.safe_load(stream=h), buffer.getvalue()")}

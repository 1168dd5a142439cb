"""check blocking: the kinds held-out wave 57 (issue 17; Django Channels consumers, matrix and Slack bots, Celery
producers in async handlers) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- Django's ORM in async consumers ----------------------------------------------------------------------------------

_MODELS = """
    from django.db import models
    from asgiref.sync import sync_to_async
    from channels.db import database_sync_to_async
    from channels.generic.websocket import AsyncJsonWebsocketConsumer


    class Board(models.Model):
        title = models.CharField(max_length=40)
        moves = models.TextField()
"""


def test_django_orm_queries_in_an_async_consumer_are_found(tmp_path):
    found = flagged(tmp_path, _MODELS + """

    class BoardSocket(AsyncJsonWebsocketConsumer):
        async def receive_json(self, content):
            board = Board.objects.get(pk=content["id"])
            total = Board.objects.filter(title="open").count()
            drafts = Board.objects.exclude(title="").order_by("title")
            first = drafts[0]
            for each in Board.objects.all():
                print(each)
            fresh = Board(title="new", moves="")
            fresh.save()
            self.archive(content["id"])
            board.delete()
            return board, total, first

        def archive(self, board_id):
            Board.objects.filter(pk=board_id).update(title="archived")
    """)
    assert ("blocking_db", 'board = Board.objects.get(pk=content["id"])') in found
    assert ("blocking_db", 'total = Board.objects.filter(title="open").count()') in found
    assert ("blocking_db", "first = drafts[0]") in found
    assert ("blocking_db", "for each in Board.objects.all():") in found
    assert ("blocking_db", "fresh.save()") in found
    assert ("blocking_db", "board.delete()") in found  # an instance a manager's get returned
    assert ("blocking_db", 'Board.objects.filter(pk=board_id).update(title="archived")') in found
    assert not any("order_by" in line for _, line in found)  # building a queryset runs nothing


def test_django_orm_wrapped_sliced_or_async_api_is_silent(tmp_path):
    found = flagged(tmp_path, _MODELS + """

    class BoardSocket(AsyncJsonWebsocketConsumer):
        async def receive_json(self, content):
            board = await sync_to_async(Board.objects.get)(pk=content["id"])
            page = Board.objects.filter(title="open")[:10]
            count = await Board.objects.acount()
            await self.load_titles()
            await self.rename(content["id"])
            return board, page, count

        @database_sync_to_async
        def load_titles(self):
            return [b.title for b in Board.objects.all()]

        @sync_to_async
        def rename(self, board_id):
            Board.objects.filter(pk=board_id).update(title="renamed")
    """)
    assert not found


def test_a_model_without_the_django_base_has_no_default_manager(tmp_path):
    found = flagged(tmp_path, """
        class Registry:
            objects = {}

            @classmethod
            def get(cls, key):
                return cls.objects.get(key)

        class Plain:
            pass

        async def lookup(key):
            return Registry.get(key), Registry.objects.get(key)
    """)
    assert not found


# -- a sync fallback taken only when no event loop runs ---------------------------------------------------------------


_WRITER = """
    import asyncio

    def write_row(path, text):
        with open(path, "a") as fh:
            fh.write(text)
"""


def test_the_no_running_loop_fallback_of_a_get_running_loop_probe_is_silent(tmp_path):
    found = flagged(tmp_path, _WRITER + """

    def record(path, text):
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            write_row(path, text)
            return None
        return loop.run_in_executor(None, write_row, path, text)

    async def handler(path):
        await record(path, "seen")
    """)
    assert not found


def test_a_broader_handler_or_the_probe_s_own_branch_still_blocks(tmp_path):
    found = flagged(tmp_path, _WRITER + """

    def record(path, text):
        try:
            asyncio.get_running_loop()
            write_row(path, text)
        except RuntimeError:
            return None

    def record_any(path, text):
        try:
            value = int(text)
        except Exception:
            write_row(path, text)

    async def handler(path):
        record(path, "seen")
        record_any(path, "x")
    """)
    assert ("blocking_file_io", 'with open(path, "a") as fh:') in found


# -- an async twin class is no inferred sync client ------------------------------------------------------------------


def test_an_async_framework_app_given_a_token_is_no_inferred_client(tmp_path):
    found = flagged(tmp_path, """
        import os
        from chatframe.app.async_app import AsyncApp

        class Bot:
            def __init__(self):
                self.app = AsyncApp(token=os.environ["CHAT_TOKEN"])
                self.app.use(self.middleware)
                self.app.error(self.on_error)

            async def middleware(self, body):
                return body

            async def on_error(self, error):
                return None

        async def main():
            bot = Bot()
            return bot
    """)
    assert not found


def test_the_same_package_s_sync_client_given_a_token_is_still_inferred(tmp_path):
    found = flagged(tmp_path, """
        import os
        from chatframe.web import WebClient

        class Bot:
            def __init__(self):
                self.web = WebClient(token=os.environ["CHAT_TOKEN"])

            def post(self, channel, text):
                return self.web.chat_post_message(channel=channel, text=text)

        async def main():
            return Bot().post("general", "up")
    """)
    assert ("blocking_http", 'return self.web.chat_post_message(channel=channel, text=text)') in found


# -- matrix-nio: a plain def registered with add_event_callback runs on the client's loop ----------------------------


def test_a_sync_nio_event_callback_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import requests
        from nio import AsyncClient, RoomMessageText

        class Relay:
            def __init__(self, client: AsyncClient):
                self.client = client
                client.add_event_callback(self.on_text, RoomMessageText)

            def on_text(self, room, event):
                requests.post("https://hooks.example.org/in", json={"body": event.body}, timeout=5)

        def on_any(room, event):
            with open("seen.log", "a") as fh:
                fh.write(event.sender)

        async def main():
            client = AsyncClient("https://matrix.example.org", "@relay:example.org")
            Relay(client)
            client.add_event_callback(on_any, RoomMessageText)
            await client.sync_forever(timeout=30000)
    """)
    assert ("blocking_http", 'requests.post("https://hooks.example.org/in", json={"body": event.body}, timeout=5)') \
        in found
    assert ("blocking_file_io", 'with open("seen.log", "a") as fh:') in found


def test_a_callback_given_to_another_client_s_add_event_callback_is_not_an_entry(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class DesktopMonitor:
            def __init__(self):
                self.callbacks = []

            def add_event_callback(self, fn):
                self.callbacks.append(fn)

        def on_event(event):
            requests.post("https://hooks.example.org/in", json=event, timeout=5)

        monitor = DesktopMonitor()
        monitor.add_event_callback(on_event)

        async def tick():
            return len(monitor.callbacks)
    """)
    assert not found


# -- discord.File opens a path in its constructor --------------------------------------------------------------------


def test_discord_file_from_a_path_opens_it_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import discord

        async def send_log(channel, guild_id):
            name = f"errors {guild_id}.txt"
            await channel.send(file=discord.File(name))

        async def send_card(channel):
            card = discord.File("card.png", filename="card.png")
            await channel.send(file=card)
    """)
    assert ("blocking_file_io", "await channel.send(file=discord.File(name))") in found
    assert ("blocking_file_io", 'card = discord.File("card.png", filename="card.png")') in found


def test_discord_file_from_a_buffer_or_built_off_the_loop_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io
        import discord

        async def send_chart(channel, data: bytes):
            buffer = io.BytesIO(data)
            await channel.send(file=discord.File(buffer, filename="chart.png"))

        async def send_big(channel, path):
            upload = await asyncio.to_thread(discord.File, path)
            await channel.send(file=upload)
    """)
    assert not found


def test_discord_file_of_paths_built_many_ways_is_found(tmp_path):
    found = flagged(tmp_path, """
        import os
        from pathlib import Path
        import discord

        BANNER = Path("assets") / "banner.png"

        async def send_banner(channel):
            await channel.send(file=discord.File(BANNER))

        async def send_export(channel, folder):
            await channel.send(file=discord.File(os.path.join(folder, "export.csv")))

        async def send_temp(ctx, folder: str):
            await ctx.send(file=discord.File(str(folder) + "/temp.gif"))
    """)
    assert ("blocking_file_io", "await channel.send(file=discord.File(BANNER))") in found
    assert ("blocking_file_io", 'await channel.send(file=discord.File(os.path.join(folder, "export.csv")))') in found
    assert ("blocking_file_io", 'await ctx.send(file=discord.File(str(folder) + "/temp.gif"))') in found


def test_discord_file_of_an_opened_handle_or_an_awaited_render_is_silent(tmp_path):
    # the `open` of the with-block is the blocking call (reported there); File only wraps the handle; a render a
    # worker thread returned is a stream the constructor wraps
    found = flagged(tmp_path, """
        import asyncio
        import discord

        async def send_legend(ctx):
            with open("legend.png", "rb") as handle:
                await ctx.send(file=discord.File(handle))

        async def send_fried(ctx, render):
            image = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(None, render), timeout=60)
            await ctx.send(file=discord.File(image))
    """)
    assert [f for f in found if "discord.File" in f[1]] == []


# -- Celery: task.run(...) runs the task's body inline ---------------------------------------------------------------

_TASKS = """
    import asyncio
    import requests
    from celery import Celery

    app = Celery("jobs", broker="redis://localhost")


    @app.task
    def fetch_report(url):
        return requests.get(url, timeout=30).text
"""


def test_celery_task_run_executes_the_body_on_the_loop(tmp_path):
    found = flagged(tmp_path, _TASKS + """

    async def report_view(url):
        return fetch_report.run(url)
    """)
    assert ("blocking_http", "return requests.get(url, timeout=30).text") in found


def test_celery_task_run_handed_to_a_thread_or_a_plain_run_is_silent(tmp_path):
    found = flagged(tmp_path, _TASKS + """

    def summarise(url):
        return url.upper()

    async def report_view(url):
        text = await asyncio.to_thread(fetch_report.run, url)
        return text, summarise.__name__
    """)
    assert not found


# -- a return annotation naming a factory function (-> boto3.client) ------------------------------------------------

_FACTORY = """
    import asyncio
    import boto3


    class Vault:
        @staticmethod
        def __make_client() -> boto3.client:
            return boto3.client("s3", region_name="eu-west-1")

        @staticmethod
        def store(key, body):
            client = Vault.__make_client()
            client.put_object(Bucket="archive", Key=key, Body=body)

        @staticmethod
        def region():
            return Vault.__make_client().meta.region_name
"""


def test_a_client_from_a_factory_annotated_private_staticmethod_is_typed(tmp_path):
    found = flagged(tmp_path, _FACTORY + """

    async def upload(key, body):
        Vault.store(key, body)
    """)
    assert ("blocking_http", 'client.put_object(Bucket="archive", Key=key, Body=body)') in found


def test_the_factory_annotated_client_off_the_loop_is_silent(tmp_path):
    found = flagged(tmp_path, _FACTORY + """

    async def upload(key, body):
        await asyncio.to_thread(Vault.store, key, body)
    """)
    assert not any("put_object" in line for _, line in found)


# -- a class defined again under the same name: the first one's handlers are dead -------------------------------------

_SHADOWED = """
    import tornado.web


    class UploadHandler(tornado.web.RequestHandler):
        def post(self):
            with open("/tmp/upload.bin", "wb") as fh:
                fh.write(self.request.body)

"""


def test_a_handler_of_a_class_redefined_below_is_no_entry(tmp_path):
    found = flagged(tmp_path, _SHADOWED + """
    class UploadHandler(tornado.web.RequestHandler):
        def get(self):
            self.write("ok")
    """)
    assert not found


def test_a_handler_class_defined_once_still_blocks(tmp_path):
    found = flagged(tmp_path, _SHADOWED + """
    class StatusHandler(tornado.web.RequestHandler):
        def get(self):
            self.write("ok")
    """)
    assert ("blocking_file_io", 'with open("/tmp/upload.bin", "wb") as fh:') in found


# -- a lazily filled global that only a separately run script (a Streamlit page) fills at its top level --------------

_TRACKER = """
    import requests

    _tracker = None

    def get_tracker():
        global _tracker
        if _tracker is None:
            _tracker = requests.post("https://tracking.example.org/session", timeout=5).json()
        return _tracker
"""


def test_a_cache_filled_only_by_a_script_page_still_blocks_the_service(tmp_path):
    found = flagged_package(tmp_path, {
        "tracking.py": _TRACKER,
        "bot.py": """
            from tracking import get_tracker

            async def on_reaction(event):
                return get_tracker()
        """,
        "pages/2_Feedback_Board.py": """
            from tracking import get_tracker

            board = get_tracker()
        """,
    })
    assert ("tracking.py", "blocking_http",
            '_tracker = requests.post("https://tracking.example.org/session", timeout=5).json()') in found


def test_a_cache_an_imported_module_fills_at_import_is_warm(tmp_path):
    found = flagged_package(tmp_path, {
        "tracking.py": _TRACKER,
        "bot.py": """
            from tracking import get_tracker

            TRACKER = get_tracker()

            async def on_reaction(event):
                return get_tracker()
        """,
    })
    assert not found


# -- a project module named like the library it wraps (tracking/acmetrace.py beside `import acmetrace`) ---------------

_CONFIG = """
    import os
    from acmetrace import Recorder

    def make_client():
        return Recorder(host=os.environ["TRACE_HOST"], token=os.environ["TRACE_TOKEN"])
"""


def test_a_namesake_module_does_not_hide_the_library_s_client(tmp_path):
    found = flagged_package(tmp_path, {
        "config.py": _CONFIG,
        "tracking/__init__.py": "",
        "tracking/acmetrace.py": """
            from config import make_client

            class AcmeTracker:
                def __init__(self):
                    self.client = make_client()

                def record(self, name):
                    self.client.create_dataset(name=name)
        """,
        "bot.py": """
            from tracking.acmetrace import AcmeTracker

            async def on_event(name):
                AcmeTracker().record(name)
        """,
    })
    assert ("tracking/acmetrace.py", "blocking_http", "self.client.create_dataset(name=name)") in found


def test_a_top_level_module_of_the_project_is_still_its_own(tmp_path):
    found = flagged_package(tmp_path, {
        "acmetrace.py": """
            class Recorder:
                def __init__(self, host, token):
                    self.host, self.token = host, token

                def create_dataset(self, name):
                    return {"host": self.host, "name": name}
        """,
        "config.py": _CONFIG,
        "bot.py": """
            from config import make_client

            async def on_event(name):
                make_client().create_dataset(name=name)
        """,
    })
    assert not found


def test_a_settings_package_re_exporting_its_modules_with_a_star_import_is_the_project_s_own(tmp_path):
    # `settings/__init__.py` re-exports `settings/base.py` with `from .base import *`; a command-line module
    # writes a proxy URL into it: `settings.KEYWORDS` stays the project's string, not a third-party client
    found = flagged_package(tmp_path, {
        "settings/__init__.py": "from .base import *\n",
        "settings/base.py": """
            KEYWORDS = "alpha,beta"
            PROXY_URL = ""
        """,
        "cli.py": """
            import settings

            def apply(proxy_url):
                settings.PROXY_URL = proxy_url
        """,
        "crawler.py": """
            import settings

            async def search(fetch):
                for keyword in settings.KEYWORDS.split(","):
                    await fetch(keyword)
        """,
    })
    assert not found

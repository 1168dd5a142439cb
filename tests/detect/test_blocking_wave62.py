"""check blocking, held-out wave 62 (Discord and Telegram bots): a py-cord bot's ``load_extension`` called from a
coroutine runs the extension's ``setup`` and its cogs' constructors on the loop; a wrapper module named after the
library it wraps (``helpers/openai.py`` importing ``openai``) shows that the name is the installed package, also
where a second namesake (a cog module ``openai.py`` with a class ``OpenAI``) exists, while a project module's
namesake changes nothing; Amplitude's ``track`` only
buffers the event. Each blocker is found at its line; each look-alike stays silent. Every example is written for
this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

_PROMPT_COG = """
    import discord
    import requests
    from discord.ext import commands

    class Persona(commands.Cog):
        def __init__(self, bot):
            self.bot = bot
            self.prompt = requests.get("http://127.0.0.1:9000/prompt").text

    def setup(bot):
        bot.add_cog(Persona(bot))
"""

_SCORES_COG = """
    import json
    import discord
    from discord.ext import commands

    class Scores(commands.Cog):
        def __init__(self, bot):
            self.bot = bot
            with open("scores.json") as fh:
                self.table = json.load(fh)

    def setup(bot):
        bot.add_cog(Scores(bot))
"""


def test_extensions_loaded_from_a_coroutine_run_their_setup_on_the_loop(tmp_path):
    found = flagged_package(tmp_path, {
        "main.py": """
            import discord

            bot = discord.Bot()
            NAMES = ["persona", "scores"]

            @bot.event
            async def on_ready():
                for name in NAMES:
                    bot.load_extension(f"plugins.{name}")

            @bot.slash_command()
            async def refresh(ctx, which: str):
                bot.reload_extension(which)
                await ctx.respond("done")
        """,
        "plugins/persona.py": _PROMPT_COG,
        "plugins/scores.py": _SCORES_COG,
    })
    assert found == {
        ("plugins/persona.py", "blocking_http", 'self.prompt = requests.get("http://127.0.0.1:9000/prompt").text'),
        ("plugins/scores.py", "blocking_file_io", 'with open("scores.json") as fh:'),
    }


def test_extensions_loaded_before_the_loop_or_async_setups_are_not_followed(tmp_path):
    found = flagged_package(tmp_path, {
        "main.py": """
            import discord

            bot = discord.Bot()
            for name in ("persona", "scores"):
                bot.load_extension("plugins." + name)

            @bot.event
            async def on_ready():
                await bot.load_extension("plugins.modern")
                await bot.load_extension("docs.conf")

            bot.run("token")
        """,
        "plugins/persona.py": _PROMPT_COG,
        "plugins/scores.py": _SCORES_COG,
        "plugins/modern.py": """
            import discord
            from discord.ext import commands

            class Modern(commands.Cog):
                pass

            async def setup(bot):
                await bot.add_cog(Modern())
        """,
        "docs/conf.py": """
            import json

            def setup(app):
                with open("theme.json") as fh:
                    app.theme = json.load(fh)
        """,
    })
    assert found == set()


_CHAT_HELPER = """
    from openai import OpenAI

    client = OpenAI(api_key="k")

    async def reply(prompt):
        answer = client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
        return answer.choices[0].message.content
"""


def test_a_wrapper_named_after_its_library_keeps_the_library_s_calls(tmp_path):
    found = flagged_package(tmp_path, {
        "helpers/__init__.py": "",
        "helpers/openai.py": _CHAT_HELPER,
        "cogs/openai.py": """
            from discord.ext import commands
            from helpers import openai

            class OpenAI(commands.Cog):
                @commands.command()
                async def ask(self, ctx, *, prompt):
                    await ctx.send(await openai.reply(prompt))
        """,
    })
    assert found == {("helpers/openai.py", "blocking_http",
                      'answer = client.chat.completions.create(model="m", messages=[{"role": "user", '
                      '"content": prompt}])')}


def test_a_namesake_of_a_project_module_does_not_make_it_a_library(tmp_path):
    found = flagged_package(tmp_path, {
        "bot/store.py": """
            class Client:
                def __init__(self, token):
                    self.token = token
                    self.rows = {}

                def get(self, key):
                    return self.rows.get(key)
        """,
        "bot/plugins/store.py": """
            from store import Client

            shared = Client(token="local")

            async def lookup(key):
                return shared.get(key)
        """,
    })
    assert found == set()


def test_amplitude_track_only_buffers_the_event(tmp_path):
    found = flagged(tmp_path, """
        from amplitude import Amplitude, BaseEvent

        analytics = Amplitude(api_key="secret-key")

        async def on_start(user_id: str):
            analytics.track(BaseEvent(event_type="start", user_id=user_id))

        async def on_exit():
            analytics.shutdown()
    """)
    assert found == {("blocking_http", "analytics.shutdown()")}

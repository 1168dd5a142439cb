"""check blocking: the families wave 32 left unnamed -- config-file readers, local speech engines (piper, vosk),
SQL through pandas and ``dataset``, ccxt's implicit endpoint methods. Each blocker is found at its line; each
look-alike (an in-memory parse, an awaited twin, a call offloaded to a thread) stays silent. Every example is
written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_config_files_read_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import argparse
        import confuse
        import trafaret as t
        from dotenv import dotenv_values, load_dotenv
        from hydra import compose
        from omegaconf import OmegaConf
        from trafaret_config import commandline, read_and_validate

        SHAPE = t.Dict({"port": t.Int()})

        def settings_from(argv):
            parser = argparse.ArgumentParser()
            commandline.standard_argparse_options(parser, default_config="svc.yaml")
            opts = parser.parse_args(argv)
            return commandline.config_from_options(opts, SHAPE)

        async def boot(argv):
            base = settings_from(argv)
            extra = read_and_validate("extra.yaml", SHAPE)
            tuned = OmegaConf.load("tuned.yaml")
            load_dotenv()
            local = dotenv_values(".env.local")
            app = confuse.Configuration("svc", __name__)
            run = compose(config_name="serve")
            return base, extra, tuned, local, app, run
    """)
    assert found == {("blocking_file_io", "return commandline.config_from_options(opts, SHAPE)"),
                     ("blocking_file_io", 'extra = read_and_validate("extra.yaml", SHAPE)'),
                     ("blocking_file_io", 'tuned = OmegaConf.load("tuned.yaml")'),
                     ("blocking_file_io", "load_dotenv()"),
                     ("blocking_file_io", 'local = dotenv_values(".env.local")'),
                     ("blocking_file_io", 'app = confuse.Configuration("svc", __name__)'),
                     ("blocking_file_io", 'run = compose(config_name="serve")')}


def test_configs_built_in_memory_or_read_off_the_loop_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io
        import confuse
        import trafaret as t
        from dotenv import load_dotenv
        from omegaconf import OmegaConf
        from trafaret_config import parse_and_validate, read_and_validate

        SHAPE = t.Dict({"port": t.Int()})

        async def boot(text, stream):
            parsed = parse_and_validate(text, SHAPE, filename="inline")
            made = OmegaConf.create({"port": 8080})
            shown = OmegaConf.to_yaml(made)
            load_dotenv(stream=stream)
            lazy = confuse.Configuration("svc", __name__, read=False)
            read = await asyncio.to_thread(read_and_validate, "svc.yaml", SHAPE)
            loaded = await asyncio.to_thread(OmegaConf.load, "tuned.yaml")
            return parsed, shown, lazy, read, loaded
    """)
    assert found == set()


def test_piper_and_vosk_run_their_models_in_the_calling_thread(tmp_path):
    found = flagged(tmp_path, """
        import json
        import wave
        from piper import PiperVoice
        from vosk import KaldiRecognizer, Model

        class Speaker:
            async def say(self, text, out_path, voice_path):
                voice = PiperVoice.load(voice_path)
                with wave.open(out_path, "wb") as wav:
                    voice.synthesize_wav(text, wav)

            async def stream(self, text, voice: PiperVoice):
                return [chunk.audio_int16_bytes for chunk in voice.synthesize(text)]

        class Listener:
            async def hear(self, pcm, model_dir):
                model = Model(model_dir)
                rec = KaldiRecognizer(model, 16000)
                rec.AcceptWaveform(pcm)
                return json.loads(rec.FinalResult())
    """)
    assert found == {("blocking_file_io", "voice = PiperVoice.load(voice_path)"),
                     ("blocking_file_io", 'with wave.open(out_path, "wb") as wav:'),
                     ("blocking_cpu", "voice.synthesize_wav(text, wav)"),
                     ("blocking_cpu", "return [chunk.audio_int16_bytes for chunk in voice.synthesize(text)]"),
                     ("blocking_file_io", "model = Model(model_dir)"),
                     ("blocking_cpu", "rec.AcceptWaveform(pcm)"),
                     ("blocking_cpu", "return json.loads(rec.FinalResult())")}


def test_speech_engines_offloaded_or_only_configured_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from piper import PiperVoice, SynthesisConfig

        class Speaker:
            def __init__(self, voice: PiperVoice):
                self.voice = voice

            def render(self, text, wav):
                self.voice.synthesize_wav(text, wav)

            async def say(self, text, wav, loop):
                config = SynthesisConfig(length_scale=1.2)
                rate = self.voice.config.sample_rate
                await loop.run_in_executor(None, self.render, text, wav)
                fresh = await asyncio.to_thread(PiperVoice.load, "voice.onnx")
                return config, rate, fresh
    """)
    assert found == set()


def test_pandas_sql_io_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import pandas as pd
        from sqlalchemy import create_engine

        ENGINE = create_engine("postgresql://db/cv")

        def nearest(vector):
            return pd.read_sql_query("select * from cv order by emb <-> %s limit 5", ENGINE, params=(vector,))

        async def search(vector, frame: pd.DataFrame):
            rows = nearest(vector)
            every = pd.read_sql_table("cv", ENGINE)
            raw = pd.read_sql("select 1", ENGINE)
            frame.to_sql("cv_copy", ENGINE, if_exists="append")
            return rows, every, raw
    """)
    assert found == {("blocking_db", 'return pd.read_sql_query("select * from cv order by emb <-> %s limit 5", '
                                     'ENGINE, params=(vector,))'),
                     ("blocking_db", 'every = pd.read_sql_table("cv", ENGINE)'),
                     ("blocking_db", 'raw = pd.read_sql("select 1", ENGINE)'),
                     ("blocking_db", 'frame.to_sql("cv_copy", ENGINE, if_exists="append")')}


def test_pandas_sql_offloaded_or_in_memory_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import pandas as pd

        async def search(engine, frame: pd.DataFrame):
            rows = await asyncio.to_thread(pd.read_sql_query, "select 1", engine)
            shown = frame.to_string()
            records = frame.to_dict("records")
            return rows, shown, records
    """)
    assert found == set()


def test_dataset_tables_are_sync_sql_and_connect_is_lazy(tmp_path):
    found = flagged(tmp_path, """
        import dataset

        class Store:
            async def save(self, row, url):
                db = dataset.connect(url)
                table = db["pages"]
                table.insert(row)
                db["pages"].upsert(row, ["url"])
                return list(table.find(kind="repo")), db.query("select 1")
    """)
    assert found == {("blocking_db", "table.insert(row)"),
                     ("blocking_db", 'db["pages"].upsert(row, ["url"])'),
                     ("blocking_db", 'return list(table.find(kind="repo")), db.query("select 1")')}


def test_ccxt_implicit_endpoints_block_on_a_sync_exchange_only(tmp_path):
    found = flagged(tmp_path, """
        import ccxt
        import ccxt.async_support as accxt

        class Desk:
            def __init__(self, venue: ccxt.binance, other: accxt.binance):
                self.venue = venue
                self.other = other

            async def hedge(self, symbol):
                self.venue.sapi_post_margin_order_oco({"symbol": symbol})
                self.venue.publicGetTicker({"symbol": symbol})
                await self.other.sapi_post_margin_order_oco({"symbol": symbol})
                price = self.venue.price_to_precision(symbol, 1.5)
                market = self.venue.market(symbol)
                return price, market
    """)
    assert found == {("blocking_http", 'self.venue.sapi_post_margin_order_oco({"symbol": symbol})'),
                     ("blocking_http", 'self.venue.publicGetTicker({"symbol": symbol})')}


def test_an_exchange_built_from_its_id_is_a_sync_ccxt_exchange(tmp_path):
    found = flagged(tmp_path, """
        import ccxt
        import ccxt.async_support as accxt

        class Bot:
            def __init__(self, venue_id):
                self.venue = getattr(ccxt, venue_id)({"enableRateLimit": True})
                self.twin = getattr(accxt, venue_id)()

            async def tick(self, symbol):
                bars = self.venue.fetch_ohlcv(symbol, "1m")
                other = await self.twin.fetch_ohlcv(symbol, "1m")
                return bars, other
    """)
    assert found == {("blocking_http", 'bars = self.venue.fetch_ohlcv(symbol, "1m")')}


def test_a_plugin_family_with_a_broken_name_pattern_is_refused():
    from faultlib.detect.serving.blocking.entries import Family, Vocabulary

    good = Vocabulary(families=(Family(("acme.Client",), {}, "https://acme.example/api", patterns={
        r"v\d+_(get|post)_\w+": "blocking_http"}),))
    broken = Vocabulary(families=(Family(("acme.Client",), {}, "https://acme.example/api", patterns={
        r"v\d+_(get": "blocking_http"}),))
    assert good.problem() is None
    assert good.families[0].kind_of("v2_get_orders") == "blocking_http"
    assert good.families[0].kind_of("version") is None
    assert "not a regular expression" in broken.problem()


def test_a_dataset_database_kept_on_the_class_by_a_classmethod_blocks_where_self_reads_it(tmp_path):
    found = flagged(tmp_path, """
        import dataset

        class Saver:
            db = None

            @classmethod
            def open(cls, url):
                cls.db = dataset.connect(url)

        class RepoSaver(Saver):
            async def on_item(self, item):
                self.db["repos"].insert(item)
                await self.after(item)

            async def after(self, item):
                return item
    """)
    assert found == {("blocking_db", 'self.db["repos"].insert(item)')}


def test_an_exchange_class_looked_up_first_then_built_is_a_sync_exchange(tmp_path):
    found = flagged(tmp_path, """
        import ccxt

        class Bot:
            def __init__(self, venue_id, handlers):
                venue_class = getattr(ccxt, venue_id)
                self.venue = venue_class({"enableRateLimit": True})
                self.handler = getattr(handlers, venue_id)

            async def tick(self, symbol):
                self.handler(symbol)
                return self.venue.fetch_ticker(symbol)
    """)
    assert found == {("blocking_http", "return self.venue.fetch_ticker(symbol)")}

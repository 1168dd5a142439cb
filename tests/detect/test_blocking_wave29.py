"""check blocking: kinds first seen on unseen services in wave 29 (issue 17). Each blocker is found at its line;
each healthy look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_openai_module_level_client_blocks(tmp_path):
    found = flagged(tmp_path, """
        import openai

        def summarize(text):
            reply = openai.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
            return reply.choices[0].message.content

        async def ingest(chunks):
            vectors = openai.embeddings.create(model="e", input=chunks)
            return vectors, summarize(chunks[0])

        async def caption(image_url):
            return openai.images.generate(prompt=image_url)
    """)
    assert ("blocking_http", 'vectors = openai.embeddings.create(model="e", input=chunks)') in found
    assert ("blocking_http", 'reply = openai.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])') in found
    assert ("blocking_http", "return openai.images.generate(prompt=image_url)") in found


def test_openai_module_level_client_off_the_loop_and_async_client_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import openai

        aclient = openai.AsyncOpenAI()

        def embed(chunks):
            return openai.embeddings.create(model="e", input=chunks)

        async def ingest(chunks):
            vectors = await asyncio.to_thread(embed, chunks)
            reply = await aclient.chat.completions.create(model="m", messages=[])
            return vectors, reply
    """)
    assert found == set()


def test_a_library_load_model_reads_the_model_files(tmp_path):
    found = flagged(tmp_path, """
        import mlflow.pyfunc
        import xgboost as xgb
        from catboost import CatBoostRegressor

        class Scorer:
            async def load(self, uri):
                self.model = mlflow.pyfunc.load_model(model_uri=uri)

            async def load_boosted(self, path):
                booster = xgb.XGBClassifier()
                booster.load_model(path)
                self.model = booster

        async def warm(path):
            regressor = CatBoostRegressor()
            regressor.load_model(path)
            return regressor
    """)
    assert ("blocking_file_io", "self.model = mlflow.pyfunc.load_model(model_uri=uri)") in found
    assert ("blocking_file_io", "booster.load_model(path)") in found
    assert ("blocking_file_io", "regressor.load_model(path)") in found


def test_load_model_awaited_offloaded_or_of_the_files_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import mlflow.pyfunc
        from tritonclient.grpc.aio import InferenceServerClient

        def load_model(uri):
            return {"uri": uri}

        class Registry:
            def load_model(self, name):
                return name.upper()

        async def prepare(uri, name):
            triton = InferenceServerClient(url="localhost:8001")
            await triton.load_model(name)
            model = await asyncio.to_thread(mlflow.pyfunc.load_model, uri)
            return model, load_model(uri), Registry().load_model(name)
    """)
    assert found == set()


def test_waiting_on_an_executors_results_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import concurrent.futures
        from concurrent.futures import ThreadPoolExecutor, as_completed

        def describe(page):
            return page.upper()

        async def crawl(pages):
            with ThreadPoolExecutor(max_workers=4) as pool:
                titles = list(pool.map(describe, pages))
            with concurrent.futures.ThreadPoolExecutor() as pool:
                pending = [pool.submit(describe, p) for p in pages]
                for done in as_completed(pending):
                    titles.append(done)
            return titles
    """)
    assert ("blocking_task", "titles = list(pool.map(describe, pages))") in found
    assert ("blocking_task", "for done in as_completed(pending):") in found


def test_executor_results_awaited_or_off_the_loop_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from concurrent.futures import ThreadPoolExecutor, as_completed

        def describe(page):
            return page.upper()

        def describe_all(pages):
            with ThreadPoolExecutor() as pool:
                return [f.result() for f in as_completed([pool.submit(describe, p) for p in pages])]

        async def crawl(pages):
            loop = asyncio.get_running_loop()
            with ThreadPoolExecutor() as pool:
                titles = await asyncio.gather(*(loop.run_in_executor(pool, describe, p) for p in pages))
                lazy = pool.map(describe, pages)
            return titles, lazy, await asyncio.to_thread(describe_all, pages)
    """)
    assert found == set()


def test_model_and_credential_loaders_block(tmp_path):
    found = flagged(tmp_path, """
        import lightgbm as lgb
        from alibi_detect.saving import load_detector
        from google.auth import default as default_credentials
        from google.oauth2 import service_account

        class Drift:
            async def load(self, path):
                self.detector = load_detector(path)
                self.booster = lgb.Booster(model_file=path)

            async def score(self, batch):
                return self.detector.predict(batch)

        async def speak(key_path):
            if key_path:
                creds = service_account.Credentials.from_service_account_file(key_path)
            else:
                creds, _ = default_credentials()
            return creds
    """)
    assert ("blocking_file_io", "self.detector = load_detector(path)") in found
    assert ("blocking_file_io", "self.booster = lgb.Booster(model_file=path)") in found
    assert ("blocking_cpu", "return self.detector.predict(batch)") in found
    assert ("blocking_file_io", "creds = service_account.Credentials.from_service_account_file(key_path)") in found
    assert ("blocking_http", "creds, _ = default_credentials()") in found


def test_loaders_off_the_loop_and_in_memory_booster_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import json
        import lightgbm as lgb
        from alibi_detect.saving import load_detector
        from google.oauth2 import service_account

        async def load(path, text, key_json):
            detector = await asyncio.to_thread(load_detector, path)
            booster = lgb.Booster(model_str=text)
            creds = service_account.Credentials.from_service_account_info(json.loads(key_json))
            return detector, booster, creds
    """)
    assert found == set()


def test_client_builders_and_spark_context_block(tmp_path):
    found = flagged(tmp_path, """
        import boto3
        from pyspark import SparkConf, SparkContext

        async def ask(prompt, region):
            bedrock = boto3.client("bedrock-runtime", region_name=region)
            return bedrock, prompt

        async def start_spark():
            return SparkContext(appName="scorer", conf=SparkConf())
    """)
    assert ("blocking_http", 'bedrock = boto3.client("bedrock-runtime", region_name=region)') in found
    assert ("blocking_subprocess", 'return SparkContext(appName="scorer", conf=SparkConf())') in found


def test_a_package_resource_as_a_path_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from importlib.resources import as_file, files

        import aiofiles
        import boto3

        async def tone(name):
            with as_file(files("tones").joinpath(name)) as path:
                async with aiofiles.open(path, "rb") as f:
                    data = await f.read()
            s3 = await asyncio.to_thread(boto3.client, "s3")
            return data, s3
    """)
    assert found == set()

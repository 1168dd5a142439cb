"""check blocking: kinds held-out wave 63 (aiohttp / Sanic / Starlette model services, issue 17, stop 51) missed or
wrongly flagged, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged


# -- image preprocessing outside the model call: resampling helpers and Keras' file loader --------------------------
def test_pillow_imageops_resampling_blocks(tmp_path):
    found = flagged(tmp_path, """
        from PIL import Image, ImageOps

        async def thumbnail_for(upload_path):
            picture = Image.open(upload_path)
            return ImageOps.contain(picture, (128, 128))
    """)
    assert ("blocking_cpu", "return ImageOps.contain(picture, (128, 128))") in found


def test_pillow_imageops_fit_on_an_in_memory_upload_blocks(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image, ImageOps

        async def square(request):
            raw = await request.read()
            picture = Image.open(io.BytesIO(raw))
            return ImageOps.fit(picture, (96, 96))
    """)
    assert found == {("blocking_cpu", "return ImageOps.fit(picture, (96, 96))")}


def test_pillow_imageops_without_resampling_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image, ImageOps

        async def mirrored(request):
            picture = Image.open(io.BytesIO(await request.read()))
            return ImageOps.mirror(picture)
    """)
    assert found == set()


def test_torchvision_functional_resize_blocks(tmp_path):
    found = flagged(tmp_path, """
        import io
        import PIL.Image
        import torchvision.transforms.functional as TF

        async def shrink(request):
            picture = PIL.Image.open(io.BytesIO(await request.body()))
            small = TF.resize(picture, [64, 64])
            return TF.to_tensor(small)
    """)
    assert found == {("blocking_cpu", "small = TF.resize(picture, [64, 64])")}


def test_torchvision_functional_resize_in_a_worker_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io
        import PIL.Image
        import torchvision

        def prepare(raw):
            picture = PIL.Image.open(io.BytesIO(raw))
            return torchvision.transforms.functional.resize(picture, [64, 64])

        async def shrink(request):
            return await asyncio.to_thread(prepare, await request.body())
    """)
    assert found == set()


def test_keras_load_img_reads_the_file(tmp_path):
    found = flagged(tmp_path, """
        import tensorflow as tf

        def pixels(name):
            return tf.keras.utils.load_img(name, target_size=(32, 32))

        async def classify(request):
            return {"shape": list(pixels(request.args["file"]).size)}
    """)
    assert found == {("blocking_file_io", "return tf.keras.utils.load_img(name, target_size=(32, 32))")}


def test_keras_load_img_off_the_loop_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from keras.utils import load_img

        async def classify(request):
            loop = asyncio.get_running_loop()
            picture = await loop.run_in_executor(None, load_img, request.args["file"])
            return {"size": list(picture.size)}
    """)
    assert found == set()


# -- a botocore StreamingBody iterated through a wrapper ------------------------------------------------------------
def test_iterating_a_streaming_body_through_a_text_reader_blocks(tmp_path):
    found = flagged(tmp_path, """
        import codecs
        import boto3

        async def lines_of(bucket, key, send):
            s3 = boto3.client("s3")
            reply = s3.get_object(Bucket=bucket, Key=key)
            stream = reply["Body"]
            for number, text in enumerate(codecs.getreader("utf-8")(stream), start=1):
                await send(number, text)
    """)
    assert ("blocking_http", 'for number, text in enumerate(codecs.getreader("utf-8")(stream), start=1):') in found


def test_iterating_a_streaming_body_directly_blocks(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import boto3

        async def count_lines(bucket, key):
            s3 = boto3.client("s3")
            reply = await asyncio.to_thread(s3.get_object, Bucket=bucket, Key=key)
            return sum(1 for _ in reply["Body"])
    """)
    assert ("blocking_http", 'return sum(1 for _ in reply["Body"])') in found  # boto3.client is reported too


def test_iterating_an_aiobotocore_body_with_async_for_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        async def lines_of(client, bucket, key, send):
            reply = await client.get_object(Bucket=bucket, Key=key)
            async for chunk in reply["Body"]:
                await send(chunk)
            for part in reply["Body"].parts:
                await send(part)
    """)
    assert found == set()


def test_iterating_a_request_json_body_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        async def handler(request):
            payload = await request.json()
            body = payload["body"]
            return [item.upper() for item in body]
    """)
    assert found == set()


def test_iterating_the_body_of_a_parsed_event_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import json

        async def handler(raw):
            event = json.loads(raw)
            body = event["body"]
            for row in enumerate(body):
                print(row)
    """)
    assert found == set()


# -- an executor shut down after every future sent to it was gathered ------------------------------------------------
def test_shutdown_after_gathering_every_future_of_the_pool_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from concurrent.futures import ProcessPoolExecutor

        def warm():
            return None

        def forget():
            return None

        async def start_pool(app, size):
            pool = ProcessPoolExecutor(max_workers=size)
            loop = asyncio.get_running_loop()
            send = loop.run_in_executor
            await asyncio.gather(*[send(pool, warm) for _ in range(size)])

            async def stop_pool(app):
                pending = [send(pool, forget) for _ in range(size)]
                await asyncio.shield(asyncio.gather(*pending))
                pool.shutdown(wait=True)

            app.on_cleanup.append(stop_pool)
            app["pool"] = pool
    """)
    assert found == set()


@pytest.mark.parametrize("drain", [
    # another submission the gather does not cover: that task may still run
    ["first = [loop.run_in_executor(pool, job, n) for n in items]",
     "pool.submit(job, 0)",
     "await asyncio.gather(*first)"],
    # a timed wait may return before the futures are done
    ["futures = [loop.run_in_executor(pool, job, n) for n in items]",
     "await asyncio.wait(futures, timeout=1.0)"],
])
def test_shutdown_after_a_partial_or_timed_drain_blocks(tmp_path, drain):
    lines = ["import asyncio", "from concurrent.futures import ThreadPoolExecutor", "",
             "def job(n):", "    return n", "",
             "async def run_all(items):",
             "    pool = ThreadPoolExecutor(max_workers=4)",
             "    loop = asyncio.get_running_loop()",
             *("    " + line for line in drain),
             "    pool.shutdown(wait=True)"]
    assert ("blocking_task", "pool.shutdown(wait=True)") in flagged(tmp_path, "\n".join(lines) + "\n")

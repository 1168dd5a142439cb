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

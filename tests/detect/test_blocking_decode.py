"""check blocking: decoding an image opened from bytes on the loop (``.convert``/``.load``) is CPU work like encoding
one (issue 17). Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_converting_or_loading_an_image_opened_from_bytes_decodes_it_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        async def to_rgb(payload: bytes):
            return Image.open(io.BytesIO(payload)).convert("RGB")

        async def pixels(payload: bytes):
            scan = Image.open(io.BytesIO(payload))
            scan.load()
            return scan
    """)
    assert found == {("blocking_cpu", 'return Image.open(io.BytesIO(payload)).convert("RGB")'),
                     ("blocking_cpu", "scan.load()")}


def test_reading_the_header_decoding_off_the_loop_or_another_convert_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io
        from PIL import Image

        class Units:
            def convert(self, value):
                return value * 1000

        def decode(payload):
            return Image.open(io.BytesIO(payload)).convert("L")

        async def header(payload: bytes):
            probe = Image.open(io.BytesIO(payload))
            return probe.size, probe.mode

        async def offloaded(payload: bytes):
            return await asyncio.to_thread(decode, payload)

        async def metres(km):
            return Units().convert(km)
    """)
    assert found == set()

"""check blocking: wave 29's remaining kinds (issue 17). Each blocker is found at its line; each healthy look-alike
stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_path_from_a_directory_listing_is_read_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import json
        from pathlib import Path

        INBOX = Path("/srv/inbox")

        def pending():
            out = []
            for item in sorted(INBOX.glob("*.json")):
                with item.open() as handle:
                    out.append(json.load(handle))
            return out

        async def drain(folder: Path):
            sizes = [entry.open("rb").read() for entry in folder.iterdir()]
            for nested in folder.rglob("*.txt"):
                nested.unlink()
            return sizes, pending()
    """)
    assert ("blocking_file_io", "with item.open() as handle:") in found
    assert ("blocking_file_io", 'sizes = [entry.open("rb").read() for entry in folder.iterdir()]') in found
    assert not any("unlink" in line for _, line in found)
    # a one-directory listing counts (stop 46, Home Assistant's loop detector); a recursive walk too (held-out wave 43)
    assert ("blocking_file_io", 'for item in sorted(INBOX.glob("*.json")):') in found
    assert ("blocking_file_io", 'for nested in folder.rglob("*.txt"):') in found


def test_a_listing_walked_off_the_loop_stays_silent_and_one_listed_on_it_is_found(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from pathlib import Path

        def load_all(folder: Path):
            return [entry.open().read() for entry in folder.glob("*.md")]

        async def names(folder: Path):
            texts = await asyncio.to_thread(load_all, folder)
            return texts, [entry.name for entry in folder.iterdir()]
    """)
    assert found == {("blocking_file_io", "return texts, [entry.name for entry in folder.iterdir()]")}



ENCODERS = """
    from typing import Any, Protocol

    class Encoder(Protocol):
        def embed(self, texts: list[str]) -> list[list[float]]: ...

    class CountingEncoder:
        def embed(self, texts):
            return [[float(len(t))] for t in texts]

    class MiniLmEncoder:
        def __init__(self, name):
            from sentence_transformers import SentenceTransformer
            self._model = SentenceTransformer(name)

        def embed(self, texts):
            return self._model.encode(texts)

    def default_encoder() -> Encoder:
        try:
            return MiniLmEncoder("all-MiniLM-L6-v2")
        except ImportError:
            return CountingEncoder()

    async def discover(store: Any, *, encoder: Any):
        return encoder.embed(list(store))
"""


def test_an_any_parameter_every_caller_fills_with_one_protocol_runs_its_implementers(tmp_path):
    found = flagged(tmp_path, ENCODERS + """
    class Pass:
        def __init__(self, encoder: Any = None):
            self._encoder = encoder

        async def run(self, store):
            encoder = self._encoder
            if encoder is None:
                encoder = default_encoder()
            return await discover(store, encoder=encoder)
    """)
    assert ("blocking_cpu", "return self._model.encode(texts)") in found


def test_an_any_parameter_filled_with_a_light_class_or_with_two_types_stays_silent(tmp_path):
    found = flagged(tmp_path, ENCODERS + """
    async def light(store):
        return await discover(store, encoder=CountingEncoder())
    """)
    mixed = flagged(tmp_path, ENCODERS + """
    async def light(store):
        return await discover(store, encoder=CountingEncoder())

    def pick(fast):
        return CountingEncoder() if fast else None

    async def maybe(store, fast):
        return await discover(store, encoder=pick(fast))
    """)
    assert not any("encode(" in line for _, line in found | mixed)

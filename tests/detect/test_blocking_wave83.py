"""check blocking: the kinds held-out wave 83 (issue 17; data, analytics and geospatial APIs) left, fixed by kind.

M1: a library class named by another of its import paths than the vocabulary's (``from openpyxl.workbook import
    Workbook``, re-exported by the package's ``__init__``; ``from pandas.core.frame import DataFrame``, the defining
    module of ``pandas.DataFrame``) is the same class: its blocking methods are found.
M2: an async ORM's awaited one-row query on a project model class (Tortoise's ``await User.get(...)``,
    ``User.filter(...).first()``) gives an instance of that class, whose own methods are followed.
M3: ``gzip``/``zlib``/``bz2``/``lzma``'s one-shot ``compress`` of a whole payload is CPU work (decompressing stays
    silent, as the other in-memory decoders do).
M4: ``geoip2.database.Reader(path)`` opens and maps the MaxMind database file; its lookups are in memory.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.class_spellings import known_spelling
from tests.detect.blocking_source import flagged

# -- M1: a class by any of its import paths --------------------------------------------------------------------------

_SHEETS = """
    import asyncio
    from io import BytesIO
    from typing import Optional

    from fastapi import FastAPI
    from openpyxl.workbook import Workbook

    app = FastAPI()


    class Export:
        def __init__(self, book: Optional[Workbook] = None):
            self._book = book

        def to_bytes(self) -> bytes:
            out = BytesIO()
            self._book.save(out)
            return out.getvalue()


    async def make_book() -> Workbook:
        return Workbook()


    @app.get("/export")
    async def export():
        {code}
"""


def test_a_workbook_imported_from_the_package_submodule_is_saved_at_its_line(tmp_path):
    found = flagged(tmp_path, _SHEETS.format(code="return Export(Workbook()).to_bytes()"))
    assert found == {("blocking_file_io", "self._book.save(out)")}


def test_a_workbook_an_annotated_coroutine_returns_is_saved_at_its_line(tmp_path):
    code = 'book = await make_book()\n        book.save("report.xlsx")'
    assert flagged(tmp_path, _SHEETS.format(code=code)) == {("blocking_file_io", 'book.save("report.xlsx")')}


def test_the_same_workbook_saved_in_a_worker_thread_stays_silent(tmp_path):
    code = 'book = await make_book()\n        await asyncio.to_thread(book.save, "report.xlsx")'
    assert flagged(tmp_path, _SHEETS.format(code=code)) == set()


def test_a_frame_typed_by_its_defining_module_is_written_at_its_line(tmp_path):
    source = """
        from fastapi import FastAPI
        from pandas.core.frame import DataFrame

        app = FastAPI()


        def keep(frame: DataFrame, path: str) -> None:
            frame.to_csv(path)


        @app.post("/rows")
        async def rows(path: str):
            keep(DataFrame({"a": [1, 2]}), path)
    """
    assert flagged(tmp_path, source) == {("blocking_file_io", "frame.to_csv(path)")}


def test_a_class_of_a_libraries_async_flavour_is_not_its_sync_namesake():
    known = frozenset({"redis.Redis", "websockets.sync.client.ClientConnection"})
    assert known_spelling(known, "redis.asyncio.client.Redis") is None
    assert known_spelling(known, "websockets.ClientConnection") is None


def test_two_namesakes_in_sibling_modules_give_no_spelling():
    known = frozenset({"pkg.one.Client", "pkg.two.Client", "lib.core.book.Book", "lib.Book"})
    assert known_spelling(known, "pkg.Client") is None
    assert known_spelling(known, "lib.core.Book") == "lib.core.book.Book"  # along one chain: the deepest


# -- M2: an ORM's awaited query gives an instance of the model -------------------------------------------------------

_ACCOUNTS = """
    import asyncio

    from fastapi import FastAPI, HTTPException
    from passlib.hash import bcrypt
    from tortoise import fields, models

    app = FastAPI()


    class Account(models.Model):
        id = fields.IntField(pk=True)
        login = fields.CharField(max_length=64)
        secret = fields.CharField(max_length=128)

        def matches(self, password: str) -> bool:
            return bcrypt.verify(password, self.secret)


    @app.post("/login")
    async def login(name: str, password: str):
        {code}
        return {{"ok": True}}
"""


def test_a_model_fetched_with_get_runs_its_own_hashing_method_at_its_line(tmp_path):
    code = ('account = await Account.get(login=name)\n        if not account.matches(password):\n'
            '            raise HTTPException(401)')
    found = flagged(tmp_path, _ACCOUNTS.format(code=code))
    assert found == {("blocking_cpu", "return bcrypt.verify(password, self.secret)")}


def test_a_model_fetched_through_filter_first_runs_its_own_method(tmp_path):
    code = 'account = await Account.filter(login=name).first()\n        ok = account.matches(password)'
    found = flagged(tmp_path, _ACCOUNTS.format(code=code))
    assert found == {("blocking_cpu", "return bcrypt.verify(password, self.secret)")}


def test_the_fetched_models_method_run_in_a_thread_stays_silent(tmp_path):
    code = ('account = await Account.get_or_none(login=name)\n'
            '        ok = await asyncio.to_thread(account.matches, password)')
    assert flagged(tmp_path, _ACCOUNTS.format(code=code)) == set()


# -- M3: a whole payload compressed on the loop ----------------------------------------------------------------------

_BODIES = """
    import asyncio
    import bz2
    import gzip
    import json
    import zlib
    from lzma import decompress

    from starlette.applications import Starlette
    from starlette.responses import Response


    def encoded(headers: dict, body: str):
        if "gzip" in headers.get("accept-encoding", ""):
            return gzip.compress(body.encode("utf-8"))
        return body


    async def features(request):
        body = json.dumps({{"type": "FeatureCollection", "features": []}})
        {code}


    app = Starlette()
    app.add_route("/features", features)
"""


def test_a_response_body_gzipped_by_a_helper_is_cpu_at_its_line(tmp_path):
    found = flagged(tmp_path, _BODIES.format(code="return Response(encoded(dict(request.headers), body))"))
    assert found == {("blocking_cpu", 'return gzip.compress(body.encode("utf-8"))')}


def test_an_uploaded_payload_compressed_inline_is_cpu_at_its_line(tmp_path):
    code = 'packed = bz2.compress(await request.body())\n        return Response(packed)'
    assert flagged(tmp_path, _BODIES.format(code=code)) == {("blocking_cpu", "packed = bz2.compress(await request.body())")}


def test_a_payload_decompressed_in_memory_stays_silent(tmp_path):
    code = 'raw = decompress(await request.body())\n        return Response(raw)'
    assert flagged(tmp_path, _BODIES.format(code=code)) == set()


def test_compression_handed_to_a_thread_a_literal_payload_and_a_checksum_stay_silent(tmp_path):
    code = ('packed = await asyncio.to_thread(zlib.compress, body.encode())\n'
            '        end = gzip.compress(b"")\n'
            '        return Response(packed + end, headers={"x-crc": str(zlib.crc32(packed))})')
    assert flagged(tmp_path, _BODIES.format(code=code)) == set()


# -- M4: a MaxMind database opened on the loop -----------------------------------------------------------------------

_GEO = """
    from pathlib import Path

    from fastapi import FastAPI
    from geoip2.database import Reader

    app = FastAPI()


    def open_db(path: Path) -> Reader:
        return Reader(str(path), locales=["en"])


    class Places:
        def __init__(self, reader=None):
            self.reader = reader

        async def start(self, path: Path):
            self.reader = open_db(path)

        def country(self, ip: str) -> str:
            return self.reader.city(ip).country.iso_code


    places = Places({built})


    @app.on_event("startup")
    async def boot():
        {boot}


    @app.get("/where/{{ip}}")
    async def where(ip: str):
        return {{"country": places.country(ip)}}
"""


def test_the_geoip_database_opened_by_an_async_start_is_file_io_at_its_line(tmp_path):
    source = _GEO.format(built="", boot='await places.start(Path("GeoLite2-City.mmdb"))')
    assert flagged(tmp_path, source) == {("blocking_file_io", 'return Reader(str(path), locales=["en"])')}


def test_a_reader_opened_at_import_time_and_its_lookups_stay_silent(tmp_path):
    source = _GEO.format(built='open_db(Path("GeoLite2-City.mmdb"))', boot="pass").replace(
        "async def start(self, path: Path):", "def start(self, path: Path):")
    assert flagged(tmp_path, source) == set()

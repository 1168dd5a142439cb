"""check blocking: the kinds held-out wave 77 (issue 17; scraping, document and mail/payment services) left, fixed
by kind.

PyMuPDF's ``Document.extract_image`` decodes an embedded image; an IndexedRedis model's ``save`` and its
``objects`` query's ``all`` talk to Redis; a helper's unannotated parameter that every caller fills with one library
object (``doc[n]``, a PyMuPDF ``Page``) has that object's type; a class kept as it is on Sanic's ``app.ctx`` is that
class, whose class attributes a handler reaches. Each blocker is found at its line with its kind; each look-alike
stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- PyMuPDF: the pictures of a PDF ----------------------------------------------------------------------------------

_PICTURES = """
    import asyncio

    import fitz
    from fastapi import FastAPI, UploadFile

    app = FastAPI()


    def decoded(doc, refs):
        return [doc.extract_image(ref)["image"] for ref in refs]


    @app.post("/pictures")
    async def pictures(upload: UploadFile):
        doc = fitz.open("pdf", await upload.read())
        refs = [info[0] for page in doc for info in page.get_images(full=True)]
        {tail}
"""


def test_extracting_a_pdfs_images_on_the_loop_is_found(tmp_path):
    found = flagged(tmp_path, _PICTURES.replace("{tail}", """sizes = []
        for ref in refs:
            sizes.append(len(doc.extract_image(ref)["image"]))
        return sizes"""))
    assert ("blocking_cpu", 'sizes.append(len(doc.extract_image(ref)["image"]))') in found


def test_extracting_a_pdfs_images_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, _PICTURES.replace("{tail}", "return await asyncio.to_thread(decoded, doc, refs)"))
    assert not any("extract_image" in line for _, line in found)


# -- IndexedRedis: a cache of scraped offers -------------------------------------------------------------------------

_OFFERS = """
    import asyncio

    from fastapi import FastAPI
    from IndexedRedis import IndexedRedisModel, IRField

    app = FastAPI()


    class Offer(IndexedRedisModel):
        FIELDS = [IRField("shop"), IRField("price")]
        INDEXED_FIELDS = ["shop"]
        KEY_NAME = "Offer"


    def keep(shop, price):
        offer = Offer(shop=shop, price=price)
        offer.save()
        return offer.getPk()


    def cached(shop):
        return Offer.objects.filter(shop=shop).all()


    def pending(shop):
        return Offer.objects.filter(shop=shop).exclude(price="")
"""


def test_an_indexedredis_models_save_and_query_on_the_loop_are_found(tmp_path):
    found = flagged(tmp_path, _OFFERS + """
    @app.post("/offers")
    async def add(shop: str, price: str):
        return keep(shop, price)


    @app.get("/offers")
    async def listed(shop: str):
        return [o.price for o in cached(shop)]
    """)
    assert ("blocking_db", "offer.save()") in found
    assert ("blocking_db", "return Offer.objects.filter(shop=shop).all()") in found


def test_an_indexedredis_query_only_built_or_run_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, _OFFERS + """
    @app.post("/offers")
    async def add(shop: str, price: str):
        return await asyncio.to_thread(keep, shop, price)


    @app.get("/offers")
    async def listed(shop: str):
        query = pending(shop)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, cached, shop), str(query)
    """)
    assert not found


# -- a helper's open parameter filled with a library object ---------------------------------------------------------

_CLIPS = """
    import asyncio

    import fitz
    from fastapi import FastAPI, UploadFile

    app = FastAPI()


    class Plain:
        def get_text(self, mode, clip=None):
            return "plain"


    class Clipper:
        def region(self, page, box):
            return page.get_text("text", clip=box).strip()

        async def regions(self, data: bytes, boxes):
            doc = fitz.open(stream=data, filetype="pdf")
            {body}


    clipper = Clipper()


    @app.post("/regions")
    async def regions(upload: UploadFile):
        return await clipper.regions(await upload.read(), [(0, (0, 0, 50, 50))])
"""

_CLIP_LINE = ("blocking_cpu", 'return page.get_text("text", clip=box).strip()')


def test_a_helpers_parameter_every_caller_fills_with_a_pdf_page_is_followed(tmp_path):
    found = flagged(tmp_path, _CLIPS.replace("{body}", "return [self.region(doc[n], box) for n, box in boxes]"))
    assert _CLIP_LINE in found


def test_the_same_helper_run_in_a_thread_or_fed_another_object_is_silent(tmp_path):
    threaded = flagged(tmp_path, _CLIPS.replace(
        "{body}", "return [await asyncio.to_thread(self.region, doc[n], box) for n, box in boxes]"))
    assert _CLIP_LINE not in threaded
    mixed = flagged(tmp_path, _CLIPS.replace(
        "{body}", "return [self.region(doc[0], boxes[0][1]), self.region(Plain(), boxes[0][1])]"))
    assert _CLIP_LINE not in mixed


# -- Sanic: a service class kept on app.ctx -------------------------------------------------------------------------

_HASHING = """
    from passlib.context import CryptContext


    class Hashing:
        context = CryptContext(schemes=["bcrypt"], deprecated="auto")
        rounds = {"bcrypt": 12}
"""

_SETUP = """
    from sanic import Sanic

    from .hashing import Hashing


    async def register(app: Sanic) -> None:
        app.ctx.Hashing = Hashing
"""


def _sanic(view: str) -> dict[str, str]:
    return {"__init__.py": "", "hashing.py": _HASHING, "setup.py": _SETUP, "views.py": view}


def test_a_class_kept_on_sanics_app_ctx_reaches_its_class_attributes(tmp_path):
    found = flagged_package(tmp_path, _sanic("""
        from sanic import Request
        from sanic.response import json


        async def sign_in(request: Request):
            app = request.app
            hashing = app.ctx.Hashing
            ok = hashing.context.verify(request.json["password"], request.json["stored"])
            return json({"ok": ok})
    """))
    assert ("views.py", "blocking_cpu",
            'ok = hashing.context.verify(request.json["password"], request.json["stored"])') in found


def test_the_kept_class_offloaded_or_read_for_plain_data_is_silent(tmp_path):
    found = flagged_package(tmp_path, _sanic("""
        import asyncio

        from sanic import Request
        from sanic.response import json


        async def sign_in(request: Request):
            hashing = request.app.ctx.Hashing
            ok = await asyncio.to_thread(hashing.context.verify, request.json["password"], request.json["stored"])
            return json({"ok": ok, "rounds": hashing.rounds.get("bcrypt")})
    """))
    assert not found

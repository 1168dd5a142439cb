"""check blocking: the kinds held-out wave 38 (issue 17; FastMCP servers, a FastAPI app on sync SQLModel sessions,
matrix-nio and twitchio bots, a Slack events receiver) got wrong, fixed by kind: FastAPI's dependency alias
``Annotated[Session, Depends(...)]`` imported from another module, Elasticsearch's namespaced clients whose methods
return data, an empty PyMuPDF document, and the vocabulary of Pillow's ``Image.open`` and rq's enqueue.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package


# -- Annotated[T, ...] is a T; an alias imported from another module is what it names there ---------------------------
def test_an_annotated_session_alias_imported_from_a_deps_module_is_a_session(tmp_path):
    found = flagged_package(tmp_path, {
        "deps.py": """
            from typing import Annotated
            from fastapi import Depends
            from sqlmodel import Session
            from sqlalchemy.ext.asyncio import AsyncSession

            def open_session():
                yield None

            DbDep = Annotated[Session, Depends(open_session)]
            AsyncDbDep = Annotated[AsyncSession, Depends(open_session)]
            Label = Annotated[str, "shown in the docs"]
        """,
        "api/__init__.py": "from deps import DbDep\n",
        "api/orders.py": """
            from typing import Annotated
            from fastapi import APIRouter, Depends
            from sqlmodel import Session, select
            from deps import AsyncDbDep, DbDep, Label, open_session
            from api import DbDep as ReExported
            from store import count_orders

            router = APIRouter()

            @router.get("/orders")
            async def list_orders(db: DbDep, title: Label):
                rows = db.exec(select(Order)).all()
                return title.upper(), rows, count_orders(db)

            @router.get("/orders/{oid}")
            async def one(oid: int, db: Annotated[Session, Depends(open_session)]):
                return db.get(Order, oid)

            @router.post("/orders")
            async def add(db: ReExported, order: dict):
                db.add(order)
                db.commit()

            @router.get("/async")
            async def fine(db: AsyncDbDep):
                return (await db.execute(select(Order))).all()

            @router.get("/threadpool")
            def plain(db: DbDep):
                return db.exec(select(Order)).all()
        """,
        "store.py": """
            from sqlmodel import func, select
            from deps import DbDep

            def count_orders(db: DbDep) -> int:
                return db.exec(select(func.count())).one()
        """,
    })
    assert found == {
        ("api/orders.py", "blocking_db", "rows = db.exec(select(Order)).all()"),
        ("api/orders.py", "blocking_db", "return db.get(Order, oid)"),
        ("api/orders.py", "blocking_db", "db.commit()"),
        ("store.py", "blocking_db", "return db.exec(select(func.count())).one()"),
    }


# -- Elasticsearch's namespaced clients send requests; what their methods return is the reply, in memory ---------------
def test_what_an_elasticsearch_namespace_method_returns_is_data_not_a_client(tmp_path):
    found = flagged(tmp_path, """
        from elasticsearch import Elasticsearch
        from opensearchpy import OpenSearch

        def index_names(url):
            es = Elasticsearch(url)
            names = []
            for row in es.cat.indices(format="json"):
                mapping = es.indices.get_mapping(index=row.get("index"))
                meta = mapping.get(row["index"]).get("mappings").get("_meta")
                names.append((row.get("index"), meta.get("description") if meta else ""))
            return names

        async def describe(url, name):
            hits = Elasticsearch(url).search(index=name, size=3)
            stats = OpenSearch(url).plugins.knn.stats()
            return index_names(url), hits.get("hits").get("total"), stats.get("nodes")
    """)
    assert found == {
        ("blocking_http", 'for row in es.cat.indices(format="json"):'),
        ("blocking_http", 'mapping = es.indices.get_mapping(index=row.get("index"))'),
        ("blocking_http", "hits = Elasticsearch(url).search(index=name, size=3)"),
        ("blocking_http", "stats = OpenSearch(url).plugins.knn.stats()"),
    }


# -- a PyMuPDF document or MIDI file made with no argument is new and empty: nothing is read -------------------------
def test_an_empty_document_made_without_arguments_reads_no_file(tmp_path):
    found = flagged(tmp_path, """
        import fitz
        import mido
        import pymupdf

        async def health():
            probe = pymupdf.open()
            probe.close()
            return fitz.Document(), mido.MidiFile()

        async def pages(path, data):
            merged = pymupdf.open()
            merged.insert_pdf(pymupdf.open(path))
            return merged, fitz.open(stream=data, filetype="pdf"), mido.MidiFile(path)
    """)
    assert found == {
        ("blocking_cpu", "merged.insert_pdf(pymupdf.open(path))"),
        ("blocking_file_io", "merged.insert_pdf(pymupdf.open(path))"),
        ("blocking_file_io", 'return merged, fitz.open(stream=data, filetype="pdf"), mido.MidiFile(path)'),
    }


# -- Pillow's Image.open opens the file; over an in-memory buffer it only reads the header ----------------------------
def test_pillow_image_open_of_a_path_is_file_io_and_of_a_buffer_is_not(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        async def send_image(client, room, path, upload: bytes):
            picture = Image.open(path)
            thumb = Image.open(io.BytesIO(upload))
            width, height = thumb.size
            return picture.size, width, height
    """)
    assert found == {("blocking_file_io", "picture = Image.open(path)")}


# -- RQ keeps its queues in Redis: enqueueing from a coroutine is a Redis round trip ---------------------------------
def test_an_rq_enqueue_in_an_async_endpoint_writes_to_redis(tmp_path):
    found = flagged(tmp_path, """
        from fastapi import FastAPI
        from redis import Redis
        from rq import Queue
        from rq.job import Job

        conn = Redis.from_url("redis://cache:6379/0")
        jobs = Queue(name="events", connection=conn)
        app = FastAPI()

        @app.post("/events")
        async def receive(payload: dict):
            job = jobs.enqueue("worker.tasks.handle", text=payload["text"], job_timeout=120)
            return {"id": job.id}

        @app.get("/events/{job_id}")
        async def status(job_id: str):
            return Job.fetch(job_id, connection=conn).get_status()

        def build_queue(name):
            return Queue(name=name, connection=conn)
    """)
    assert found == {
        ("blocking_db", 'job = jobs.enqueue("worker.tasks.handle", text=payload["text"], job_timeout=120)'),
        ("blocking_db", "return Job.fetch(job_id, connection=conn).get_status()"),
    }


# -- a date or number held in a record's field is data: its methods are no client's requests -------------------------
def test_a_date_method_through_a_field_of_an_unknown_record_is_no_request(tmp_path):
    found = flagged(tmp_path, """
        from datetime import date
        from cardkit.records import Card

        def build(data):
            return Card(fn=data["name"], url="https://example.org/~ann", bday=data.get("bday"))

        async def listing(rows):
            out = []
            for row in rows:
                card = build(row)
                born = card.bday.isoformat() if isinstance(card.bday, date) else card.bday
                out.append((born, card.years.bit_length(), card.mail.send_all()))
            return out
    """)
    assert found == {("blocking_http", "out.append((born, card.years.bit_length(), card.mail.send_all()))")}

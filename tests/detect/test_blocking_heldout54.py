"""check blocking: the kinds held-out wave 54 (issue 17; Flask-SQLAlchemy under Quart, a sync client kept in an
aiohttp application, a model unpacked from a joblib pack, Tornado's websocket handshake hooks, GitPython's working
tree state) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- GitPython: the working tree's state, the index, and repo.git ----------------------------------------------------


def test_gitpython_status_index_and_git_command_run_git(tmp_path):
    found = flagged(tmp_path, """
        import git

        def open_repo(path) -> git.Repo:
            return git.Repo(path)

        def summary(path):
            repo = open_repo(path)
            dirty = repo.is_dirty(untracked_files=True)
            extra = list(repo.untracked_files)
            patch = repo.git.diff("--cached")
            return dirty, extra, patch

        def record(path, files, text):
            repo = open_repo(path)
            repo.index.add(files)
            return repo.index.commit(text)

        async def status(path):
            return summary(path)

        async def save(path, files, text):
            return record(path, files, text)
    """)
    assert ("blocking_subprocess", "dirty = repo.is_dirty(untracked_files=True)") in found
    assert ("blocking_subprocess", "extra = list(repo.untracked_files)") in found
    assert ("blocking_subprocess", 'patch = repo.git.diff("--cached")') in found
    assert ("blocking_file_io", "repo.index.add(files)") in found
    assert ("blocking_file_io", "return repo.index.commit(text)") in found


def test_gitpython_offloaded_or_only_named_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import git

        def summary(path):
            repo = git.Repo(path)
            return repo.is_dirty(), repo.working_tree_dir

        async def status(path):
            return await asyncio.to_thread(summary, path)

        async def where(path):
            return git.Repo(path).working_dir
    """)
    assert not found


# -- Tornado: a websocket's handshake hooks run on the IOLoop -------------------------------------------------------


def test_tornado_websocket_handshake_hooks_run_on_the_ioloop(tmp_path):
    found = flagged(tmp_path, """
        import json
        from tornado.websocket import WebSocketHandler

        class Feed(WebSocketHandler):
            def check_origin(self, origin):
                with open("allowed.json") as f:
                    return origin in json.load(f)

            def select_subprotocol(self, subprotocols):
                with open("protocols.txt") as f:
                    known = f.read().split()
                return next((p for p in subprotocols if p in known), None)
    """)
    assert ("blocking_file_io", 'with open("allowed.json") as f:') in found
    assert ("blocking_file_io", 'with open("protocols.txt") as f:') in found


def test_a_check_origin_outside_a_tornado_handler_is_silent(tmp_path):
    found = flagged(tmp_path, """
        class OriginPolicy:
            def check_origin(self, origin):
                with open("allowed.txt") as f:
                    return origin in f.read()
    """)
    assert not found


# -- a model unpacked from a joblib/pickle pack ---------------------------------------------------------------------


def test_a_model_unpacked_from_a_joblib_pack_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import pickle
        import joblib

        bundle = joblib.load("bundle.joblib")
        scorer = bundle["scorer"]
        labels = bundle["labels"]

        def second_opinion(rows):
            with open("other.pkl", "rb") as f:
                packed = pickle.load(f)
            return packed["clf"].predict_proba(rows)

        async def score(rows):
            codes = labels.transform(rows)
            best = scorer.predict(codes)
            return best, second_opinion(rows)
    """)
    assert ("blocking_cpu", "best = scorer.predict(codes)") in found
    assert ("blocking_cpu", 'return packed["clf"].predict_proba(rows)') in found
    assert not any("labels.transform" in line for _, line in found)


def test_a_model_of_a_joblib_pack_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import joblib

        bundle = joblib.load("bundle.joblib")
        scorer = bundle["scorer"]

        async def score(rows):
            loop = asyncio.get_running_loop()
            best = await loop.run_in_executor(None, scorer.predict, rows)
            also = await asyncio.to_thread(bundle["scorer"].predict_proba, rows)
            return best, also, bundle["threshold"]
    """)
    assert not found


# -- Flask-SQLAlchemy: db.session and Model.query are SQLAlchemy's sync session ------------------------------------


def test_flask_sqlalchemy_session_and_model_query_block_an_async_view(tmp_path):
    found = flagged(tmp_path, """
        from quart import Quart
        from flask_sqlalchemy import SQLAlchemy

        app = Quart(__name__)
        db = SQLAlchemy(app)

        class Saved:
            @classmethod
            def make(cls, **fields):
                row = cls(**fields)
                db.session.add(row)
                db.session.commit()
                return row

        class Note(db.Model, Saved):
            id = db.Column(db.Integer, primary_key=True)

        class Pinned(Note):
            pass

        @app.route("/notes/<int:n>")
        async def show(n):
            first = Note.query.filter_by(id=n).first()
            same = db.session.query(Note).get(n)
            pins = Pinned.query.all()
            Note.make(id=n + 1)
            return str((first, same, pins))
    """)
    assert ("blocking_db", "first = Note.query.filter_by(id=n).first()") in found
    assert ("blocking_db", "same = db.session.query(Note).get(n)") in found
    assert ("blocking_db", "pins = Pinned.query.all()") in found
    assert ("blocking_db", "db.session.commit()") in found


def test_flask_sqlalchemy_helpers_and_a_models_own_classmethod_query(tmp_path):
    found = flagged(tmp_path, """
        from quart import Quart
        from flask_sqlalchemy import SQLAlchemy

        db = SQLAlchemy()
        app = Quart(__name__)
        db.init_app(app)

        class Card(db.Model):
            id = db.Column(db.Integer, primary_key=True)

            @classmethod
            def newest(cls):
                return cls.query.order_by(cls.id.desc()).first()

        @app.route("/cards/<int:n>")
        async def card(n):
            one = db.get_or_404(Card, n)
            page = Card.query.paginate(page=n, per_page=20)
            return str((one, page, Card.newest()))
    """)
    assert ("blocking_db", "one = db.get_or_404(Card, n)") in found
    assert ("blocking_db", "page = Card.query.paginate(page=n, per_page=20)") in found
    assert ("blocking_db", "return cls.query.order_by(cls.id.desc()).first()") in found


def test_async_sqlalchemy_and_a_plain_query_attribute_are_silent(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import select
        from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

        engine = create_async_engine("sqlite+aiosqlite:///notes.db")

        class Search:
            query = "notes"

            def first(self):
                return self.query

        class Filters:
            Model = Search

        filters = Filters()

        class Local(filters.Model):
            pass

        async def show(n):
            async with AsyncSession(engine) as session:
                row = (await session.execute(select(Search).where(n == 1))).first()
                await session.commit()
            return row, Local.query.upper(), Search().first()
    """)
    assert not found


# -- a client kept in an aiohttp application, read back as request.app[key] -----------------------------------------


def test_a_sync_client_kept_in_the_aiohttp_app_blocks_its_readers(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        from aiohttp import web

        def count_rows(conn, table):
            cur = conn.cursor()
            cur.execute("SELECT count(*) FROM " + table)
            return cur.fetchone()[0]

        async def stats(request):
            total = count_rows(request.app["store"], "items")
            request.config_dict["store"].commit()
            return web.json_response({"total": total})

        def build(path):
            app = web.Application()
            app["store"] = sqlite3.connect(path)
            app.add_routes([web.get("/stats", stats)])
            return app
    """)
    assert ("blocking_db", 'cur.execute("SELECT count(*) FROM " + table)') in found
    assert ("blocking_db", 'request.config_dict["store"].commit()') in found


def test_a_sync_client_under_an_aiohttp_app_key_blocks_its_readers(tmp_path):
    found = flagged(tmp_path, """
        import redis
        from aiohttp import web

        CACHE = web.AppKey("cache", redis.Redis)

        async def hits(request):
            return web.json_response({"hits": request.app[CACHE].incr("hits")})

        def build():
            app = web.Application()
            app[CACHE] = redis.Redis()
            app.router.add_get("/hits", hits)
            return app
    """)
    assert ("blocking_db", 'return web.json_response({"hits": request.app[CACHE].incr("hits")})') in found


def test_an_async_client_kept_in_the_aiohttp_app_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        import aiosqlite
        from aiohttp import web

        async def stats(request):
            async with request.app["store"].execute("SELECT count(*) FROM items") as cur:
                row = await cur.fetchone()
            settings = request.app["settings"]
            return web.json_response({"total": row[0], "name": settings.get("name")})

        async def open_store(app):
            app["store"] = await aiosqlite.connect("shop.db")

        def build():
            app = web.Application()
            app["settings"] = {"name": "shop"}
            app.on_startup.append(open_store)
            app.add_routes([web.get("/stats", stats)])
            return app

        def offline_report(cache):
            cache["store"] = sqlite3.connect("report.db")
            return cache
    """)
    assert not found


def test_a_sync_connection_in_sanics_app_ctx_blocks_its_readers(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        from sanic import Sanic, json

        app = Sanic("shop")

        @app.before_server_start
        async def attach(app, loop):
            app.ctx.db = sqlite3.connect("shop.db")

        @app.get("/count")
        async def count(request):
            rows = request.app.ctx.db.execute("SELECT 1").fetchall()
            return json({"n": len(rows)})
    """)
    assert ("blocking_db", 'rows = request.app.ctx.db.execute("SELECT 1").fetchall()') in found


def test_an_async_connection_in_sanics_app_ctx_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import aiosqlite
        from sanic import Sanic, json

        app = Sanic("shop")

        @app.before_server_start
        async def attach(app, loop):
            app.ctx.db = await aiosqlite.connect("shop.db")

        @app.get("/count")
        async def count(request):
            async with request.app.ctx.db.execute("SELECT 1") as cur:
                rows = await cur.fetchall()
            return json({"n": len(rows)})
    """)
    assert not found

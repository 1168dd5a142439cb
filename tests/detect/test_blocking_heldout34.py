"""check blocking: the kinds held-out wave 34 (issue 17, stop 38) missed, fixed by kind: Tornado handlers and IOLoop
callbacks, Celery's client calls that wait, TLS context set-up and password hashing, SQLAlchemy's SAVEPOINT, Home
Assistant ``@callback`` functions, a helper annotated with a re-exported class.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- Tornado: plain handler methods and IOLoop callbacks run on the loop ------------------------------------------------
def test_plain_methods_of_a_tornado_request_handler_run_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import time
        import tornado.web
        from tornado.concurrent import run_on_executor

        class Base(tornado.web.RequestHandler):
            def initialize(self, settle):
                time.sleep(settle)

            def prepare(self):
                time.sleep(0.2)

        class Orders(Base):
            def get(self, order_id):
                self.write(self.lookup(order_id))

            def lookup(self, order_id):
                time.sleep(0.5)
                return {"id": order_id}

            @run_on_executor
            def slow_report(self):
                time.sleep(5)

        class NotAHandler:
            def get(self, key):
                time.sleep(1)
    """)
    assert found == {("blocking_sleep", "time.sleep(settle)"), ("blocking_sleep", "time.sleep(0.2)"),
                     ("blocking_sleep", "time.sleep(0.5)")}


def test_a_periodic_callback_and_an_ioloop_callback_run_on_the_loop_and_an_executor_does_not(tmp_path):
    found = flagged(tmp_path, """
        import shelve
        import time
        from tornado.ioloop import IOLoop, PeriodicCallback

        class Snapshotter:
            def __init__(self, path):
                self.path = path
                self.timer = PeriodicCallback(self.dump, 60_000)
                IOLoop.current().add_callback(self.warm)
                IOLoop.current().run_in_executor(None, self.archive)

            def dump(self):
                db = shelve.open(self.path)
                db.close()

            def warm(self):
                time.sleep(0.1)

            def archive(self):
                time.sleep(3)
    """)
    assert found == {("blocking_file_io", "db = shelve.open(self.path)"), ("blocking_file_io", "db.close()"),
                     ("blocking_sleep", "time.sleep(0.1)")}


# -- Celery: client calls that publish to the broker or wait for replies -------------------------------------------
def test_celery_control_inspect_send_task_and_result_queries_block(tmp_path):
    found = flagged(tmp_path, """
        from celery import Celery
        from celery.result import AsyncResult

        queue = Celery("jobs", broker="redis://localhost")

        async def grow(worker):
            queue.control.pool_grow(2, destination=[worker], reply=True)

        async def who_is_busy():
            return queue.control.inspect(timeout=1.0).active()

        async def kick(name):
            return queue.send_task(name, args=(1,)).id

        async def done(task_id):
            return AsyncResult(task_id, app=queue).ready()

        async def by_name(name):
            return queue.tasks[name].apply_async(args=(2,))

        def plain_inspect():
            return queue.control.inspect()
    """)
    assert found == {("blocking_task", "queue.control.pool_grow(2, destination=[worker], reply=True)"),
                     ("blocking_task", "return queue.control.inspect(timeout=1.0).active()"),
                     ("blocking_socket_io", "return queue.send_task(name, args=(1,)).id"),
                     ("blocking_db", "return AsyncResult(task_id, app=queue).ready()"),
                     ("blocking_socket_io", "return queue.tasks[name].apply_async(args=(2,))")}


def test_celery_calls_handed_to_an_executor_or_building_objects_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from celery import Celery
        from celery.result import AsyncResult

        queue = Celery("jobs")

        async def stats():
            probe = queue.control.inspect(timeout=0.5)
            return await asyncio.to_thread(probe.stats)

        async def handle(task_id):
            result = AsyncResult(task_id, app=queue)
            return result.id, queue.tasks.keys()
    """)
    assert found == set()


# -- TLS contexts and password hashes ---------------------------------------------------------------------------
def test_tls_context_set_up_reads_certificate_files(tmp_path):
    found = flagged(tmp_path, """
        import ssl

        async def connect(host, cert_path, ca_path):
            ctx = ssl.create_default_context(cafile=ca_path)
            ctx.load_cert_chain(cert_path)
            own = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            own.load_verify_locations(ca_path)
            own.check_hostname = False
            return ctx, own
    """)
    assert found == {("blocking_file_io", "ctx = ssl.create_default_context(cafile=ca_path)"),
                     ("blocking_file_io", "ctx.load_cert_chain(cert_path)"),
                     ("blocking_file_io", "own.load_verify_locations(ca_path)")}


def test_a_context_made_at_import_time_or_from_in_memory_data_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import ssl

        TLS = ssl.create_default_context()

        async def connect(pem_text):
            own = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            own.load_verify_locations(cadata=pem_text)
            own.set_ciphers("ECDHE")
            return TLS, own
    """)
    assert found == set()


def test_pwdlib_and_passlib_hashes_are_cpu_heavy(tmp_path):
    found = flagged(tmp_path, """
        from passlib.hash import bcrypt
        from pwdlib import PasswordHash

        hasher = PasswordHash.recommended()

        async def register(password):
            return hasher.hash(password)

        async def login(password, stored):
            return hasher.verify(password, stored) or bcrypt.verify(password, stored)

        async def describe():
            return type(hasher).__name__
    """)
    assert found == {("blocking_cpu", "return hasher.hash(password)"),
                     ("blocking_cpu", "return hasher.verify(password, stored) or bcrypt.verify(password, stored)")}


# -- SQLAlchemy's nested transaction ---------------------------------------------------------------------------
def test_begin_nested_on_a_sync_session_emits_a_savepoint(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy.orm import Session
        from sqlalchemy.ext.asyncio import AsyncSession

        async def add_member(session: Session, member):
            with session.begin_nested():
                session.add(member)

        async def add_member_async(session: AsyncSession, member):
            async with session.begin_nested():
                session.add(member)
    """)
    assert found == {("blocking_db", "with session.begin_nested():")}


# -- Home Assistant: @callback functions run on the loop ------------------------------------------------------------
def test_a_home_assistant_callback_reaches_the_override_of_an_abstract_method(tmp_path):
    found = flagged(tmp_path, """
        import time
        from homeassistant.core import callback

        class Level:
            def _compute(self):
                raise NotImplementedError()

            @callback
            def _handle_update(self):
                self.value = self._compute()

            def refresh_blocking(self):
                time.sleep(2)

        class HourlyLevel(Level):
            def _compute(self):
                time.sleep(0.3)
                return 1
    """)
    assert found == {("blocking_sleep", "time.sleep(0.3)")}


# -- a helper annotated with a class re-exported under a shorter name ------------------------------------------------
def test_an_instance_returned_by_a_helper_annotated_with_a_reexported_class_is_typed(tmp_path):
    found = flagged(tmp_path, """
        from openpyxl import Workbook

        def open_book() -> Workbook:
            return Workbook()

        async def export(path):
            book = open_book()
            book.save(path)
    """)
    assert found == {("blocking_file_io", "book.save(path)")}


def test_a_tornado_handler_reaches_the_celery_app_its_application_holds(tmp_path):
    found = flagged(tmp_path, """
        import celery
        import tornado.web

        class Console(tornado.web.Application):
            def __init__(self, handlers, broker_app=None):
                super().__init__(handlers)
                self.broker_app = broker_app or celery.Celery()

        class Base(tornado.web.RequestHandler):
            @property
            def broker_app(self):
                return self.application.broker_app

        class Restart(Base):
            def post(self, worker):
                self.broker_app.control.pool_restart(destination=[worker], reply=True)
                self.write({"ok": True})

        class Shown(Base):
            def get(self):
                self.write(self.application.settings)
    """)
    assert found == {("blocking_task", "self.broker_app.control.pool_restart(destination=[worker], reply=True)")}


def test_reading_the_state_of_a_celery_result_queries_the_backend(tmp_path):
    found = flagged(tmp_path, """
        from celery.result import AsyncResult

        async def status(task_id):
            job = AsyncResult(task_id)
            return {"id": job.id, "state": job.state}

        async def store(job: AsyncResult, info):
            job.result = info
            return job.task_id

        def finished_payload(job: AsyncResult):
            return job.result, job.traceback  # read once the state said SUCCESS: from the cached meta

        async def payload(job: AsyncResult):
            return finished_payload(job)
    """)
    assert found == {("blocking_db", 'return {"id": job.id, "state": job.state}')}


def test_a_plugin_table_with_a_junk_property_read_is_refused():
    from faultlib.detect.serving.blocking.vocab import Vocabulary

    assert Vocabulary(reads={"pkg.Result.state": ("blocking_db", "https://example.org/docs")}).problem() is None
    problem = Vocabulary(reads={"pkg.Result.state": None}).problem()
    assert problem is not None and "reads['pkg.Result.state']" in problem


def test_storing_into_a_shelf_pickles_into_its_file_and_a_dict_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import shelve

        async def remember(path, key, value):
            cache = {}
            cache[key] = value
            db = shelve.open(path)
            db[key] = value
            old = db["previous"]
            del db["stale"]
            return old, cache[key]
    """)
    assert found == {("blocking_file_io", "db = shelve.open(path)"), ("blocking_file_io", "db[key] = value"),
                     ("blocking_file_io", 'old = db["previous"]'), ("blocking_file_io", 'del db["stale"]')}

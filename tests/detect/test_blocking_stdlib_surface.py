"""check blocking: the standard library's blocking surface filled from its documentation (issue 17) -- file and
archive formats, network clients beyond sockets, waits on threads and processes. Each sync call inside an
``async def`` is reported at its line; the non-blocking forms (in-memory codecs, zero timeouts, ``blocking=False``,
offloaded calls) stay silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_file_formats_read_and_written_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import asyncio, configparser, gzip, io, json, mailbox, shelve, tarfile, glob

        async def settings(path):
            parser = configparser.ConfigParser()
            parser.read(path)
            parser.read_string("[a]\\nb = 1")
            return parser

        async def archive_logs(log, blob):
            with gzip.open(log + ".gz", "wt") as out:
                out.write("done")
            in_memory = gzip.GzipFile(fileobj=io.BytesIO(blob))
            return gzip.decompress(blob), in_memory

        async def state(path, record):
            with open(path, "w") as handle:
                json.dump(record, handle)
            return json.loads('{"a": 1}')

        async def inbox(path):
            box = mailbox.mbox(path)
            return box.keys()

        async def cache(path):
            with shelve.open(path) as db:
                db.sync()

        async def unpack(path, dest):
            bundle = tarfile.open(path)
            bundle.extractall(dest)

        async def find(root):
            return glob.glob(root + "/**/*.py", recursive=True), glob.glob(root + "/*.py")

        async def settings_off_loop(path):
            parser = configparser.ConfigParser()
            await asyncio.to_thread(parser.read, path)
    """)
    assert found == {
        ("blocking_file_io", "parser.read(path)"),
        ("blocking_file_io", 'with open(path, "w") as handle:'),
        ("blocking_file_io", 'with gzip.open(log + ".gz", "wt") as out:'),
        ("blocking_file_io", "box = mailbox.mbox(path)"),
        ("blocking_file_io", "return box.keys()"),
        ("blocking_file_io", "with shelve.open(path) as db:"),
        ("blocking_file_io", "db.sync()"),
        ("blocking_file_io", "bundle = tarfile.open(path)"),
        ("blocking_file_io", "bundle.extractall(dest)"),
        ("blocking_file_io", 'return glob.glob(root + "/**/*.py", recursive=True), glob.glob(root + "/*.py")'),
    }


def test_an_in_memory_gzip_stays_silent_and_a_one_directory_glob_is_found(tmp_path):
    found = flagged(tmp_path, """
        import glob, gzip, io

        async def listing(root, blob):
            names = glob.glob(root + "/*.json")
            return names, gzip.GzipFile(fileobj=io.BytesIO(blob)).read()
    """)
    assert found == {("blocking_file_io", 'names = glob.glob(root + "/*.json")')}


def test_network_clients_of_the_standard_library_block(tmp_path):
    found = flagged(tmp_path, """
        import asyncio, selectors, socket, ssl, xmlrpc.client

        async def remote_sum(url):
            proxy = xmlrpc.client.ServerProxy(url)
            return proxy.add(1, 2), proxy.system.listMethods()

        async def certificate(host):
            return ssl.get_server_certificate((host, 443))

        async def tls_ping(host):
            ctx = ssl.create_default_context()
            raw = socket.create_connection((host, 443))
            conn = ctx.wrap_socket(raw, server_hostname=host)
            conn.sendall(b"ping")
            return conn.recv(4)

        async def wait_ready(sel: selectors.DefaultSelector):
            ready_now = sel.select(0)
            return ready_now, sel.select()

        async def remote_sum_off_loop(url):
            proxy = xmlrpc.client.ServerProxy(url)
            return await asyncio.to_thread(proxy.add, 1, 2)
    """)
    assert found == {
        ("blocking_http", "return proxy.add(1, 2), proxy.system.listMethods()"),
        ("blocking_socket_io", "return ssl.get_server_certificate((host, 443))"),
        ("blocking_file_io", "ctx = ssl.create_default_context()"),  # loads the CA bundle (libraries.certificates)
        ("blocking_socket_io", "raw = socket.create_connection((host, 443))"),
        ("blocking_socket_io", 'conn.sendall(b"ping")'),
        ("blocking_socket_io", "return conn.recv(4)"),
        ("blocking_socket_io", "return ready_now, sel.select()"),
    }


def test_waiting_for_threads_and_processes_blocks_unless_it_cannot_wait(tmp_path):
    found = flagged(tmp_path, """
        import asyncio, concurrent.futures, multiprocessing, threading

        LOCK = threading.Lock()
        SLOTS = threading.Semaphore(2)

        async def guarded():
            if LOCK.acquire(False):
                LOCK.release()
            got = SLOTS.acquire(blocking=False)
            SLOTS.acquire()
            return got

        async def crunch(items):
            with multiprocessing.Pool(2) as pool:
                return pool.map(abs, items)

        async def settle(futures, executor: concurrent.futures.ThreadPoolExecutor):
            concurrent.futures.wait(futures, timeout=0)
            concurrent.futures.wait(futures)
            executor.shutdown(wait=False)
            executor.shutdown()

        async def from_other_loop(coro, loop):
            return asyncio.run_coroutine_threadsafe(coro, loop).result()

        async def crunch_off_loop(items):
            def run():
                with multiprocessing.Pool(2) as pool:
                    return pool.map(abs, items)
            return await asyncio.to_thread(run)
    """)
    assert found == {
        ("blocking_task", "SLOTS.acquire()"),
        ("blocking_task", "return pool.map(abs, items)"),
        ("blocking_task", "concurrent.futures.wait(futures)"),
        ("blocking_task", "executor.shutdown()"),
        ("blocking_task", "return asyncio.run_coroutine_threadsafe(coro, loop).result()"),
    }

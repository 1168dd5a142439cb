"""check blocking: the kinds held-out wave 35 (issue 17, stop 39) missed or raised wrongly, fixed by kind: a decorator
whose plain wrapper returns the executor future, a sync client returned by an awaited coroutine of the project.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- a decorator whose plain (sync) wrapper returns run_in_executor's future: the function runs in a thread ----------
def test_a_sync_wrapper_returning_the_executor_future_takes_the_function_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time
        from functools import partial

        def in_thread(fn):
            def runner(*args, **kwargs):
                loop = asyncio.get_event_loop()
                job = partial(fn, *args, **kwargs)
                return loop.run_in_executor(executor=None, func=job)
            return runner

        def traced(fn):
            def runner(*args, **kwargs):
                print("calling", fn)
                return fn(*args, **kwargs)
            return runner

        class Warmer:
            @in_thread
            def fetch_weights(self, path):
                time.sleep(3)

            @traced
            def settle(self):
                time.sleep(1)

            async def start(self):
                await self.fetch_weights("/models/a")
                self.settle()
    """)
    assert found == {("blocking_sleep", "time.sleep(1)")}


def test_a_sync_wrapper_returning_to_thread_takes_the_function_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time

        def threaded(fn):
            def runner(*args):
                return asyncio.to_thread(fn, *args)
            return runner

        def called_here(fn):
            def runner(*args):
                fn(*args)
                return asyncio.sleep(0)
            return runner

        @threaded
        def rebuild(index_dir):
            time.sleep(2)

        @called_here
        def flush(index_dir):
            time.sleep(4)

        async def refresh(index_dir):
            await rebuild(index_dir)
            await flush(index_dir)
    """)
    assert found == {("blocking_sleep", "time.sleep(4)")}


# -- a sync client returned by a coroutine of the project: `client = await get_client()` ------------------------------
def test_a_sync_client_returned_by_an_awaited_coroutine_blocks_where_it_is_used(tmp_path):
    found = flagged(tmp_path, """
        import httpx
        import requests

        async def make_session(token):
            session = requests.Session()
            session.headers["Authorization"] = token
            return session

        async def make_async_client(token):
            return httpx.AsyncClient(headers={"Authorization": token})

        async def sync_inventory(token):
            session = await make_session(token)
            rows = session.get("https://inventory.internal/rows").json()
            fast = await make_async_client(token)
            await fast.get("https://inventory.internal/ping")
            return rows
    """)
    assert found == {("blocking_http", 'rows = session.get("https://inventory.internal/rows").json()')}


def test_a_base_class_annotation_gives_way_to_the_concrete_client_of_the_same_library(tmp_path):
    found = flagged(tmp_path, """
        import requests
        from requests.sessions import SessionRedirectMixin

        async def open_session(base) -> SessionRedirectMixin:
            session = requests.Session()
            session.verify = False
            return session

        async def mirror(base, names):
            session = await open_session(base)
            for name in names:
                session.put(base + name, data=b"")
    """)
    assert found == {("blocking_http", 'session.put(base + name, data=b"")')}


# -- sync clients of the servers bots drive (mattermostdriver, qbittorrent-api, aria2p, Instaloader) ---------------------
def test_a_mattermost_driver_and_its_endpoints_block_and_the_async_driver_does_not(tmp_path):
    found = flagged(tmp_path, """
        from mattermostdriver import AsyncDriver, Driver

        class Relay:
            def __init__(self, url, token):
                self.driver = Driver({"url": url, "token": token})
                self.fast = AsyncDriver({"url": url, "token": token})

            def channel_name(self, channel_id):
                return self.driver.channels.get_channel(channel_id)["name"]

            async def on_message(self, channel_id, text):
                name = self.channel_name(channel_id)
                self.driver.posts.create_post(options={"channel_id": channel_id, "message": text})
                await self.fast.posts.create_post(options={"channel_id": channel_id, "message": name})
    """)
    assert found == {("blocking_http", 'return self.driver.channels.get_channel(channel_id)["name"]'),
                     ("blocking_http", 'self.driver.posts.create_post(options={"channel_id": channel_id, "message": text})')}


def test_qbittorrent_namespaces_and_aria2p_requests_block_and_their_formatters_do_not(tmp_path):
    found = flagged(tmp_path, """
        import aria2p
        import qbittorrentapi

        async def tune(host):
            client = qbittorrentapi.Client(host=host, username="admin", password="secret")
            client.application.set_preferences({"max_connec": 300})

        async def fetch(link, gid):
            api = aria2p.API(aria2p.Client(host="http://localhost", port=6800))
            added = api.add_magnet(link)
            item = api.get_download(gid)
            label = item.progress_string()
            item.remove(force=True)
            return added, label
    """)
    assert found == {("blocking_http", 'client.application.set_preferences({"max_connec": 300})'),
                     ("blocking_http", "added = api.add_magnet(link)"), ("blocking_http", "item = api.get_download(gid)"),
                     ("blocking_http", "item.remove(force=True)")}


def test_instaloader_downloads_and_lookups_block(tmp_path):
    found = flagged(tmp_path, """
        from instaloader import Instaloader, Post

        async def grab(shortcode, target):
            loader = Instaloader(download_videos=False)
            post = Post.from_shortcode(loader.context, shortcode)
            loader.download_post(post, target)
            return post.owner_username
    """)
    assert found == {("blocking_http", "post = Post.from_shortcode(loader.context, shortcode)"),
                     ("blocking_http", "loader.download_post(post, target)")}


def test_cherry_picker_runs_git_and_its_url_helper_does_not(tmp_path):
    found = flagged(tmp_path, """
        from cherry_picker import CherryPicker

        async def backport(commit, branch):
            picker = CherryPicker("origin", commit, [branch])
            picker.backport()
            return picker.get_pr_url(branch, "backport-" + commit)
    """)
    assert found == {("blocking_subprocess", 'picker = CherryPicker("origin", commit, [branch])'),
                     ("blocking_subprocess", "picker.backport()")}


# -- parsers that read a media or torrent file for its metadata (hachoir, torrentool) -----------------------------------
def test_media_and_torrent_metadata_parsers_read_the_file(tmp_path):
    found = flagged(tmp_path, """
        from hachoir.metadata import extractMetadata
        from hachoir.parser import createParser
        from torrentool.api import Torrent

        async def describe(video_path, torrent_path, torrent_bytes):
            meta = extractMetadata(createParser(video_path))
            info_hash = Torrent.from_file(torrent_path).info_hash
            other = Torrent.from_string(torrent_bytes).info_hash
            return meta.get("duration"), info_hash, other
    """)
    assert found == {("blocking_file_io", "meta = extractMetadata(createParser(video_path))"),
                     ("blocking_file_io", "info_hash = Torrent.from_file(torrent_path).info_hash")}


def test_what_a_namespaced_client_returns_is_data_not_another_client(tmp_path):
    found = flagged(tmp_path, """
        import qbittorrentapi
        from mattermostdriver import Driver

        async def add(host, magnet):
            client = qbittorrentapi.Client(host=host)
            answer = client.torrents_add(urls=magnet)
            if answer.lower().startswith("ok"):
                first = client.torrents.info()[0]
                return first.state.lower().endswith("dl")

        async def is_admin(url, user_id):
            driver = Driver({"url": url})
            user = driver.users.get_user(user_id)
            return "system_admin" in user["roles"].split()
    """)
    assert found == {("blocking_http", "answer = client.torrents_add(urls=magnet)"),
                     ("blocking_http", "first = client.torrents.info()[0]"),
                     ("blocking_http", "user = driver.users.get_user(user_id)")}


# -- a sync generator handed to a function of the project that iterates it on the loop -------------------------------
GENERATOR_HANDED_ON = """
    import asyncio
    from pathlib import Path

    from starlette.responses import StreamingResponse

    def read_pieces(path):
        data = Path(path).read_bytes()
        for start in range(0, len(data), 512):
            yield data[start:start + 512]

    def parse_rows(path):
        with open(path) as fh:
            for row in fh:
                yield row.split(",")

    async def embed_all(pieces):
        out = []
        for piece in pieces:
            out.append(len(piece))
            await asyncio.sleep(0)
        return out

    def count(rows):
        return sum(1 for _ in rows)

    def keep(rows):
        return {"rows": rows}

    def encode(rows):
        for row in rows:
            yield ",".join(row).encode()
{tail}
"""


def test_a_generator_handed_to_a_coroutine_that_iterates_it_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, GENERATOR_HANDED_ON.replace("{tail}", """
    async def ingest(path, table):
        sizes = await embed_all(read_pieces(path))
        rows = parse_rows(table)
        return sizes, count(rows)
    """))
    assert found == {("blocking_file_io", "data = Path(path).read_bytes()"),
                     ("blocking_file_io", "with open(path) as fh:")}


def test_a_generator_handed_on_without_being_iterated_or_iterated_in_a_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, GENERATOR_HANDED_ON.replace("{tail}", """
    async def ingest(path, table):
        kept = keep(read_pieces(path))
        total = await asyncio.to_thread(count, parse_rows(table))
        return kept, total

    async def export(table):
        rows = parse_rows(table)
        return StreamingResponse(encode(rows))
    """))
    assert found == set()


# -- Ray: ray.get waits for the cluster; awaiting the ObjectRef does not ---------------------------------------------
def test_ray_get_and_a_waiting_ray_wait_block_and_awaiting_the_ref_or_polling_does_not(tmp_path):
    found = flagged(tmp_path, """
        import ray

        @ray.remote
        def build_config(name):
            return {"name": name}

        class Replica:
            async def start(self, name):
                config = ray.get(build_config.remote(name))
                ready, pending = ray.wait([build_config.remote(name)], num_returns=1)
                polled, _ = ray.wait(pending, timeout=0)
                again = await build_config.remote(name)
                return config, ready, polled, again
    """)
    assert found == {("blocking_task", "config = ray.get(build_config.remote(name))"),
                     ("blocking_task", "ready, pending = ray.wait([build_config.remote(name)], num_returns=1)")}


# -- reading a Popen child's pipe waits for the child's output ---------------------------------------------------------
def test_reading_a_popen_pipe_waits_for_the_child_and_an_asyncio_pipe_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import subprocess

        async def follow(proc):
            while proc.poll() is None:
                line = proc.stdout.readline().decode()
                await asyncio.sleep(0.1)

        async def sync_drive(src, dst):
            proc = subprocess.Popen(["rsync", src, dst], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            await follow(proc)
            for err in proc.stderr:
                print(err)

        async def async_drive(src, dst):
            proc = await asyncio.create_subprocess_exec("rsync", src, dst, stdout=asyncio.subprocess.PIPE)
            line = await proc.stdout.readline()
            return line
    """)
    assert found == {("blocking_subprocess", "line = proc.stdout.readline().decode()"),
                     ("blocking_subprocess", "for err in proc.stderr:")}

"""check blocking: the kinds held-out wave 41 (issue 17; the recall of eight Telegram/Discord bots, RAG and speech
servers read in full) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- a name bound with := has the type of its value ------------------------------------------------------------------
def test_a_walrus_bound_connection_is_typed_like_an_assignment(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        async def purge(path):
            if db := sqlite3.connect(path):
                db.execute("DELETE FROM notes")
    """)
    assert ("blocking_db", 'db.execute("DELETE FROM notes")') in found


def test_a_walrus_bound_plain_value_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        async def first_word(text):
            if words := text.split():
                return words[0].upper()
    """)
    assert found == set()


# -- await of an unannotated coroutine that returns a factory's value --------------------------------------------------
def test_awaiting_a_coroutine_that_returns_a_known_factory_types_the_result(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        async def ledger(path):
            return sqlite3.connect(path)

        async def balance(path):
            book = await ledger(path)
            return book.execute("SELECT sum(x) FROM t").fetchone()
    """)
    assert ("blocking_db", 'return book.execute("SELECT sum(x) FROM t").fetchone()') in found


def test_awaiting_a_coroutine_that_returns_an_async_client_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import aiosqlite

        async def ledger(path):
            return await aiosqlite.connect(path)

        async def balance(path):
            book = await ledger(path)
            rows = await book.execute("SELECT 1")
            return rows
    """)
    assert ("blocking_db", 'rows = await book.execute("SELECT 1")') not in found


# -- the PIL.Image module used as an annotation means the Image class -------------------------------------------------
def test_an_image_annotated_with_the_pil_image_module_is_a_pil_image(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        def as_png(picture: Image) -> io.BytesIO:
            out = io.BytesIO()
            picture.save(out, format="PNG")
            return out

        async def reply_with(picture):
            return as_png(picture)
    """)
    assert ("blocking_cpu", 'picture.save(out, format="PNG")') in found


def test_a_parameter_annotated_with_another_module_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import json

        def dump(codec: json, value):
            return codec.dumps(value)

        async def reply_with(value):
            return dump(json, value)
    """)
    assert found == set()


# -- ImageOps and ImageEnhance return images ---------------------------------------------------------------------------
def test_an_imageops_result_saved_to_a_path_writes_the_file(tmp_path):
    found = flagged(tmp_path, """
        from PIL import Image, ImageEnhance, ImageOps

        async def mirrored(src, dst, darker):
            picture = Image.open(src)
            ImageOps.mirror(picture).save(dst)
            ImageEnhance.Brightness(picture).enhance(0.5).save(darker)
    """)
    assert ("blocking_file_io", "ImageOps.mirror(picture).save(dst)") in found
    assert ("blocking_file_io", "ImageEnhance.Brightness(picture).enhance(0.5).save(darker)") in found


def test_an_imageops_result_handed_to_an_executor_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from PIL import ImageOps

        async def mirrored(picture, dst):
            flipped = ImageOps.mirror(picture)
            await asyncio.to_thread(flipped.save, dst)
    """)
    assert found == set()


# -- Selenium WebDriver -----------------------------------------------------------------------------------------------
def test_selenium_driver_commands_block_where_the_driver_comes_from_a_helper(tmp_path):
    found = flagged(tmp_path, """
        from selenium import webdriver
        from selenium.webdriver.common.by import By

        def browser():
            try:
                return webdriver.Firefox(), None
            except Exception as exc:
                return None, str(exc)

        async def snapshot(page):
            driver, problem = browser()
            driver.get(page)
            driver.find_element(By.TAG_NAME, "body").screenshot("page.png")
            driver.quit()
    """)
    assert {("blocking_http", "return webdriver.Firefox(), None"), ("blocking_http", "driver.get(page)"),
            ("blocking_http", 'driver.find_element(By.TAG_NAME, "body").screenshot("page.png")'),
            ("blocking_http", "driver.quit()")} <= found


def test_selenium_options_and_offloaded_drivers_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from selenium import webdriver

        def render(page):
            driver = webdriver.Chrome()
            driver.get(page)
            return driver.page_source

        async def snapshot(page):
            options = webdriver.ChromeOptions()
            options.add_argument("--headless=new")
            return await asyncio.to_thread(render, page)
    """)
    assert found == set()


# -- heroku3 ---------------------------------------------------------------------------------------------------------
def test_heroku3_app_calls_are_http_requests(tmp_path):
    found = flagged(tmp_path, """
        import heroku3

        CONN = heroku3.from_key("key")

        async def show_vars(name):
            app = CONN.app(name)
            return app.config().to_dict()
    """)
    assert {("blocking_http", "app = CONN.app(name)"), ("blocking_http", "return app.config().to_dict()")} <= found


def test_heroku3_in_a_worker_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import heroku3

        def fetch_log(key, name):
            return heroku3.from_key(key).app(name).get_log()

        async def show_log(key, name):
            return await asyncio.to_thread(fetch_log, key, name)
    """)
    assert found == set()


# -- GitPython: init, remotes made by create_remote, iter_commits ------------------------------------------------------
def test_gitpython_init_create_remote_and_iter_commits_run_git(tmp_path):
    found = flagged(tmp_path, """
        from git import Repo

        async def sync_with(url):
            repo = Repo.init("work")
            upstream = repo.create_remote("upstream", url)
            upstream.fetch()
            return [c.hexsha for c in repo.iter_commits("HEAD..upstream/main")]
    """)
    assert {("blocking_subprocess", 'repo = Repo.init("work")'),
            ("blocking_subprocess", 'upstream = repo.create_remote("upstream", url)'),
            ("blocking_subprocess", "upstream.fetch()"),
            ("blocking_subprocess", 'return [c.hexsha for c in repo.iter_commits("HEAD..upstream/main")]')} <= found


def test_gitpython_reads_of_loaded_objects_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        async def describe(commit):
            return f"{commit.hexsha[:7]} {commit.message.splitlines()[0]}"
    """)
    assert found == set()


# -- sync SDKs of bots: Telegraph, speedtest, geopy, pymediainfo, img2pdf ----------------------------------------------
def test_sync_bot_sdks_block(tmp_path):
    found = flagged(tmp_path, """
        import img2pdf
        import speedtest
        from geopy.geocoders import Nominatim
        from pymediainfo import MediaInfo
        from telegraph import Telegraph, upload_file

        PAGES = Telegraph()

        async def publish(path, title, place):
            links = upload_file(path)
            PAGES.create_page(title, html_content="<p>x</p>")
            meter = speedtest.Speedtest()
            meter.download()
            where = Nominatim(user_agent="bot").geocode(place)
            tracks = MediaInfo.parse(path).tracks
            pdf = img2pdf.convert([path])
            return links, where, tracks, pdf
    """)
    assert {("blocking_http", "links = upload_file(path)"),
            ("blocking_http", 'PAGES.create_page(title, html_content="<p>x</p>")'),
            ("blocking_http", "meter.download()"),
            ("blocking_http", 'where = Nominatim(user_agent="bot").geocode(place)'),
            ("blocking_file_io", "tracks = MediaInfo.parse(path).tracks"),
            ("blocking_file_io", "pdf = img2pdf.convert([path])")} <= found


def test_the_async_twins_of_bot_sdks_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from geopy.adapters import AioHTTPAdapter
        from geopy.geocoders import Nominatim
        from telegraph.aio import Telegraph

        async def publish(title, place):
            pages = Telegraph()
            await pages.create_page(title, html_content="<p>x</p>")
            async with Nominatim(user_agent="bot", adapter_factory=AioHTTPAdapter) as geo:
                return await geo.geocode(place)
    """)
    assert found == set()

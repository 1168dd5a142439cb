"""check blocking: the library families added from the census of unseen async services (benchmarks/blocking_census.py).
Each blocker is found at its line; each look-alike (an async twin, an off-loop call, a call that reads nothing)
stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_loading_certificates_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import ssl

        class Upstream:
            async def connect(self, bundle, cert, key):
                ctx = ssl.create_default_context(cafile=bundle)
                ctx.load_cert_chain(cert, key)
                return ctx

        async def pinned(path):
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.load_verify_locations(path)
            ctx.set_default_verify_paths()
            return ctx
    """)
    assert found == {("blocking_file_io", "ctx = ssl.create_default_context(cafile=bundle)"),
                     ("blocking_file_io", "ctx.load_cert_chain(cert, key)"),
                     ("blocking_file_io", "ctx.load_verify_locations(path)"),
                     ("blocking_file_io", "ctx.set_default_verify_paths()")}


def test_certificates_in_memory_or_loaded_off_the_loop_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import ssl

        async def from_memory(pem):
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.load_verify_locations(cadata=pem)
            return ctx

        async def offloaded(bundle):
            return await asyncio.to_thread(ssl.create_default_context, cafile=bundle)
    """)
    assert found == set()


def test_pwdlib_hashing_on_the_loop_blocks_and_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from pwdlib import PasswordHash

        hasher = PasswordHash.recommended()

        def check(plain, stored):
            return hasher.verify(plain, stored)

        async def login(form, user):
            if not check(form.password, user.hashed):
                return None
            return user

        async def register(form):
            return hasher.hash(form.password)

        async def register_offloaded(form):
            return await asyncio.to_thread(hasher.hash, form.password)
    """)
    assert found == {("blocking_cpu", "return hasher.verify(plain, stored)"),
                     ("blocking_cpu", "return hasher.hash(form.password)")}


def test_importing_and_package_metadata_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import importlib
        from importlib import metadata

        class Plugins:
            async def load(self, name):
                module = importlib.import_module(f"plugins.{name}")
                return module.setup()

            async def about(self):
                return {"version": metadata.version("myservice"),
                        "plugins": [ep.name for ep in metadata.entry_points(group="myservice.plugins")]}
    """)
    assert found == {("blocking_file_io", 'module = importlib.import_module(f"plugins.{name}")'),
                     ("blocking_file_io", 'return {"version": metadata.version("myservice"),'),
                     ("blocking_file_io", '"plugins": [ep.name for ep in metadata.entry_points(group="myservice.plugins")]}')}


def test_imports_done_off_the_loop_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import importlib

        async def load(name):
            return await asyncio.to_thread(importlib.import_module, name)

        async def describe(loop):
            return await loop.run_in_executor(None, importlib.invalidate_caches)
    """)
    assert found == set()


def test_code_host_clients_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from atlassian import Confluence, Jira
        from github import Github

        class Tracker:
            def __init__(self, url, token):
                self.jira = Jira(url=url, token=token)
                self.wiki = Confluence(url=url, token=token)

            async def open_ticket(self, summary):
                return self.jira.create_issue(fields={"summary": summary})

            async def page(self, page_id):
                link = self.wiki.resource_url("content")
                return link, self.wiki.get_page_by_id(page_id)

        async def report_bug(token, title):
            repo = Github(token).get_repo("octo/service")
            return repo.create_issue(title=title)
    """)
    assert found == {("blocking_http", 'return self.jira.create_issue(fields={"summary": summary})'),
                     ("blocking_http", "return link, self.wiki.get_page_by_id(page_id)"),
                     ("blocking_http", 'repo = Github(token).get_repo("octo/service")'),
                     ("blocking_http", "return repo.create_issue(title=title)")}


def test_code_host_calls_offloaded_or_only_built_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from github import Auth, Github

        async def client(token):
            return Github(auth=Auth.Token(token))

        async def fetch(gh):
            return await asyncio.to_thread(gh.get_repo, "octo/service")
    """)
    assert found == set()


def test_google_sign_in_and_discovery_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from google.oauth2.credentials import Credentials
        from google.auth.transport.requests import Request
        from google_auth_oauthlib.flow import Flow
        from googleapiclient.discovery import build

        async def callback(config, code, scopes):
            flow = Flow.from_client_config(config, scopes=scopes)
            url, _ = flow.authorization_url()
            flow.fetch_token(code=code)
            return url, flow.credentials

        async def gmail(info):
            creds = Credentials.from_authorized_user_info(info)
            creds.refresh(Request())
            return build("gmail", "v1", credentials=creds)
    """)
    assert found == {("blocking_http", "flow.fetch_token(code=code)"),
                     ("blocking_http", "creds.refresh(Request())"),
                     ("blocking_file_io", 'return build("gmail", "v1", credentials=creds)')}


def test_dns_checked_email_fonts_and_sync_searches_block_and_their_quiet_forms_do_not(tmp_path):
    found = flagged(tmp_path, """
        from email_validator import validate_email
        from PIL import ImageFont
        from youtubesearchpython import VideosSearch

        async def sign_up(address):
            return validate_email(address).normalized

        async def syntax_only(address):
            return validate_email(address, check_deliverability=False).normalized

        async def caption(draw, text):
            font = ImageFont.truetype("fonts/Roboto.ttf", 32)
            draw.text((10, 10), text, font=font)
            return ImageFont.load_default()

        async def song(query):
            search = VideosSearch(query, limit=1)
            search.next()
            return search.result()
    """)
    assert found == {("blocking_socket_io", "return validate_email(address).normalized"),
                     ("blocking_file_io", 'font = ImageFont.truetype("fonts/Roboto.ttf", 32)'),
                     ("blocking_http", "search = VideosSearch(query, limit=1)"),
                     ("blocking_http", "search.next()")}


def test_home_assistant_file_helpers_on_the_loop_block_and_in_the_executor_do_not(tmp_path):
    found = flagged(tmp_path, """
        from homeassistant.util.yaml import save_yaml
        from homeassistant.util.yaml.loader import load_yaml
        from homeassistant.util.json import json_loads, load_json

        async def rewrite_services(hass, extra):
            path = hass.config.path("custom_components/demo/services.yaml")
            services = load_yaml(path)
            services.update(extra)
            save_yaml(path, services)

        async def settings(hass, raw):
            stored = await hass.async_add_executor_job(load_json, hass.config.path("demo.json"))
            return stored, json_loads(raw)
    """)
    assert found == {("blocking_file_io", "services = load_yaml(path)"),
                     ("blocking_file_io", "save_yaml(path, services)")}

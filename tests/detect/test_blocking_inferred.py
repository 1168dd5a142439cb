"""check blocking: synchronous clients of SDKs nobody listed, inferred from what the code does with them
(:mod:`faultlib.detect.serving.blocking.inferred`). Both directions: the client the code gives a server and never
awaits blocks; the same class awaited elsewhere, a request description built with a URL, and an asyncio-first package
stay silent. The package names are invented for these tests (no vocabulary entry, nothing installed)."""

from __future__ import annotations

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_unknown_sdk_given_a_token_blocks_where_async_code_calls_it(tmp_path):
    found = flagged(tmp_path, """
        import os
        from ticketdesk import Desk

        desk = Desk(os.environ["DESK_URL"], api_token=os.environ["DESK_TOKEN"])

        async def open_ticket(title):
            ticket = desk.tickets.create(subject=title)
            desk.close()
            return ticket
    """)
    assert found == {("blocking_http", "ticket = desk.tickets.create(subject=title)")}


def test_the_finding_says_what_evidence_it_was_inferred_from(tmp_path):
    path = tmp_path / "bot.py"
    path.write_text(
        "from chatrelay import Relay\n"
        "relay = Relay({'url': 'chat.example', 'token': 'k', 'port': 443})\n"
        "async def on_message(text):\n"
        "    relay.posts.send_post({'message': text})\n")
    [finding] = analyze_path(path).findings
    assert finding.location["line"] == 4
    inferred = finding.evidence["inferred"]
    assert inferred["rule"] == "constructed_with_endpoint" and inferred["type"] == "chatrelay.Relay"
    assert inferred["evidence"][0]["line"] == 2 and inferred["evidence"][0]["credential"] is True
    assert inferred["awaited_elsewhere"] is False
    assert "inferred" in finding.evidence["guess"]


def test_a_login_call_is_evidence_and_setters_on_the_client_still_send(tmp_path):
    found = flagged(tmp_path, """
        from seedbox import Box

        class Downloads:
            def __init__(self, user, secret):
                self.box = Box()
                self.box.login(user, secret)

            async def add(self, link):
                self.box.set_speed_limit(0)
                return self.box.add_magnet(link)
    """)
    assert found == {("blocking_http", "self.box.set_speed_limit(0)"),
                     ("blocking_http", "return self.box.add_magnet(link)")}


def test_the_same_class_awaited_elsewhere_is_an_asyncio_client(tmp_path):
    found = flagged(tmp_path, """
        from ticketdesk import Desk

        desk = Desk("https://desk.example", api_token="k")

        async def open_ticket(title):
            return desk.create(subject=title)

        async def close_ticket(number):
            await desk.resolve(number)
    """)
    assert found == set()


def test_a_request_description_built_with_a_url_in_the_handler_is_data(tmp_path):
    # Decision: an endpoint alone (no credential, no login) in the same function that calls the object's methods is a
    # request being described, not a connection: silent. Builders' own verbs (with_*, to_*, build) are silent anyway.
    found = flagged(tmp_path, """
        from shapes import RequestShape

        async def relay(target):
            shape = RequestShape(url=target, method="GET")
            shape.with_header("accept", "json")
            body = shape.render()
            return shape.to_dict(), body
    """)
    assert found == set()


def test_an_endpoint_kept_for_later_calls_is_a_connection(tmp_path):
    found = flagged(tmp_path, """
        from telemetrylink import Link

        link = Link(host="metrics.local", port=9000)

        async def report(value):
            link.push("latency", value)
    """)
    assert found == {("blocking_http", 'link.push("latency", value)')}


def test_asyncio_first_packages_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from aioquill import Quill
        from telethon import TelegramClient

        quill = Quill(api_token="k")
        tg = TelegramClient("bot", api_id=1, api_hash="h")

        async def post(text):
            quill.publish(text)
            tg.parse_mode = "html"
            tg.add_event_handler(print)
    """)
    assert found == set()


def test_a_package_function_given_a_path_opens_it(tmp_path):
    found = flagged(tmp_path, """
        from mediaprobe.parser import openProbe
        from torrentkit import Torrent

        async def describe(file_path):
            probe = openProbe(file_path)
            meta = Torrent.from_file(file_path)
            return probe, meta
    """)
    assert found == {("blocking_file_io", "probe = openProbe(file_path)"),
                     ("blocking_file_io", "meta = Torrent.from_file(file_path)")}


def test_a_package_function_awaited_elsewhere_or_given_content_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        import feedfetch
        import slugs
        import sniff
        from docblob import Blob

        async def latest(url):
            return await feedfetch.fetch(url)

        async def again(url, title, file_bytes, data, name):
            kind = sniff.guess_mime(file_bytes)  # the content, not where it is
            file = io.BytesIO(data)
            other = sniff.guess_mime(file)  # an in-memory file
            blob = Blob.from_data(data=data, path=name)  # the path is only a label of the data given
            return feedfetch.fetch(url), slugs.slugify(title), kind, other, blob
    """)
    assert found == set()


def _site_dir(tmp_path, requires: list[str], construct: str = "Ledger()"):
    """A site directory holding the package ``ledgerapi`` (its client reaches its transport through a name the walk
    cannot type) and its distribution's metadata declaring ``requires``; beside it a service building the client with
    ``construct``."""
    site = tmp_path / "site"
    (site / "ledgerapi").mkdir(parents=True)
    (site / "ledgerapi" / "__init__.py").write_text(
        "class Ledger:\n"
        "    def __init__(self, transport=None, **options):\n"
        "        self._transport = transport\n"
        "    def balance(self, account):\n"
        "        return getattr(self._transport, 'send')('balance', account)\n")
    info = site / "ledgerapi-1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: ledgerapi\nVersion: 1.0\n"
                                         + "".join(f"Requires-Dist: {r}\n" for r in requires))
    info.joinpath("top_level.txt").write_text("ledgerapi\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "svc.py").write_text(
        "from ledgerapi import Ledger\n"
        f"ledger = {construct}\n"
        "async def show(account):\n"
        "    return ledger.balance(account)\n")
    return site


def test_an_installed_package_declaring_a_sync_http_library_keeps_the_code_evidence(tmp_path):
    # the walk into ledgerapi's source finds no blocker (its transport is reached through getattr); the declared
    # requirement on requests keeps the code's evidence (a token) standing
    site = _site_dir(tmp_path, ["requests>=2", "rich ; extra == 'cli'"], 'Ledger(api_token="k")')
    report = analyze_path(tmp_path / "app", site_dirs=[site])
    [finding] = [f for f in report.findings if f.kind != "analysis_incomplete"]
    assert finding.location["line"] == 4 and finding.kind == "blocking_http"
    assert [e["what"] for e in finding.evidence["inferred"]["evidence"]] == [
        "`api_token=`", "its installed distribution declares requests"]


def test_a_declared_requirement_alone_is_no_evidence(tmp_path):
    site = _site_dir(tmp_path, ["requests>=2"])  # Ledger() given no server by the code
    report = analyze_path(tmp_path / "app", site_dirs=[site])
    assert [f for f in report.findings if f.kind != "analysis_incomplete"] == []


def test_an_installed_package_whose_source_was_read_and_declares_no_io_library_stays_silent(tmp_path):
    site = _site_dir(tmp_path, ["attrs"], 'Ledger(api_token="k")')  # evidence that alone would be a finding
    report = analyze_path(tmp_path / "app", site_dirs=[site])
    assert [f for f in report.findings if f.kind != "analysis_incomplete"] == []


def test_package_functions_that_do_not_open_their_path_stay_silent(tmp_path):
    # predicates and single-inode metadata, a global setter, a conversion, a log message mentioning a scheme, a URL
    found = flagged(tmp_path, """
        import trackingkit
        import pathtools
        import logbook2

        async def prepare(os_path, tracking_uri, url_path, origin, image_url, out_path):
            hidden = pathtools.is_hidden(os_path)
            there = pathtools.file_exists(os_path)
            trackingkit.set_tracking_uri(tracking_uri)
            local = pathtools.url2path(url_path)
            logbook2.warn("rejected ws:// origin {origin}")
            pathtools.send2trash(os_path)
            pathtools.md2pdf(out_path, md_content="# x")
            upload = pathtools.file(image_url)  # a URL is no evidence: a wrapper of it, a lazy driver factory...
            return hidden, there, local, upload
    """)
    assert found == {("blocking_file_io", "pathtools.send2trash(os_path)"),
                     ("blocking_file_io", "pathtools.md2pdf(out_path, md_content=\"# x\")")}


def test_a_package_the_code_awaits_elsewhere_is_asyncio_first(tmp_path):
    found = flagged(tmp_path, """
        from echohome import Login, Proxy

        login = Login(url="https://echo.example", password="p")
        proxy = Proxy(login, "https://local")

        async def start():
            await login.login()

        async def step():
            proxy.change_login(login)
            return proxy.access_url()
    """)
    assert found == set()


def test_signing_keys_data_models_schemas_and_framework_packages_are_no_clients(tmp_path):
    # a secret is a signing key as often as a credential; a data model's password field and its text attributes;
    # a validation schema whose keys are named host/port; a package that decorates the code's coroutines
    found = flagged(tmp_path, """
        import os
        import signkit
        import schemas
        import checkers as t
        from webfw import post, Auth

        signer = signkit.TimedSigner(os.environ["SECRET_KEY"], salt="mail")
        settings_schema = t.Dict({"host": t.String(), "port": t.Int, "user": str})
        auth = Auth(token_url="/login", retrieve_user=None)

        @post("/confirm")
        async def confirm(token, raw, member):
            user = schemas.User(email=member, hashed_password="x")
            first = user.name.split(" ")
            settings_schema.check(raw)
            auth.login(identifier=member)
            return signer.loads(token), first
    """)
    assert found == set()


def test_a_value_class_of_a_validation_library_wrapping_a_token_is_no_client(tmp_path):
    # pydantic's SecretStr holds the token it is given: reading it back asks no server (held-out wave 37)
    found = flagged(tmp_path, """
        from pydantic import SecretStr

        async def handler(request):
            token = request.headers["authorization"]
            secret = SecretStr(token)
            return {"auth": secret.get_secret_value()}
    """)
    assert found == set()


def test_runnable_builders_and_webhook_events_are_local(tmp_path):
    found = flagged(tmp_path, """
        import os
        import paykit
        from chatvendor import ChatVendor, Field

        paykit.api_key = os.environ["PAY_KEY"]

        async def model(name):
            return ChatVendor(api_key=os.environ["VENDOR_KEY"]).configurable_fields(model=Field(id=name))

        async def webhook(body, signature):
            return paykit.Webhook.construct_event(body, signature, os.environ["PAY_SECRET"])
    """)
    assert found == set()

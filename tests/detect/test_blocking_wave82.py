"""check blocking: the kinds held-out wave 82 (issue 17; payments, e-mail and notification backends) left, fixed by kind.

M2+F1: Firestore's references are built locally (``collection``/``document``/``where``); the request is the terminal
       ``get``/``set``/``update``/``delete``/``stream``, found on the variable the reference was kept in.
M1: python-keycloak's sync ``KeycloakAdmin``/``KeycloakOpenID`` methods are requests; their ``a_`` twins are coroutines.
M5: pdfkit's conversions run wkhtmltopdf and wait for it; WeasyPrint's ``write_pdf`` lays out and draws in the thread.
M6: a ``limits`` strategy built on a server's storage (Redis...) makes a round trip per ``hit``; on memory it does not.
M8: a Dramatiq actor's ``send`` enqueues on the broker synchronously, like RQ's ``enqueue`` and Celery's ``delay``.
M3: a fetched page keeps its size across calls: parsed again by a function its caller hands the page to.
M7: building a pydantic model runs its validators (a password hashed in a ``model_validator``).
M4: a project subclass of a client inherits the methods the vocabulary lists by name (``httpx.Client.post``).
M9: RSA key generation (jwcrypto ``JWK.generate(kty="RSA")``, cryptography's ``rsa.generate_private_key``) is CPU.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- M2+F1: Firestore references and their requests ------------------------------------------------------------------

_FIRESTORE = """
    from fastapi import FastAPI
    from firebase_admin import firestore

    app = FastAPI()
    store = firestore.client()


    @app.post("/notes/{{owner}}")
    async def save_note(owner: str, body: dict):
        {code}
        return {{"ok": True}}
"""


def test_a_firestore_reference_kept_in_a_variable_is_written_at_its_set_line(tmp_path):
    code = 'ref = store.collection("notes").document(owner)\n        ref.set(body, merge=True)'
    found = flagged(tmp_path, _FIRESTORE.format(code=code))
    assert found == {("blocking_http", "ref.set(body, merge=True)")}


def test_a_firestore_query_built_in_steps_is_read_at_its_stream_line(tmp_path):
    code = ('q = store.collection("notes").where("owner", "==", owner).limit(5)\n'
            '        rows = [snap.to_dict() for snap in q.stream()]\n'
            '        first = rows[0].get("title") if rows else None')
    found = flagged(tmp_path, _FIRESTORE.format(code=code))
    assert found == {("blocking_http", 'rows = [snap.to_dict() for snap in q.stream()]')}


def test_a_firestore_chain_ending_in_get_is_one_request(tmp_path):
    code = 'snap = store.collection("notes").document(owner).get()\n        title = snap.get("title")'
    found = flagged(tmp_path, _FIRESTORE.format(code=code))
    assert found == {("blocking_http", 'snap = store.collection("notes").document(owner).get()')}


def test_building_a_firestore_reference_alone_sends_nothing(tmp_path):
    code = 'ref = store.collection("notes").document(owner)\n        path = ref.path'
    assert flagged(tmp_path, _FIRESTORE.format(code=code)) == set()


def test_the_async_firestore_client_awaited_stays_silent(tmp_path):
    source = """
        from fastapi import FastAPI
        from firebase_admin import firestore_async

        app = FastAPI()
        store = firestore_async.client()


        @app.post("/notes/{owner}")
        async def save_note(owner: str, body: dict):
            ref = store.collection("notes").document(owner)
            await ref.set(body, merge=True)
            return {"ok": True}
    """
    assert flagged(tmp_path, source) == set()


_GUESSED = """
    from fastapi import FastAPI
    from google.cloud import notekeeper

    app = FastAPI()
    keeper = notekeeper.Client()


    @app.get("/notes/{{owner}}")
    async def notes(owner: str):
        {code}
        return {{"ok": True}}
"""


def test_a_guessed_client_building_a_reference_sends_nothing(tmp_path):
    code = 'shelf = keeper.collection("notes")\n        drawer = keeper.bucket(owner)'
    assert flagged(tmp_path, _GUESSED.format(code=code)) == set()


def test_a_guessed_client_reference_kept_in_a_variable_is_requested_at_its_own_call(tmp_path):
    code = 'shelf = keeper.collection("notes").document(owner)\n        shelf.update({"seen": True})'
    found = flagged(tmp_path, _GUESSED.format(code=code))
    assert found == {("blocking_http", 'shelf.update({"seen": True})')}


def test_a_guessed_client_other_method_is_still_a_guessed_request(tmp_path):
    found = flagged(tmp_path, _GUESSED.format(code="rows = keeper.list_notes(owner)"))
    assert found == {("blocking_http", "rows = keeper.list_notes(owner)")}


# -- M1: python-keycloak's sync methods and their a_ twins -------------------------------------------------------------

_KEYCLOAK = {
    "idp.py": """
        from keycloak import KeycloakAdmin, KeycloakOpenID

        realm_admin = KeycloakAdmin(server_url="https://sso.example", realm_name="lab", client_secret_key="s")
        oidc = KeycloakOpenID(server_url="https://sso.example", realm_name="lab", client_id="api")
    """,
    "members.py": """
        from keycloak import KeycloakAdmin

        from svc.idp import realm_admin


        class Members:
            admin: KeycloakAdmin

            def __init__(self):
                self.admin = realm_admin

            def groups_of(self, person: str):
                return self.admin.get_user_groups(user_id=person)

            async def a_groups_of(self, person: str):
                return await self.admin.a_get_user_groups(user_id=person)
    """,
}


def test_a_sync_keycloak_admin_method_reached_from_a_route_is_a_request(tmp_path):
    route = """
        from fastapi import FastAPI

        from svc.members import Members

        app = FastAPI()


        @app.get("/people/{person}/groups")
        async def groups(person: str):
            return Members().groups_of(person)
    """
    found = flagged_package(tmp_path, {**_KEYCLOAK, "app.py": route})
    assert found == {("members.py", "blocking_http", "return self.admin.get_user_groups(user_id=person)")}


def test_the_a_prefixed_keycloak_twin_awaited_stays_silent(tmp_path):
    route = """
        import asyncio

        from fastapi import FastAPI

        from svc.idp import oidc
        from svc.members import Members

        app = FastAPI()


        @app.get("/people/{person}/groups")
        async def groups(person: str, token: str):
            info, mine = await asyncio.gather(oidc.a_userinfo(token), Members().a_groups_of(person))
            return mine
    """
    assert flagged_package(tmp_path, {**_KEYCLOAK, "app.py": route}) == set()


def test_keycloak_openid_userinfo_in_a_dependency_is_a_request_and_realm_switching_is_not(tmp_path):
    route = """
        from fastapi import Depends, FastAPI

        from svc.idp import oidc, realm_admin

        app = FastAPI()


        async def caller(token: str):
            realm_admin.change_current_realm("lab")
            return oidc.userinfo(token=token)


        @app.get("/me")
        async def me(who=Depends(caller)):
            return who
    """
    found = flagged_package(tmp_path, {**_KEYCLOAK, "app.py": route})
    assert found == {("app.py", "blocking_http", "return oidc.userinfo(token=token)")}


# -- M5: HTML to PDF --------------------------------------------------------------------------------------------------

_PDF = """
    import asyncio

    import pdfkit
    from fastapi import FastAPI
    from weasyprint import HTML

    app = FastAPI()
    wk = pdfkit.configuration(wkhtmltopdf="/usr/bin/wkhtmltopdf")


    @app.post("/receipt")
    async def receipt(markup: str):
        {code}
        return pdf
"""


def test_pdfkit_from_string_in_a_route_waits_for_wkhtmltopdf(tmp_path):
    found = flagged(tmp_path, _PDF.format(code="pdf = pdfkit.from_string(markup, False, configuration=wk)"))
    assert found == {("blocking_subprocess", "pdf = pdfkit.from_string(markup, False, configuration=wk)")}


def test_pdfkit_handed_to_a_thread_stays_silent(tmp_path):
    code = "pdf = await asyncio.to_thread(pdfkit.from_string, markup, False, configuration=wk)"
    assert flagged(tmp_path, _PDF.format(code=code)) == set()


def test_weasyprint_write_pdf_in_a_route_is_cpu_and_building_the_document_is_not(tmp_path):
    code = "page = HTML(string=markup)\n        pdf = page.write_pdf()"
    assert flagged(tmp_path, _PDF.format(code=code)) == {("blocking_cpu", "pdf = page.write_pdf()")}


# -- M6: a limits strategy over its storage ------------------------------------------------------------------------

_LIMITS = """
    from fastapi import FastAPI, Request
    from limits import parse
    from limits.storage import {storage_class}
    from limits.strategies import MovingWindowRateLimiter

    app = FastAPI()
    per_minute = parse("30/minute")
    counters = {storage}
    gate = MovingWindowRateLimiter(counters)


    @app.middleware("http")
    async def throttle(request: Request, call_next):
        if not gate.hit(per_minute, request.client.host):
            return None
        reset_at, left = gate.get_window_stats(per_minute, request.client.host)
        return await call_next(request)
"""


def test_a_limiter_on_a_redis_storage_makes_a_round_trip_per_hit(tmp_path):
    source = _LIMITS.format(storage_class="RedisStorage", storage='RedisStorage("redis://cache:6379/1")')
    assert flagged(tmp_path, source) == {
        ("blocking_db", "if not gate.hit(per_minute, request.client.host):"),
        ("blocking_db", "reset_at, left = gate.get_window_stats(per_minute, request.client.host)")}


def test_a_limiter_on_a_memory_storage_stays_silent(tmp_path):
    source = _LIMITS.format(storage_class="MemoryStorage", storage="MemoryStorage()")
    assert flagged(tmp_path, source) == set()


def test_a_limiter_on_a_storage_named_by_uri_follows_the_scheme(tmp_path):
    shared = dict(storage_class="storage_from_string")
    remote = flagged(tmp_path, _LIMITS.format(**shared, storage='storage_from_string("memcached://cache:11211")'))
    assert {kind for kind, _ in remote} == {"blocking_db"}
    local = flagged(tmp_path, _LIMITS.format(**shared, storage='storage_from_string("memory://")'))
    assert local == set()


def test_the_async_limits_twin_stays_silent(tmp_path):
    source = """
        from fastapi import FastAPI, Request
        from limits import parse
        from limits.aio.storage import RedisStorage
        from limits.aio.strategies import MovingWindowRateLimiter

        app = FastAPI()
        per_minute = parse("30/minute")
        gate = MovingWindowRateLimiter(RedisStorage("async+redis://cache:6379/1"))


        @app.middleware("http")
        async def throttle(request: Request, call_next):
            if not await gate.hit(per_minute, request.client.host):
                return None
            return await call_next(request)
    """
    assert flagged(tmp_path, source) == set()


# -- M8: Dramatiq actors --------------------------------------------------------------------------------------------

_DRAMATIQ = """
    import dramatiq
    from fastapi import FastAPI

    app = FastAPI()


    class Reminder:
        __name__ = "reminder"

        def __call__(self, person: str):
            print(person)


    remind = dramatiq.actor(Reminder())


    @dramatiq.actor(queue_name="mail")
    def welcome(person: str):
        print(person)


    def dispatch(job: dramatiq.Actor, *args):
        job.send(*args)


    @app.post("/people/{{person}}")
    async def join(person: str):
        {code}
        return {{"ok": True}}
"""


def test_a_dramatiq_actor_sent_through_a_helper_enqueues_synchronously(tmp_path):
    found = flagged(tmp_path, _DRAMATIQ.format(code="dispatch(remind, person)"))
    assert found == {("blocking_socket_io", "job.send(*args)")}


def test_a_decorated_dramatiq_actor_sent_from_a_route_enqueues_synchronously(tmp_path):
    found = flagged(tmp_path, _DRAMATIQ.format(code='welcome.send_with_options(args=(person,), delay=1000)'))
    assert found == {("blocking_socket_io", "welcome.send_with_options(args=(person,), delay=1000)")}


def test_a_dramatiq_actor_called_directly_runs_in_process_and_sends_nothing(tmp_path):
    assert flagged(tmp_path, _DRAMATIQ.format(code="welcome(person)")) == set()


# -- M3: a fetched page handed to another function ----------------------------------------------------------------

_PAGES = {
    "fetch.py": """
        import httpx
        from bs4 import BeautifulSoup


        async def download(url: str) -> str:
            async with httpx.AsyncClient() as client:
                reply = await client.get(url)
            tree = BeautifulSoup(reply.text, "html.parser")
            return str(tree)
    """,
    "audit.py": """
        from bs4 import BeautifulSoup


        async def headings(markup: str) -> list:
            tree = BeautifulSoup(markup, "html.parser")
            return [h.get_text() for h in tree.find_all("h2")]


        async def review(url: str, markup: str) -> dict:
            tree = BeautifulSoup(markup, "html.parser")
            return {"title": tree.title, "headings": await headings(markup)}
    """,
}


def test_a_fetched_page_handed_on_is_parsed_at_every_parse(tmp_path):
    route = """
        from fastapi import FastAPI

        from svc.audit import review
        from svc.fetch import download

        app = FastAPI()


        @app.post("/audit")
        async def audit(url: str):
            page = await download(url)
            return await review(url, page)
    """
    found = flagged_package(tmp_path, {**_PAGES, "app.py": route})
    assert found == {("fetch.py", "blocking_cpu", 'tree = BeautifulSoup(reply.text, "html.parser")'),
                     ("audit.py", "blocking_cpu", 'tree = BeautifulSoup(markup, "html.parser")')}


def test_held_markup_handed_to_the_same_parser_stays_silent(tmp_path):
    route = """
        from fastapi import FastAPI

        from svc.audit import review

        app = FastAPI()
        CARD = "<html><title>card</title><h2>one</h2></html>"


        @app.post("/audit")
        async def audit(url: str, snippet: str):
            first = await review(url, CARD)
            return await review(url, snippet)
    """
    found = flagged_package(tmp_path, {**_PAGES, "app.py": route})
    assert found == {("fetch.py", "blocking_cpu", 'tree = BeautifulSoup(reply.text, "html.parser")')}


# -- M7: a pydantic model's validators run in its constructor ------------------------------------------------------

_SIGNUP = """
    import bcrypt
    from fastapi import FastAPI
    from pydantic import BaseModel, model_validator

    app = FastAPI()


    def scramble(secret: str) -> bytes:
        return bcrypt.hashpw(secret.encode(), bcrypt.gensalt())


    class {base}:
        secret: str


    class Signup(Account):
        handle: str

        @model_validator(mode="after")
        def scramble_secret(self):
            self.secret = scramble(self.secret)
            return self


    @app.post("/signup")
    async def signup(body: dict):
        account = Signup(**body)
        return {{"handle": account.handle}}
"""


def test_a_pydantic_model_built_in_a_route_runs_its_hashing_validator(tmp_path):
    found = flagged(tmp_path, _SIGNUP.format(base="Account(BaseModel)"))
    assert found == {("blocking_cpu", "return bcrypt.hashpw(secret.encode(), bcrypt.gensalt())")}


def test_a_plain_class_with_a_method_of_the_same_decorator_name_runs_nothing(tmp_path):
    source = _SIGNUP.format(base="Account").replace(
        "from pydantic import BaseModel, model_validator",
        "from pydantic import BaseModel\n    from checks import model_validator")
    assert flagged(tmp_path, source) == set()


_PROFILE = """
    import bcrypt
    from fastapi import FastAPI
    from pydantic import BaseModel, field_validator

    app = FastAPI()


    class Profile(BaseModel):
        handle: str
        secret: str = ""

        @field_validator("secret")
        @classmethod
        def scramble_secret(cls, value: str) -> str:
            return bcrypt.hashpw(value.encode(), bcrypt.gensalt()).decode()


    @app.post("/profile")
    async def profile(handle: str, secret: str):
        {code}
        return {{"ok": True}}
"""


def test_a_field_validator_runs_when_its_field_is_passed(tmp_path):
    found = flagged(tmp_path, _PROFILE.format(code="made = Profile(handle=handle, secret=secret)"))
    assert found == {("blocking_cpu", "return bcrypt.hashpw(value.encode(), bcrypt.gensalt()).decode()")}


def test_a_field_validator_does_not_run_on_the_default(tmp_path):
    assert flagged(tmp_path, _PROFILE.format(code="made = Profile(handle=handle)")) == set()


# -- M9: RSA key generation ---------------------------------------------------------------------------------------

_KEYS = """
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from fastapi import FastAPI
    from jwcrypto import jwk

    app = FastAPI()


    @app.post("/keys")
    async def new_key(bits: int):
        {code}
        return {{"ok": True}}
"""


def test_an_rsa_jwk_generated_in_a_route_is_cpu(tmp_path):
    found = flagged(tmp_path, _KEYS.format(code='key = jwk.JWK.generate(kty="RSA", size=bits)'))
    assert found == {("blocking_cpu", 'key = jwk.JWK.generate(kty="RSA", size=bits)')}


def test_an_rsa_private_key_generated_in_a_route_is_cpu(tmp_path):
    code = "key = rsa.generate_private_key(public_exponent=65537, key_size=bits)"
    assert flagged(tmp_path, _KEYS.format(code=code)) == {("blocking_cpu", code)}


def test_elliptic_curve_keys_are_quick_and_stay_silent(tmp_path):
    code = 'key = jwk.JWK.generate(kty="EC", crv="P-256")\n        other = ec.generate_private_key(ec.SECP256R1())'
    assert flagged(tmp_path, _KEYS.format(code=code)) == set()


# -- M4: a project subclass of a listed client, handed out by a context manager ----------------------------------

_PORTAL = {
    "net.py": """
        from collections.abc import Generator
        from contextlib import contextmanager

        import httpx


        class PortalClient(httpx.Client):
            def request(self, method: str, url: str, **kwargs) -> httpx.Response:
                kwargs.pop("auth", None)
                return super().request(method, url, **kwargs)

            def describe(self) -> str:
                return f"portal {self.base_url}"


        @contextmanager
        def portal() -> Generator[PortalClient]:
            with PortalClient(timeout=30) as client:
                yield client
    """,
}


def test_an_inherited_method_of_a_listed_client_subclass_is_a_request(tmp_path):
    route = """
        from fastapi import FastAPI

        from svc.net import portal

        app = FastAPI()


        @app.post("/relay")
        async def relay(url: str, body: bytes):
            with portal() as client:
                reply = client.post(url, content=body)
            return reply.status_code
    """
    found = flagged_package(tmp_path, {**_PORTAL, "app.py": route})
    assert ("app.py", "blocking_http", "reply = client.post(url, content=body)") in found


def test_an_own_method_of_a_listed_client_subclass_is_read_not_guessed(tmp_path):
    route = """
        from fastapi import FastAPI

        from svc.net import portal

        app = FastAPI()


        @app.get("/about")
        async def about():
            with portal() as client:
                return client.describe()
    """
    assert flagged_package(tmp_path, {**_PORTAL, "app.py": route}) == set()

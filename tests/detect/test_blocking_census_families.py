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

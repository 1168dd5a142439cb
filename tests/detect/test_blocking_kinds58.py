"""check blocking: the known kinds stop 57 left (issue 17, stop 58). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- an awaited method of a synchronous client kept as a class attribute of a project class -----------------------

_VAULT = """
    import asyncio

    from passlib.context import CryptContext


    class Vault:
        hasher = CryptContext(schemes=["bcrypt"], deprecated="auto")
        {extra}


    vault = Vault()


    async def log_in(form):
        {call}
        return ok
"""


def _vault(call: str, extra: str = "pass") -> str:
    return _VAULT.replace("{call}", call).replace("{extra}", extra)


def test_awaiting_a_sync_hash_kept_on_a_project_class_still_blocks(tmp_path):
    line = 'ok = await vault.hasher.verify(form["password"], form["digest"])'
    assert flagged(tmp_path, _vault(line)) == {("blocking_cpu", line)}


def test_the_same_hash_offloaded_or_an_attribute_rebound_to_another_object_is_silent(tmp_path):
    offloaded = 'ok = await asyncio.to_thread(vault.hasher.verify, form["password"], form["digest"])'
    assert not flagged(tmp_path, _vault(offloaded))
    rebound = "def use(self, other):\n            self.hasher = other"
    assert not flagged(tmp_path, _vault('ok = await vault.hasher.verify(form["password"], form["digest"])', rebound))

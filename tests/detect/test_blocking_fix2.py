"""check blocking: wave 29's remaining kinds (issue 17). Each blocker is found at its line; each healthy look-alike
stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_path_from_a_directory_listing_is_read_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import json
        from pathlib import Path

        INBOX = Path("/srv/inbox")

        def pending():
            out = []
            for item in sorted(INBOX.glob("*.json")):
                with item.open() as handle:
                    out.append(json.load(handle))
            return out

        async def drain(folder: Path):
            sizes = [entry.open("rb").read() for entry in folder.iterdir()]
            for nested in folder.rglob("*.txt"):
                nested.unlink()
            return sizes, pending()
    """)
    assert ("blocking_file_io", "with item.open() as handle:") in found
    assert ("blocking_file_io", 'sizes = [entry.open("rb").read() for entry in folder.iterdir()]') in found
    assert not any("unlink" in line or "glob" in line and "open" not in line for _, line in found)


def test_a_listing_walked_off_the_loop_or_only_named_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from pathlib import Path

        def load_all(folder: Path):
            return [entry.open().read() for entry in folder.glob("*.md")]

        async def names(folder: Path):
            texts = await asyncio.to_thread(load_all, folder)
            return texts, [entry.name for entry in folder.iterdir()]
    """)
    assert found == set()


"""check blocking: one directory's listing counts as ``blocking_file_io`` where the loop runs it (stop 46; the source,
Home Assistant's run-time loop detector, is cited in ``libraries/fileformats.py``). Each listing on the loop is found at
its line; the same listing in a worker thread or a plain-def endpoint, and a single stat, stay silent. Every example
is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_each_one_directory_listing_in_a_coroutine_is_found_at_its_line(tmp_path):
    found = flagged(tmp_path, """
        import glob
        import os
        from pathlib import Path

        async def themes(root: str):
            names = os.listdir(root)
            with os.scandir(root) as entries:
                folders = [entry.name for entry in entries if entry.is_dir()]
            pictures = glob.glob(os.path.join(root, "*.png"))
            sounds = list(glob.iglob(root + "/*.wav"))
            return names, folders, pictures, sounds

        async def plugins(base: Path):
            modules = [child.stem for child in base.iterdir()]
            configs = sorted(base.glob("*.toml"))
            return modules, configs
    """)
    assert found == {
        ("blocking_file_io", "names = os.listdir(root)"),
        ("blocking_file_io", "with os.scandir(root) as entries:"),
        ("blocking_file_io", 'pictures = glob.glob(os.path.join(root, "*.png"))'),
        ("blocking_file_io", 'sounds = list(glob.iglob(root + "/*.wav"))'),
        ("blocking_file_io", "modules = [child.stem for child in base.iterdir()]"),
        ("blocking_file_io", 'configs = sorted(base.glob("*.toml"))'),
    }


def test_a_listing_in_a_sync_helper_the_coroutine_calls_is_found_in_the_helper(tmp_path):
    found = flagged(tmp_path, """
        from os import listdir

        def backups(folder):
            return [name for name in listdir(folder) if name.endswith(".bak")]

        async def newest(folder):
            return max(backups(folder), default=None)
    """)
    assert found == {("blocking_file_io", 'return [name for name in listdir(folder) if name.endswith(".bak")]')}


def test_the_same_listings_in_a_worker_thread_or_a_plain_def_endpoint_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import glob
        import os
        from pathlib import Path

        from fastapi import FastAPI

        app = FastAPI()

        def inventory(root):
            return os.listdir(root), list(os.scandir(root)), glob.glob(root + "/*.csv"), list(Path(root).iterdir())

        async def refresh(root):
            listed = await asyncio.to_thread(inventory, root)
            loop = asyncio.get_running_loop()
            again = await loop.run_in_executor(None, os.listdir, root)
            return listed, again

        @app.get("/files")
        def files(root: str):
            return sorted(os.listdir(root)) + [p.name for p in Path(root).glob("*.txt")]
    """)
    assert found == set()


def test_a_single_stat_of_a_path_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        from pathlib import Path

        async def ready(root: str):
            marker = Path(root) / "READY"
            return os.path.exists(root), os.path.isdir(root), os.stat(root).st_size, marker.exists(), marker.is_file()
    """)
    assert found == set()

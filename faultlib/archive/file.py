"""``file://DIR`` archive: evidence written in place under a local directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from faultlib.archive.base import Archive, StoredRun
from faultlib.archive.manifest import verify
from faultlib.errors import ArchiveError
from faultlib.evidence import layout


class FileArchive(Archive):
    """Local directory archive; the default is ``file://.faultlib/runs``.

    Runs are written directly in their final place, so a killed run leaves its partial
    evidence there (without a manifest, listed as incomplete).
    """

    def __init__(self, root: Path):
        self.root = Path(root).expanduser().resolve()
        self.uri = f"file://{self.root}"

    def staging_dir(self, case_id: str, run_id: str) -> Path:
        path = self.root / case_id / run_id
        path.mkdir(parents=True, exist_ok=False)
        return path

    def run_uri(self, case_id: str, run_id: str) -> str:
        return f"file://{self.root / case_id / run_id}"

    def publish(self, run_dir: Path, case_id: str, run_id: str) -> None:
        """Nothing to do: the run was written in place."""

    def get(self, case_id: str, run_id: str, dest_dir: Path) -> Path:
        """Copy a complete run into ``dest_dir/<case_id>/<run_id>/`` after verifying it against its
        manifest (size and sha256 of every file).

        Raises:
            ArchiveError: the run is unknown or incomplete, a file differs from the manifest (the
                message names it), or the destination exists.
        """
        source = self.root / case_id / run_id
        if not source.is_dir():
            raise ArchiveError(f"no run {case_id}/{run_id} in {self.uri}: see `faultlib archive ls {self.uri}`")
        problems = verify(source)
        if problems:
            raise ArchiveError(f"run {case_id}/{run_id} does not match its manifest: {problems[0]}")
        dest = Path(dest_dir) / case_id / run_id
        if dest.exists():
            raise ArchiveError(f"{dest} already exists: choose another --out")
        shutil.copytree(source, dest)
        return dest

    def list_runs(self) -> list[StoredRun]:
        runs = []
        if not self.root.is_dir():
            return runs
        for run_dir in sorted(p for p in self.root.glob("*/*") if p.is_dir()):
            record = {}
            run_json = run_dir / layout.RUN
            if run_json.is_file():
                try:
                    record = json.loads(run_json.read_text())
                except json.JSONDecodeError:
                    record = {}
            runs.append(StoredRun(run_dir.parent.name, run_dir.name, (run_dir / layout.MANIFEST).is_file(),
                                  record.get("started_at"), record.get("verdict")))
        return runs

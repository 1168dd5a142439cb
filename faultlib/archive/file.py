"""``file://DIR`` archive: evidence written in place under a local directory."""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.archive.base import Archive, StoredRun
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

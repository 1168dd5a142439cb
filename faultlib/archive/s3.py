"""``s3://BUCKET/PREFIX`` archive: evidence in an S3 store (MinIO, SeaweedFS, AWS S3).

A run is written into the local spool (:mod:`faultlib.archive.spool`), then :meth:`S3Archive.publish`
uploads every file to ``<prefix>/<case_id>/<run_id>/<name>``, each verified (size, sha256 metadata,
and the ETag against the md5 where the ETag is one), ``manifest.json`` last so that a half-uploaded
run never looks complete. Once the store holds the whole run it leaves the spool. When the store is
unreachable the run stays in the spool, intact, and ``faultlib archive flush s3://BUCKET/PREFIX``
sends it later; files already stored with the same size and sha256 are not sent again.

Endpoint and keys come only from the environment (see :mod:`faultlib.archive.s3client`) and are
never written into evidence, logs, run records or messages.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from faultlib.archive.base import Archive, FlushedRun, FlushReport, StoredRun
from faultlib.archive.manifest import CHUNK
from faultlib.archive.s3client import RETRY_DELAYS_S, S3Client, mismatch
from faultlib.archive.spool import Spool
from faultlib.errors import ArchiveError
from faultlib.evidence import layout

_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_IPV4 = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
BUCKET_RULES = ("3-63 characters: lowercase letters, digits, '.' and '-', starting and ending with a letter "
                "or digit, no '..', '.-' or '-.', not an IP address")


def parse_uri(uri: str) -> tuple[str, str]:
    """``(bucket, prefix)`` of ``s3://BUCKET[/PREFIX]``; the prefix loses leading and trailing ``/``.

    Raises:
        ArchiveError: not an s3:// URI, no bucket, a bucket name S3 rejects, or ``.``/``..`` in the prefix.
    """
    if not uri.startswith("s3://"):
        raise ArchiveError(f"archive URI {uri!r} is not s3://BUCKET/PREFIX")
    bucket, _, prefix = uri[len("s3://"):].partition("/")
    if not bucket:
        raise ArchiveError(f"archive URI {uri!r} has no bucket: use s3://BUCKET/PREFIX")
    if (not _BUCKET.fullmatch(bucket) or _IPV4.fullmatch(bucket)
            or any(pair in bucket for pair in ("..", ".-", "-."))):
        raise ArchiveError(f"invalid bucket name {bucket!r} in {uri!r}: {BUCKET_RULES}")
    segments = [s for s in prefix.split("/") if s]
    if any(s in (".", "..") for s in segments):
        raise ArchiveError(f"archive URI {uri!r}: the prefix may not contain '.' or '..' segments")
    return bucket, "/".join(segments)


@dataclass(frozen=True)
class LocalFile:
    """One file of a spooled run: ``name`` relative to the run (``/``-separated), ``size`` in bytes."""

    name: str
    path: Path
    size: int
    sha256: str
    md5: str


def _hash(path: Path) -> tuple[str, str]:
    """(sha256, md5) hex digests of a file, in one pass."""
    sha256, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            sha256.update(block)
            md5.update(block)
    return sha256.hexdigest(), md5.hexdigest()


def local_files(run_dir: Path) -> tuple[list[LocalFile], str | None]:
    """The files to upload (manifest last), or the first problem that makes the run unfit to upload.

    Returns:
        ``(files, None)`` when every file listed in ``manifest.json`` exists with its size and
        sha256; ``([], problem)`` otherwise (no manifest, a missing file, a changed file).
    """
    manifest = run_dir / layout.MANIFEST
    if not manifest.is_file():
        return [], f"{run_dir} has no manifest.json: the run is incomplete"
    files = []
    for entry in json.loads(manifest.read_text())["files"]:
        path = run_dir / entry["name"]
        if not path.is_file():
            return [], f"{path}: listed in the manifest but missing"
        sha256, md5 = _hash(path)
        if path.stat().st_size != entry["bytes"] or sha256 != entry["sha256"]:
            return [], f"{path}: differs from the manifest (size or sha256)"
        files.append(LocalFile(entry["name"], path, entry["bytes"], sha256, md5))
    sha256, md5 = _hash(manifest)
    files.append(LocalFile(layout.MANIFEST, manifest, manifest.stat().st_size, sha256, md5))
    return files, None


class S3Archive(Archive):
    """``s3://BUCKET/PREFIX`` archive with a local spool.

    Args:
        uri: ``s3://BUCKET[/PREFIX]``.
        spool_root: default ``$FAULTLIB_SPOOL`` or ``.faultlib/spool``.
        retry_delays_s: seconds slept before each retry of a failing store call (default
            ``(0.2, 0.4, 0.8, 1.6)``: 5 attempts, 3 s of waiting at most per call).
        sleep: how to wait between retries (tests pass a no-op).
        on_uploaded: called with each file name (``traces.jsonl``, ..., ``manifest.json``) right
            after that file was uploaded and verified; files already stored are not reported.

    Raises:
        ArchiveError: malformed URI, or endpoint or keys missing from the environment.
        MissingDependency: ``minio`` is not installed.
    """

    def __init__(self, uri: str, *, spool_root: Path | str | None = None,
                 retry_delays_s: Sequence[float] = RETRY_DELAYS_S, sleep: Callable[[float], None] = time.sleep,
                 on_uploaded: Callable[[str], None] | None = None):
        self.bucket, self.prefix = parse_uri(uri)
        self.uri = f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"
        self.spool = Spool(self.bucket, self.prefix, spool_root)
        self.client = S3Client(self.bucket, retry_delays_s=retry_delays_s, sleep=sleep)
        self.on_uploaded = on_uploaded

    def _key(self, case_id: str, run_id: str, name: str = "") -> str:
        return f"{self.prefix}/{case_id}/{run_id}/{name}" if self.prefix else f"{case_id}/{run_id}/{name}"

    def staging_dir(self, case_id: str, run_id: str) -> Path:
        """The run's spool directory (created): ``<spool>/<bucket>/<prefix>/<case_id>/<run_id>/``."""
        return self.spool.run_dir(case_id, run_id)

    def run_uri(self, case_id: str, run_id: str) -> str:
        return f"{self.uri}/{case_id}/{run_id}"

    def publish(self, run_dir: Path, case_id: str, run_id: str) -> None:
        """Upload the finished run, manifest last, and remove it from the spool.

        Raises:
            ArchiveUnavailable: the store could not be reached or kept failing (exit 3).
            ArchiveError: access denied, or the run's files differ from its manifest.
            In both cases the run stays in the spool, intact, and the message says how to flush it.
        """
        files, problem = local_files(Path(run_dir))
        try:
            if problem:
                raise ArchiveError(f"{problem}; it was not uploaded")
            self._upload(files, case_id, run_id)
        except ArchiveError as exc:
            raise type(exc)(f"{exc}\nThe evidence waits in {run_dir}: send it with "
                            f"`faultlib archive flush {self.uri}`") from exc
        if self.spool.holds(run_dir):
            self.spool.remove(run_dir)

    def flush(self) -> FlushReport:
        """Upload every complete spooled run of this archive; re-running it uploads nothing new.

        Raises:
            ArchiveUnavailable: the store could not be reached; runs not yet sent stay spooled.
            ArchiveError: access denied.
        """
        report = FlushReport()
        for spooled in self.spool.runs():
            if not spooled.complete:
                report.incomplete.append(str(spooled.path))
                continue
            files, problem = local_files(spooled.path)
            if problem:
                report.damaged.append((str(spooled.path), problem))
                continue
            try:
                report.flushed.append(self._upload(files, spooled.case, spooled.run_id))
            except ArchiveError as exc:
                raise type(exc)(f"{exc}\n{len(report.flushed)} run(s) were flushed; the rest wait in "
                                f"{self.spool.dir}: run `faultlib archive flush {self.uri}` again") from exc
            self.spool.remove(spooled.path)
        return report

    def _upload(self, files: list[LocalFile], case_id: str, run_id: str) -> FlushedRun:
        """Send ``files`` in order (manifest last), skipping those the store already holds unchanged."""
        self.client.ensure_bucket()
        uploaded = already = 0
        for file in files:
            key = self._key(case_id, run_id, file.name)
            if mismatch(self.client.stat(key), size=file.size, sha256=file.sha256, md5=file.md5) is None:
                already += 1
                continue
            self.client.put_file(key, file.path, size=file.size, sha256=file.sha256, md5=file.md5)
            uploaded += 1
            if self.on_uploaded:
                self.on_uploaded(file.name)
        return FlushedRun(case_id, run_id, uploaded, already)

    def list_runs(self) -> list[StoredRun]:
        """Every run under the prefix; complete when its ``manifest.json`` object exists.

        ``started_at`` and ``verdict`` come from the run's ``run.json`` object when it has one.
        """
        root = f"{self.prefix}/" if self.prefix else ""
        names: dict[tuple[str, str], set[str]] = {}
        for key in self.client.keys(root):
            parts = key[len(root):].split("/", 2)
            if len(parts) == 3 and all(parts):
                names.setdefault((parts[0], parts[1]), set()).add(parts[2])
        runs = []
        for (case, run_id), files in sorted(names.items()):
            if all("/" in name for name in files):  # only sub-directories: a longer prefix, not a run
                continue
            record = {}
            if layout.RUN in files:
                try:
                    record = json.loads(self.client.read(self._key(case, run_id, layout.RUN)) or b"{}")
                except json.JSONDecodeError:
                    record = {}
            runs.append(StoredRun(case, run_id, layout.MANIFEST in files, record.get("started_at"),
                                  record.get("verdict")))
        return runs

    def get(self, case_id: str, run_id: str, dest_dir: Path) -> Path:
        """Download a complete run into ``dest_dir/<case_id>/<run_id>/`` and verify every file.

        Files arrive in ``<run_id>.partial`` first and are moved into place only when every one
        matches the manifest (size and sha256); on any failure the partial download is removed.

        Returns:
            The run directory written.

        Raises:
            ArchiveError: the run has no manifest in the store (incomplete or unknown), the
                destination exists, or a file differs from the manifest (the message names the first).
            ArchiveUnavailable: the store could not be reached.
        """
        final = Path(dest_dir) / case_id / run_id
        if final.exists():
            raise ArchiveError(f"{final} already exists: choose another --out directory")
        where = self.run_uri(case_id, run_id)
        manifest_key = self._key(case_id, run_id, layout.MANIFEST)
        raw = self.client.read(manifest_key)
        if raw is None:
            raise ArchiveError(f"{where} has no manifest.json: the run is incomplete or does not exist "
                               f"(see `faultlib archive ls {self.uri}`)")
        stored = self.client.stat(manifest_key)
        if stored is not None and stored.sha256 and stored.sha256 != hashlib.sha256(raw).hexdigest():
            raise ArchiveError(f"{where}/{layout.MANIFEST}: sha256 differs from the one recorded at upload")
        try:
            entries = json.loads(raw)["files"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ArchiveError(f"{where}/{layout.MANIFEST} is not a faultlib manifest") from exc
        partial = final.with_name(f"{run_id}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        try:
            (partial / layout.MANIFEST).write_bytes(raw)
            for entry in entries:
                name = _safe_name(entry["name"], where)
                path = partial / name
                path.parent.mkdir(parents=True, exist_ok=True)
                self.client.download(self._key(case_id, run_id, name), path)
                size = path.stat().st_size
                if size != entry["bytes"]:
                    raise ArchiveError(f"{where}/{name}: {size} bytes in the store, the manifest says "
                                       f"{entry['bytes']}")
                if _hash(path)[0] != entry["sha256"]:
                    raise ArchiveError(f"{where}/{name}: sha256 differs from the manifest: the stored copy is "
                                       "damaged or was replaced")
            partial.rename(final)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        return final


def _safe_name(name: str, where: str) -> str:
    """A manifest file name that stays inside the run directory."""
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or any(p in ("", ".", "..") for p in path.parts):
        raise ArchiveError(f"{where}/{layout.MANIFEST} lists an unsafe file name {name!r}")
    return path.as_posix()

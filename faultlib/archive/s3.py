"""``s3://BUCKET/PREFIX`` archive: evidence in an S3 store (MinIO, SeaweedFS, AWS S3).

A run is written into the local spool (:mod:`faultlib.archive.spool`), then :meth:`S3Archive.publish`
uploads every file to ``<prefix>/<case_id>/<run_id>/<name>``, each verified (size, sha256 metadata,
and the ETag against the md5 where the ETag is one), ``manifest.json`` last so that a half-uploaded
run never looks complete. Once the store holds the whole run it leaves the spool. When the store is
unreachable the run stays in the spool, intact, and ``faultlib archive flush s3://BUCKET/PREFIX``
sends it later; files already stored with the same size and sha256 are not sent again.

One spooled run that fails (damaged, malformed, refused) never stops ``flush`` from sending the
others; each is reported with its reason. Two flushes at once do not collide: each run directory is
locked while it is flushed (:mod:`faultlib.archive.lock`), and a run another process holds is
skipped. A spooled run whose runner was killed is finished first (:mod:`faultlib.archive.repair`).

Endpoint and keys come only from the environment (see :mod:`faultlib.archive.s3client`) and are
never written into evidence, logs, run records or messages.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from faultlib.archive.base import (Archive, FlushedRun, FlushReport, RepairedRun, RepairReport, RunOutcome,
                                   StoredRun)
from faultlib.archive.listing import stored_run
from faultlib.archive.lock import BUSY_REASON, Lock, run_lock
from faultlib.archive.manifest import MANIFEST_LIMITS, parse_manifest, read_manifest, safe_id
from faultlib.archive.members import closing
from faultlib.archive.repair import State, repair_all, repair_run
from faultlib.archive.s3client import RETRY_DELAYS_S, S3Client, mismatch
from faultlib.archive.spool import Spool, SpooledRun
from faultlib.archive.transfer import Download, LocalFile, local_files
from faultlib.errors import ArchiveError, ArchiveUnavailable, FaultlibError, InputError
from faultlib.evidence import layout

_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_IPV4 = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
BUCKET_RULES = ("3-63 characters: lowercase letters, digits, '.' and '-', starting and ending with a letter "
                "or digit, no '..', '.-' or '-.', not an IP address")


def parse_uri(uri: str) -> tuple[str, str]:
    """``(bucket, prefix)`` of ``s3://BUCKET[/PREFIX]``; the prefix loses leading and trailing ``/``.

    Raises:
        ArchiveError: not an s3:// URI, no bucket, a bucket name S3 rejects, or ``.``/``..``, a backslash
            or a control character in the prefix.
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
    if any(c == "\\" or not c.isprintable() for c in prefix):
        raise ArchiveError(f"archive URI {uri!r}: the prefix may not contain a backslash or a control character")
    return bucket, "/".join(segments)




PREFLIGHT = {"retry_delays_s": (0.25, 0.5), "connect_timeout_s": 1.5, "read_timeout_s": 2.5, "deadline_s": 4.0}


def _failure(exc: BaseException) -> tuple[str, int]:
    """``(reason, exit code)`` for an error that stopped one run's upload."""
    if isinstance(exc, FaultlibError):
        return str(exc), exc.exit_code
    return f"unexpected {type(exc).__name__} while uploading: {exc}", 2


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
        ArchiveError: malformed URI, a spool root that is not a path, or endpoint or keys missing
            or malformed in the environment.
        MissingDependency: ``minio`` is not installed.
    """

    def __init__(self, uri: str, *, spool_root: Path | str | None = None,
                 retry_delays_s: Sequence[float] = RETRY_DELAYS_S, sleep: Callable[[float], None] = time.sleep,
                 on_uploaded: Callable[[str], None] | None = None):
        self.bucket, self.prefix = parse_uri(uri)
        self.uri = f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"
        self.spool = Spool(self.bucket, self.prefix, spool_root)
        self.client = S3Client(self.bucket, retry_delays_s=retry_delays_s, sleep=sleep)
        self._sleep = sleep
        self.on_uploaded = on_uploaded

    def _key(self, case_id: str, run_id: str, name: str = "") -> str:
        return f"{self.prefix}/{case_id}/{run_id}/{name}" if self.prefix else f"{case_id}/{run_id}/{name}"

    def preflight(self) -> None:
        """Before a run: the spool can take it, and the store answers and has (or can create) the
        bucket. Fails within about 5 s (short timeouts, two retries).

        Raises:
            ArchiveError: the spool is unusable (a file, not writable, under /proc), access denied,
                or the bucket cannot be created (exit 2).
            ArchiveUnavailable: the store cannot be reached (exit 3).
        """
        self.spool.check()
        S3Client(self.bucket, sleep=self._sleep, **PREFLIGHT).ensure_bucket()

    def staging_dir(self, case_id: str, run_id: str) -> Path:
        """The run's spool directory (created): ``<spool>/<bucket>/<prefix>/<case_id>/<run_id>/``."""
        return self.spool.run_dir(case_id, run_id)

    def run_uri(self, case_id: str, run_id: str) -> str:
        return f"{self.uri}/{case_id}/{run_id}"

    def publish(self, run_dir: Path, case_id: str, run_id: str) -> None:
        """Upload the finished run, manifest last, and remove it from the spool.

        Waits while another process flushes the same run; when that one has sent it, there is
        nothing left to do.

        Raises:
            ArchiveUnavailable: the store could not be reached or kept failing (exit 3).
            ArchiveError: access denied, or the run's files differ from its manifest.
            In both cases the run stays in the spool, intact, and the message says how to flush it.
        """
        run_dir = Path(run_dir)
        run = f"{case_id}/{run_id}"
        try:
            with run_lock(run_dir, wait=True) as (state, run_fd):
                if state is not Lock.HELD:
                    return  # another flush sent it and removed it from the spool
                manifest = read_manifest(run_fd, run=run, path=str(run_dir / layout.MANIFEST),
                                         expect=(case_id, run_id))
                if manifest is None:
                    raise ArchiveError(f"{run_dir} has no manifest.json: the run is incomplete")
                self._upload(local_files(run_fd, manifest, run=run), case_id, run_id)
                if self.spool.holds(run_dir):
                    self.spool.remove(run_dir)
        except ArchiveError as exc:
            cls = ArchiveUnavailable if isinstance(exc, ArchiveUnavailable) else ArchiveError
            raise cls(f"{exc}; it was not uploaded\nThe evidence waits in {run_dir}: send it with "
                      f"`faultlib archive flush {self.uri}`") from exc

    def flush(self) -> FlushReport:
        """Upload every complete spooled run of this archive, run by run; re-running it uploads nothing new.

        Each run is locked while it is handled; a run another process holds is skipped. A run
        without manifest whose runner is gone is finished first (verdict ``interrupted``). A run
        that is damaged or that the store refuses is reported and the next one is tried. Once the
        store has proved unreachable, each later run costs one quick probe, not a full retry cycle.

        Returns:
            What happened to each run; :attr:`FlushReport.exit_code` is the command's exit code.

        Raises:
            ArchiveError: the spool itself is unusable (a file, not a directory).
        """
        self.spool.check()
        report = FlushReport()
        down = False
        for spooled in self.spool.runs():
            try:
                down = self._flush_one(spooled, report, store_down=down)
            except ArchiveError as exc:  # the run directory itself is a link or not a directory
                report.damaged.append(RunOutcome(spooled.case, spooled.run_id, str(spooled.path), str(exc), 2))
            except Exception as exc:  # noqa: BLE001 - one run's failure never stops the others
                reason, code = _failure(exc)
                report.failed.append(RunOutcome(spooled.case, spooled.run_id, str(spooled.path), reason, code))
        return report

    def _flush_one(self, spooled: SpooledRun, report: FlushReport, *, store_down: bool) -> bool:
        """Flush one spooled run into ``report``; returns whether the store is (still) unreachable."""
        case, run_id, path = spooled.case, spooled.run_id, spooled.path
        run = f"{case}/{run_id}"

        def outcome(reason: str, code: int = 0) -> RunOutcome:
            return RunOutcome(case, run_id, str(path), reason, code)

        with run_lock(path) as (state, run_fd):
            if state is Lock.BUSY:
                report.skipped.append(outcome(BUSY_REASON))
                return store_down
            if state is Lock.GONE:
                return store_down
            if not spooled.complete:
                try:
                    found, detail = repair_run(path)
                except Exception as exc:  # noqa: BLE001 - this run could not be finished; the others go on
                    report.failed.append(outcome(f"could not be repaired: {_failure(exc)[0]}", 2))
                    return store_down
                if found is not State.REPAIRED:
                    report.incomplete.append(outcome(detail))
                    return store_down
                if detail != "complete":
                    report.repaired.append(RepairedRun(case, run_id, str(path), detail))
            try:
                safe_id(case, what="case id")
                safe_id(run_id, what="run id")
                manifest = read_manifest(run_fd, run=run, path=str(path / layout.MANIFEST), expect=(case, run_id))
                if manifest is None:
                    report.incomplete.append(outcome("no manifest.json"))
                    return store_down
                files = local_files(run_fd, manifest, run=run)
            except (ArchiveError, InputError) as exc:
                report.damaged.append(outcome(str(exc), 2))
                return store_down
            if store_down:
                try:
                    self.client.probe()
                except ArchiveUnavailable:
                    report.failed.append(outcome("not sent: the store is still unreachable", 3))
                    return True
                except FaultlibError as exc:
                    report.failed.append(outcome(str(exc), exc.exit_code))
                    return False
            try:
                report.flushed.append(self._upload(files, case, run_id))
            except Exception as exc:  # noqa: BLE001 - reported for this run; the next one is tried
                reason, code = _failure(exc)
                report.failed.append(outcome(reason, code))
                return isinstance(exc, ArchiveUnavailable)
            self.spool.remove(path)
        return False

    def repair(self) -> RepairReport:
        """Finish every spooled run whose runner was killed (they are uploaded by the next ``flush``).

        Raises:
            ArchiveError: the spool itself is unusable.
        """
        self.spool.check()
        return repair_all([(r.case, r.run_id, r.path) for r in self.spool.runs()])

    def _upload(self, files: list[LocalFile], case_id: str, run_id: str) -> FlushedRun:
        """Send ``files`` in order (manifest last), skipping those the store already holds unchanged."""
        self.client.ensure_bucket()
        uploaded = already = 0
        for file in files:
            key = self._key(case_id, run_id, file.name)
            if mismatch(self.client.stat(key), size=file.size, sha256=file.sha256, md5=file.md5) is None:
                already += 1
                continue
            self.client.put_file(key, file.source, size=file.size, sha256=file.sha256, md5=file.md5)
            uploaded += 1
            if self.on_uploaded:
                self.on_uploaded(file.name)
        return FlushedRun(case_id, run_id, uploaded, already)

    def list_runs(self) -> list[StoredRun]:
        """Every run under the prefix; complete when its ``manifest.json`` object exists and is well formed.

        ``started_at`` and ``verdict`` come from the run's ``run.json`` object (``?`` and a note when
        it is malformed). Keys come from the store and are only displayed, never used as paths.

        Raises:
            ArchiveUnavailable: the store could not be reached.
            ArchiveError: access denied.
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

            def read(name: str, limit: int, case=case, run_id=run_id, files=files) -> bytes | None:
                if name not in files:
                    return None
                try:
                    safe_id(case, what="case id")
                    safe_id(run_id, what="run id")
                except InputError as exc:
                    raise ArchiveError(f"{exc.message}: not read") from None
                return self.client.read(self._key(case, run_id, name), max_bytes=limit)

            runs.append(stored_run(case, run_id, read, where=self.run_uri(case, run_id)))
        return runs

    def get(self, case_id: str, run_id: str, dest_dir: Path) -> Path:
        """Download a complete run into ``dest_dir/<case_id>/<run_id>/`` and verify every file.

        Keys and manifests from the store are not trusted: the manifest goes through
        :func:`~faultlib.archive.manifest.parse_manifest` (plain relative names only), each download
        is bounded by the size the manifest gives, and files are written without following links,
        inside ``dest_dir``. They arrive in a hidden ``.partial`` directory first and are moved into
        place only when every one matches the manifest (size and sha256); on any failure nothing is left.

        Returns:
            The run directory written.

        Raises:
            InputError: an id is not a plain name, or the destination would leave ``dest_dir``.
            ManifestError: the stored manifest is malformed (names the run and the field).
            ArchiveError: the run has no manifest in the store (incomplete or unknown), the
                destination exists, or a file differs from the manifest (the message names the first).
            ArchiveUnavailable: the store could not be reached.
        """
        case_id = safe_id(case_id, what="case id", where=self.uri)
        run_id = safe_id(run_id, what="run id", where=self.uri)
        where = self.run_uri(case_id, run_id)
        manifest_key = self._key(case_id, run_id, layout.MANIFEST)
        raw = self.client.read(manifest_key, max_bytes=MANIFEST_LIMITS.max_bytes)
        if raw is None:
            raise ArchiveError(f"{where} has no manifest.json: the run is incomplete or does not exist "
                               f"(see `faultlib archive ls {self.uri}`)")
        stored = self.client.stat(manifest_key)
        if stored is not None and stored.sha256 and stored.sha256 != hashlib.sha256(raw).hexdigest():
            raise ArchiveError(f"{where}/{layout.MANIFEST}: sha256 differs from the one recorded at upload")
        manifest = parse_manifest(raw, run=f"{case_id}/{run_id}", path=f"{where}/{layout.MANIFEST}",
                                  expect=(case_id, run_id))
        with Download(dest_dir, case_id, run_id) as download:
            for entry in manifest.files:
                with closing(download.create(entry.name)) as fd:
                    got = self.client.fetch(self._key(case_id, run_id, entry.name), fd, limit=entry.bytes)
                if got.size != entry.bytes:
                    size = f"more than {entry.bytes}" if got.size > entry.bytes else str(got.size)
                    raise ArchiveError(f"{where}/{entry.name}: {size} bytes in the store, the manifest says "
                                       f"{entry.bytes}")
                if got.sha256 != entry.sha256:
                    raise ArchiveError(f"{where}/{entry.name}: sha256 differs from the manifest: the stored copy "
                                       "is damaged or was replaced")
            download.write(layout.MANIFEST, raw)
        return download.final

"""Evidence from the pods: what a Kubernetes run's pods write comes back to the local run directory.

A pod writes its evidence (traces, metrics, logs, findings, dumps, checkpoints) into the run
directory on the run's volume. When the archive is ``s3://BUCKET/PREFIX``, the pod entry point
(:mod:`faultlib.backends.kube_pod`) uploads that directory after every attempt into the run's own
place in the store, ``<prefix>/<case_id>/<run_id>/<name>``: the layout of the archive and of its
local spool. Each object carries its sha256 as metadata, as the archive's own uploads do. After each
phase the runner downloads every object there into its local run directory, checking each against
its sha256, so a Kubernetes run ends with the same evidence as a local one. In the store the run
stays incomplete (no ``manifest.json``) until the runner publishes it, manifest last; files the pod
already stored unchanged are then not sent again.

The pod reads the endpoint and keys from a Secret created for the run (``secretKeyRef``); they are
never written into the ConfigMap, the Job spec, the evidence or a message.

Files the runner writes itself (:data:`RUNNER_FILES`) are neither uploaded by a pod nor fetched.

When the archive is ``file://``, a pod cannot write into a directory of the runner's machine and
only the pods' logs come back: the backend says so on stderr, in ``stderr.txt``, and as a
``warning`` finding of detector ``kubernetes`` in each phase (:func:`not_collected`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import urlsplit

from faultlib.errors import ArchiveError
from faultlib.evidence import layout

if TYPE_CHECKING:
    from faultlib.archive.s3client import S3Client

MANIFESTS_EVIDENCE = "kubernetes.yaml"
RUNNER_FILES = frozenset({layout.MANIFEST, layout.RUN, layout.STDOUT, layout.STDERR, layout.JUNIT,
                          layout.ASSERTIONS_LOG, layout.METRICS_PROM, MANIFESTS_EVIDENCE})
DETECTOR = "kubernetes"
CHUNK = 1 << 20


def run_location(archive_uri: str, case_id: str, run_id: str) -> tuple[str, str]:
    """``(bucket, key prefix)`` of a run in an ``s3://`` archive: ``<prefix>/<case_id>/<run_id>/``.

    Raises:
        ArchiveError: the URI is not a valid ``s3://BUCKET[/PREFIX]``.
    """
    from faultlib.archive.s3 import parse_uri

    bucket, prefix = parse_uri(archive_uri)
    return bucket, f"{prefix}/{case_id}/{run_id}/" if prefix else f"{case_id}/{run_id}/"


def _client(bucket: str, environ: Mapping[str, str] | None = None) -> "S3Client":
    from faultlib.archive.s3client import S3Client

    return S3Client(bucket, environ=environ)


def _hashes(path: Path) -> tuple[str, str]:
    sha256, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            sha256.update(block)
            md5.update(block)
    return sha256.hexdigest(), md5.hexdigest()


def pod_files(run_dir: Path) -> list[str]:
    """The files of a pod's run directory to upload (``/``-separated names), sorted; no runner files, no links."""
    names = []
    for path in sorted(run_dir.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        name = path.relative_to(run_dir).as_posix()
        if name not in RUNNER_FILES:
            names.append(name)
    return names


def upload_run_dir(run_dir: Path, archive_uri: str, case_id: str, run_id: str, *,
                   client: "S3Client | None" = None) -> tuple[int, int]:
    """Upload a pod's run directory into the run's place in the archive (the pod side).

    Returns:
        ``(uploaded, unchanged)``: files sent, and files the store already held with the same sha256.

    Raises:
        ArchiveError: bad URI, endpoint or keys missing from the environment, access denied.
        ArchiveUnavailable: the store could not be reached.
    """
    from faultlib.archive.s3client import mismatch

    bucket, prefix = run_location(archive_uri, case_id, run_id)
    client = client or _client(bucket)
    client.ensure_bucket()
    sent = unchanged = 0
    for name in pod_files(run_dir):
        path = run_dir / name
        size = path.stat().st_size
        sha256, md5 = _hashes(path)
        if mismatch(client.stat(prefix + name), size=size, sha256=sha256, md5=md5) is None:
            unchanged += 1
            continue
        client.put_file(prefix + name, _opener(path), size=size, sha256=sha256, md5=md5)
        sent += 1
    return sent, unchanged


def _opener(path: Path):
    """``put_file``'s source: opens ``path`` anew for each try and yields its ``read(n)``."""

    @contextmanager
    def source():
        with open(path, "rb") as fh:
            yield fh.read

    return source


def _safe(name: str) -> str | None:
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or any(p in ("", ".", "..") for p in path.parts):
        return None
    return path.as_posix()


def fetch_run_dir(archive_uri: str, case_id: str, run_id: str, run_dir: Path, *,
                  client: "S3Client | None" = None) -> list[str]:
    """Download what the pods uploaded for the run into ``run_dir`` (the runner side).

    Every object is checked against its size and sha256 metadata before it replaces the local file
    (written to ``NAME.partial`` first, then renamed); runner files and unsafe names are skipped.

    Returns:
        The names written, sorted.

    Raises:
        ArchiveError: an object differs from its sha256, bad URI or keys, access denied.
        ArchiveUnavailable: the store could not be reached.
    """
    bucket, prefix = run_location(archive_uri, case_id, run_id)
    client = client or _client(bucket)
    written = []
    for key in sorted(client.keys(prefix)):
        name = _safe(key[len(prefix):])
        if name is None or name in RUNNER_FILES or key.endswith("/"):
            continue
        stored = client.stat(key)
        if stored is None:  # gone since it was listed
            continue
        target = run_dir / name
        partial = target.with_name(target.name + ".partial")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            got = client.fetch(key, fd, limit=stored.size)
        finally:
            os.close(fd)
        if got.size != stored.size or (stored.sha256 and got.sha256 != stored.sha256):
            partial.unlink()
            raise ArchiveError(f"{archive_uri}: the pod's {name} differs from the sha256 it was stored with")
        os.replace(partial, target)
        written.append(name)
    return written


def secret_values(environ: Mapping[str, str]) -> dict[str, str]:
    """The archive's endpoint and keys, from the runner's environment, for the run's Secret.

    Raises:
        ArchiveError: one is missing (the message names the variables, never a value).
    """
    from faultlib.backends.kube_manifests import ARCHIVE_KEYS, OPTIONAL_ARCHIVE_KEYS

    missing = [k for k in ARCHIVE_KEYS if not environ.get(k)]
    if missing:
        raise ArchiveError(f"an s3:// archive on the kubernetes backend needs {', '.join(missing)} in the "
                           "environment: the run's pods upload their evidence with them (through a Secret)")
    return {k: environ[k] for k in (*ARCHIVE_KEYS, *OPTIONAL_ARCHIVE_KEYS) if environ.get(k)}


def loopback_endpoint(environ: Mapping[str, str]) -> bool:
    """True when ``FAULTLIB_S3_ENDPOINT`` names this machine (localhost, 127.0.0.0/8, ::1): from a pod
    that address is the pod itself."""
    host = urlsplit(environ.get("FAULTLIB_S3_ENDPOINT", "")).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def not_collected(phase: str, archive_uri: str | None, reason: str) -> dict[str, Any]:
    """The ``findings.jsonl`` line saying that a phase's pod evidence did not come back.

    Args:
        phase: ``control`` or ``faulted``.
        archive_uri: the run's archive (None: the default ``file://`` archive).
        reason: why, in one sentence.
    """
    from faultlib.findings import Finding

    finding = Finding(DETECTOR, "warning", f"the {phase} pod's evidence files (traces, metrics, logs, findings, dumps) "
                      f"did not come back: {reason}; only the pods' logs did (stdout.txt)",
                      {"phase": phase}, {"archive": archive_uri or "file://"})
    return {"phase": phase, "finding": finding.to_json()}


def append_findings(run_dir: Path, lines: list[dict[str, Any]]) -> None:
    """Append findings lines to the run's ``findings.jsonl`` (never rewriting what is there)."""
    if lines:
        with open(run_dir / layout.FINDINGS, "a", encoding="utf-8") as fh:
            for line in lines:
                fh.write(json.dumps(line, separators=(",", ":")) + "\n")

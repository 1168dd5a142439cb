"""Archives: where evidence goes. ``file://DIR`` (default ``.faultlib/runs``) and ``s3://BUCKET/PREFIX``
(MinIO, SeaweedFS, AWS S3; needs ``pip install 'faultlib-ml[s3]'``) are built in."""

from __future__ import annotations

from pathlib import Path

from faultlib.archive.base import Archive, FlushedRun, FlushReport, RepairedRun, RepairReport, RunOutcome, StoredRun
from faultlib.archive.file import FileArchive
from faultlib.archive.manifest import Manifest, ManifestError, parse_manifest, verify
from faultlib.archive.s3 import S3Archive
from faultlib.errors import ArchiveError

DEFAULT_URI = "file://.faultlib/runs"


def open_archive(uri: str | None = None) -> Archive:
    """The archive for ``uri``: ``file://DIR`` (a bare path means ``file://``) or ``s3://BUCKET[/PREFIX]``.

    Nothing is created or contacted: :meth:`Archive.preflight` checks that the archive can take a run.

    Raises:
        ArchiveError: unknown scheme, malformed URI, an invalid bucket name, a path that is not a path
            (NUL byte), or (s3) endpoint or keys missing or malformed in the environment.
        MissingDependency: s3:// without the ``minio`` package.
    """
    uri = uri or DEFAULT_URI
    if "://" not in uri:
        return FileArchive(Path(uri))
    scheme, _, rest = uri.partition("://")
    if scheme == "file":
        if not rest:
            raise ArchiveError(f"archive URI {uri!r} has no directory: use file://DIR")
        return FileArchive(Path(rest))
    if scheme == "s3":
        return S3Archive(uri)
    raise ArchiveError(f"unknown archive scheme {scheme!r} in {uri!r}: use file://DIR or s3://BUCKET/PREFIX")


__all__ = ["DEFAULT_URI", "Archive", "FileArchive", "FlushReport", "FlushedRun", "Manifest", "ManifestError",
           "RepairReport", "RepairedRun", "RunOutcome", "S3Archive", "StoredRun", "open_archive", "parse_manifest",
           "verify"]

"""Archives: where evidence goes. ``file://DIR`` (default ``.faultlib/runs``) and ``s3://BUCKET/PREFIX``
(MinIO, SeaweedFS, AWS S3; needs ``pip install 'faultlib-ml[s3]'``) are built in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from faultlib.errors import ArchiveError
from faultlib.lazy import lazy_exports

if TYPE_CHECKING:
    from faultlib.archive.base import Archive

DEFAULT_URI = "file://.faultlib/runs"

#: public names and the submodule that defines each, imported on first use (PEP 562): the CLI imports
#: :mod:`faultlib.archive.credentials` first thing, and ``faultlib --help`` need not load the archives
_EXPORTS = {"Archive": "base", "FlushedRun": "base", "FlushReport": "base", "RepairedRun": "base",
            "RepairReport": "base", "RunOutcome": "base", "StoredRun": "base", "FileArchive": "file",
            "Manifest": "manifest", "ManifestError": "manifest", "parse_manifest": "manifest", "verify": "manifest",
            "S3Archive": "s3"}
__getattr__, _lazy_dir = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted({*globals(), *_lazy_dir()})


def open_archive(uri: str | None = None) -> Archive:
    """The archive for ``uri``: ``file://DIR`` (a bare path means ``file://``) or ``s3://BUCKET[/PREFIX]``.

    Nothing is created or contacted: :meth:`Archive.preflight` checks that the archive can take a run.

    Raises:
        ArchiveError: unknown scheme, malformed URI, an invalid bucket name, a path that is not a path
            (NUL byte), or (s3) endpoint or keys missing or malformed in the environment.
        MissingDependency: s3:// without the ``minio`` package.
    """
    from faultlib.archive.file import FileArchive

    uri = uri or DEFAULT_URI
    if "://" not in uri:
        return FileArchive(Path(uri))
    scheme, _, rest = uri.partition("://")
    if scheme == "file":
        if not rest:
            raise ArchiveError(f"archive URI {uri!r} has no directory: use file://DIR")
        return FileArchive(Path(rest))
    if scheme == "s3":
        from faultlib.archive.s3 import S3Archive  # file:// never loads the S3 client

        return S3Archive(uri)
    raise ArchiveError(f"unknown archive scheme {scheme!r} in {uri!r}: use file://DIR or s3://BUCKET/PREFIX")


__all__ = ["DEFAULT_URI", "Archive", "FileArchive", "FlushReport", "FlushedRun", "Manifest", "ManifestError",
           "RepairReport", "RepairedRun", "RunOutcome", "S3Archive", "StoredRun", "open_archive", "parse_manifest",
           "verify"]

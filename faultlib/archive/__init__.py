"""Archives: where evidence goes. ``file://`` (default ``.faultlib/runs``) is built in."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from faultlib.archive.base import Archive, StoredRun
from faultlib.archive.file import FileArchive
from faultlib.errors import ArchiveError

DEFAULT_URI = "file://.faultlib/runs"


def open_archive(uri: str | None = None) -> Archive:
    """The archive for ``uri`` (``file://DIR``; a bare path means ``file://``).

    Raises:
        ArchiveError: unknown scheme or malformed URI.
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
        parsed = urlparse(uri)
        raise ArchiveError(f"s3:// archives (bucket {parsed.netloc!r}) are not available in this version of "
                           "faultlib: use file://DIR")
    raise ArchiveError(f"unknown archive scheme {scheme!r} in {uri!r}: use file://DIR")


__all__ = ["DEFAULT_URI", "Archive", "FileArchive", "StoredRun", "open_archive"]

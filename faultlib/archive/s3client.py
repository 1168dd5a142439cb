"""The one boundary between faultlib and an S3 store (MinIO, SeaweedFS, AWS S3), via the ``minio`` client.

Every call is retried with bounded exponential back-off when the store is unreachable or answers
with a server error; ``minio`` and ``urllib3`` errors are translated here into
:class:`~faultlib.errors.ArchiveUnavailable` (exit 3) or :class:`~faultlib.errors.ArchiveError`.

Endpoint and credentials come only from the environment (``FAULTLIB_S3_ENDPOINT``,
``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, optionally ``AWS_SESSION_TOKEN``). No message
raised here contains their values: messages name the variables instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from faultlib.errors import ArchiveError, ArchiveUnavailable, require

ENV_ENDPOINT = "FAULTLIB_S3_ENDPOINT"
ENV_ACCESS_KEY = "AWS_ACCESS_KEY_ID"
ENV_SECRET_KEY = "AWS_SECRET_ACCESS_KEY"
ENV_SESSION_TOKEN = "AWS_SESSION_TOKEN"

RETRY_DELAYS_S = (0.2, 0.4, 0.8, 1.6)   # sleeps between the 5 attempts of one call: 3 s at most
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 60.0
SHA256_METADATA = "sha256"               # stored as the x-amz-meta-sha256 header

ACCESS_DENIED = frozenset({"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken",
                           "ExpiredToken", "TokenRefreshRequired", "AllAccessDisabled", "AccountProblem"})
TRANSIENT = frozenset({"InternalError", "ServiceUnavailable", "SlowDown", "RequestTimeout", "OperationAborted"})
NOT_FOUND = frozenset({"NoSuchKey", "NoSuchObject", "ResourceNotFound"})

T = TypeVar("T")


@dataclass(frozen=True)
class ObjectInfo:
    """What the store says about one object.

    Attributes:
        size: bytes.
        sha256: hex digest from the object's ``sha256`` metadata (None when it has none).
        md5: hex content md5 from the ETag, when the ETag is one (single-part upload, not SSE-KMS/SSE-C).
        last_modified: as the store reports it (resolution varies, often 1 s).
    """

    size: int
    sha256: str | None
    md5: str | None
    last_modified: datetime | None


class StoredObjectMismatch(Exception):
    """An uploaded object reads back with another size or checksum; the upload is retried."""


def _endpoint(environ: Mapping[str, str]) -> tuple[str, bool]:
    """``(host[:port], secure)`` from ``FAULTLIB_S3_ENDPOINT``; the scheme decides TLS."""
    raw = environ.get(ENV_ENDPOINT, "").strip()
    if not raw:
        raise ArchiveError(f"s3:// archives need {ENV_ENDPOINT} (e.g. http://127.0.0.1:8333 or "
                           f"https://s3.example.com), {ENV_ACCESS_KEY} and {ENV_SECRET_KEY} in the environment")
    parts = urlsplit(raw)
    try:
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        parts = parts._replace(netloc="")
    if (parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password
            or parts.path not in ("", "/") or parts.query or parts.fragment):
        raise ArchiveError(f"{ENV_ENDPOINT} must be http://HOST[:PORT] or https://HOST[:PORT], "
                           "without a path or credentials (keys go in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)")
    return parts.netloc, parts.scheme == "https"


class S3Client:
    """One bucket of the store named by the environment, with retries and error translation.

    Args:
        bucket: bucket name (validated by the caller).
        retry_delays_s: seconds to sleep before each retry of a failing call; ``len + 1`` attempts
            in all. Default ``(0.2, 0.4, 0.8, 1.6)``.
        sleep: how to wait (tests pass a no-op).
        environ: where endpoint and keys come from; default the environment plus what
            :mod:`faultlib.archive.credentials` holds.

    Raises:
        MissingDependency: ``minio`` is not installed (``pip install 'faultlib-ml[s3]'``).
        ArchiveError: endpoint or keys missing or malformed.
    """

    def __init__(self, bucket: str, *, retry_delays_s: Sequence[float] = RETRY_DELAYS_S,
                 sleep: Callable[[float], None] = time.sleep, environ: Mapping[str, str] | None = None):
        if environ is None:
            from faultlib.archive.credentials import environ as held

            environ = held()
        minio = require("minio", "s3")
        import certifi
        import urllib3

        host, secure = _endpoint(environ)
        access_key, secret_key = environ.get(ENV_ACCESS_KEY), environ.get(ENV_SECRET_KEY)
        if not access_key or not secret_key:
            raise ArchiveError(f"s3:// archives need {ENV_ACCESS_KEY} and {ENV_SECRET_KEY} in the environment")
        http = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S), maxsize=10,
            cert_reqs="CERT_REQUIRED", ca_certs=environ.get("SSL_CERT_FILE") or certifi.where(),
            retries=False)  # retries happen in _call, with faultlib's back-off and error translation
        self._minio = minio.Minio(host, access_key=access_key, secret_key=secret_key,
                                  session_token=environ.get(ENV_SESSION_TOKEN) or None, secure=secure,
                                  http_client=http)
        self._errors = minio.error
        self._http_error = urllib3.exceptions.HTTPError
        self.bucket = bucket
        self.retry_delays_s = tuple(retry_delays_s)
        self.sleep = sleep
        self._bucket_ready = False

    def ensure_bucket(self) -> None:
        """Create the bucket unless it exists (once per client)."""
        if self._bucket_ready:
            return
        if not self._call(f"checking bucket {self.bucket!r}", lambda: self._minio.bucket_exists(self.bucket)):
            try:
                self._call(f"creating bucket {self.bucket!r}", lambda: self._minio.make_bucket(self.bucket))
            except ArchiveError as exc:
                if not isinstance(exc.__cause__, self._errors.S3Error) or exc.__cause__.code not in (
                        "BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                    raise
        self._bucket_ready = True

    def stat(self, key: str) -> ObjectInfo | None:
        """The object's size and checksums, or None when it does not exist."""

        def stat():
            try:
                return self._minio.stat_object(self.bucket, key)
            except self._errors.S3Error as exc:
                if exc.code in NOT_FOUND:
                    return None
                raise

        found = self._call(f"reading {key}", stat)
        return None if found is None else _info(found)

    def put_file(self, key: str, path: Path, *, size: int, sha256: str, md5: str) -> None:
        """Upload ``path`` with its sha256 as metadata, read it back and check size and checksums.

        Raises:
            ArchiveUnavailable: the store stayed unreachable, or the stored object kept differing.
        """

        def put_and_check():
            self._minio.fput_object(self.bucket, key, str(path), metadata={SHA256_METADATA: sha256})
            stored = _info(self._minio.stat_object(self.bucket, key))
            problem = mismatch(stored, size=size, sha256=sha256, md5=md5)
            if problem:
                raise StoredObjectMismatch(problem)

        self._call(f"uploading {key}", put_and_check)

    def download(self, key: str, dest: Path) -> None:
        """Write the object's bytes to ``dest``.

        Raises:
            ArchiveError: the object does not exist.
        """
        self._call(f"downloading {key}", lambda: self._minio.fget_object(self.bucket, key, str(dest)))

    def read(self, key: str) -> bytes | None:
        """The object's bytes (for small objects), or None when it does not exist."""

        def read():
            try:
                response = self._minio.get_object(self.bucket, key)
            except self._errors.S3Error as exc:
                if exc.code in NOT_FOUND:
                    return None
                raise
            try:
                return response.read()
            finally:
                response.close()
                response.release_conn()

        return self._call(f"reading {key}", read)

    def keys(self, prefix: str) -> list[str]:
        """Every object key under ``prefix`` (recursive), in the store's order."""

        def keys():
            try:
                return [o.object_name for o in self._minio.list_objects(self.bucket, prefix=prefix, recursive=True)]
            except self._errors.S3Error as exc:
                if exc.code == "NoSuchBucket":
                    return []
                raise

        return self._call(f"listing {self.bucket}/{prefix}", keys)

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run ``fn``, retrying transient failures; translate what is left into faultlib errors."""
        attempts = len(self.retry_delays_s) + 1
        for attempt in range(attempts):
            try:
                return fn()
            except Exception as exc:  # noqa: BLE001 - sorted below, re-raised as ours or unchanged
                reason = self._transient_reason(exc)
                if reason is None:
                    translated = self._permanent(exc, what)
                    if translated is None:
                        raise
                    raise translated from exc
                if attempt + 1 == attempts:
                    raise ArchiveUnavailable(f"the S3 store ({ENV_ENDPOINT}) failed {attempts} times while "
                                             f"{what}: {reason}") from exc
                self.sleep(self.retry_delays_s[attempt])
        raise AssertionError("unreachable")

    def _transient_reason(self, exc: Exception) -> str | None:
        """Why a failure is worth retrying, in words without endpoint or keys; None if it is not."""
        if isinstance(exc, StoredObjectMismatch):
            return f"the stored object differs from the local file ({exc})"
        if isinstance(exc, self._http_error):
            name = type(exc).__name__
            if "Timeout" in name:
                return "timed out"
            if "NewConnection" in name or "MaxRetry" in name:
                return "cannot connect"
            return f"connection failed ({name})"
        if isinstance(exc, self._errors.S3Error):
            status = getattr(exc.response, "status", 0) or 0
            return f"{exc.code} (HTTP {status})" if exc.code in TRANSIENT or status >= 500 else None
        if isinstance(exc, self._errors.ServerError):
            return f"HTTP {exc.status_code}" if exc.status_code >= 500 or exc.status_code == 429 else None
        if isinstance(exc, self._errors.InvalidResponseError):
            return "the store answered with something that is not S3 (a proxy error page?)"
        return None

    def _permanent(self, exc: Exception, what: str) -> ArchiveError | None:
        """The faultlib error for a failure that retrying will not fix; None for errors not from the store."""
        if isinstance(exc, self._errors.S3Error):
            if exc.code in ACCESS_DENIED:
                return ArchiveError(f"access denied: check {ENV_ACCESS_KEY} / {ENV_SECRET_KEY} "
                                    f"(the store answered {exc.code} while {what})")
            if exc.code == "NoSuchBucket":
                return ArchiveError(f"bucket {self.bucket!r} does not exist (while {what})")
            if exc.code in NOT_FOUND:
                return ArchiveError(f"not found in the store while {what}")
            return ArchiveError(f"the S3 store refused while {what}: {exc.code}: {exc.message}")
        if isinstance(exc, self._errors.ServerError):
            return ArchiveError(f"the S3 store answered HTTP {exc.status_code} while {what}")
        return None


def _info(stat) -> ObjectInfo:
    headers = stat.metadata or {}
    sha256 = headers.get(f"x-amz-meta-{SHA256_METADATA}")
    etag = (stat.etag or "").strip('"').lower()
    encrypted = (headers.get("x-amz-server-side-encryption") or "").startswith("aws:kms") or \
        bool(headers.get("x-amz-server-side-encryption-customer-algorithm"))
    md5 = etag if len(etag) == 32 and "-" not in etag and not encrypted else None
    return ObjectInfo(size=stat.size, sha256=sha256, md5=md5, last_modified=stat.last_modified)


def mismatch(stored: ObjectInfo | None, *, size: int, sha256: str, md5: str | None = None) -> str | None:
    """What differs between a stored object and a local file, or None when they match.

    Size and the sha256 metadata must match; the ETag is compared with the local md5 when it is one.
    """
    if stored is None:
        return "not in the store"
    if stored.size != size:
        return f"{stored.size} bytes stored, {size} local"
    if stored.sha256 != sha256:
        return "sha256 metadata differs" if stored.sha256 else "no sha256 metadata"
    if md5 and stored.md5 and stored.md5 != md5:
        return "ETag differs from the local md5"
    return None

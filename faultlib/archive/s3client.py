"""The one boundary between faultlib and an S3 store (MinIO, SeaweedFS, AWS S3), via the ``minio`` client.

Every call is retried with bounded exponential back-off when the store is unreachable or answers
with a server error; ``minio`` and ``urllib3`` errors are translated here into
:class:`~faultlib.errors.ArchiveUnavailable` (exit 3) or :class:`~faultlib.errors.ArchiveError`.

Endpoint and credentials come only from the environment (``FAULTLIB_S3_ENDPOINT``,
``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, optionally ``AWS_SESSION_TOKEN``). No message
raised here contains their values: messages name the variables instead.
"""

from __future__ import annotations

import ipaddress
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ContextManager, TypeVar

from faultlib.archive.members import CHUNK, Digest, HashingReader
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


_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOSTNAME = re.compile(rf"(?=[^\n]{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*\.?\Z")
ENDPOINT_RULE = (f"{ENV_ENDPOINT} must be http://HOST[:PORT] or https://HOST[:PORT] (HOST a name, an IPv4 "
                 "address or an IPv6 address in brackets, PORT 1-65535), without a path or credentials (keys go "
                 "in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)")


def parse_endpoint(raw: str) -> tuple[str, bool] | None:
    """``(host[:port], secure)`` for a well-formed endpoint URL, else None (never raises: the value
    may hold secrets, so callers word the error without it)."""
    scheme, sep, rest = raw.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    netloc = rest[:-1] if rest.endswith("/") else rest
    if not netloc or any(c in netloc for c in "/?#@\\ \t\r\n%"):
        return None
    if netloc.startswith("["):
        host, close, after = netloc[1:].partition("]")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
        if not close or (after and not after.startswith(":")):
            return None
        port = after[1:] if after else None
    else:
        host, colon, port = netloc.partition(":")
        port = port if colon else None
        if not _HOSTNAME.match(host):
            return None
    if port is not None and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        return None
    return netloc, scheme.lower() == "https"


def _endpoint(environ: Mapping[str, str]) -> tuple[str, bool]:
    """``(host[:port], secure)`` from ``FAULTLIB_S3_ENDPOINT``; the scheme decides TLS.

    Raises:
        ArchiveError: missing or malformed (the message names the variable, never its value).
    """
    raw = environ.get(ENV_ENDPOINT, "").strip()
    if not raw:
        raise ArchiveError(f"s3:// archives need {ENV_ENDPOINT} (e.g. http://127.0.0.1:9000 or "
                           f"https://s3.example.com), {ENV_ACCESS_KEY} and {ENV_SECRET_KEY} in the environment")
    parsed = parse_endpoint(raw)
    if parsed is None:
        raise ArchiveError(ENDPOINT_RULE)
    return parsed


class S3Client:
    """One bucket of the store named by the environment, with retries and error translation.

    Args:
        bucket: bucket name (validated by the caller).
        retry_delays_s: seconds to sleep before each retry of a failing call; ``len + 1`` attempts
            in all. Default ``(0.2, 0.4, 0.8, 1.6)``.
        sleep: how to wait (tests pass a no-op).
        environ: where endpoint and keys come from; default the environment plus what
            :mod:`faultlib.archive.credentials` holds.
        connect_timeout_s, read_timeout_s: per request (default 5 s and 60 s).
        deadline_s: no retry starts later than this many seconds after a call began (default none:
            every attempt is made). ``preflight`` uses a short one to fail within about 5 s.

    Raises:
        MissingDependency: ``minio`` is not installed (``pip install 'faultlib-ml[s3]'``).
        ArchiveError: endpoint or keys missing or malformed.
    """

    def __init__(self, bucket: str, *, retry_delays_s: Sequence[float] = RETRY_DELAYS_S,
                 sleep: Callable[[float], None] = time.sleep, environ: Mapping[str, str] | None = None,
                 connect_timeout_s: float = CONNECT_TIMEOUT_S, read_timeout_s: float = READ_TIMEOUT_S,
                 deadline_s: float | None = None):
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
            timeout=urllib3.Timeout(connect=connect_timeout_s, read=read_timeout_s), maxsize=10,
            cert_reqs="CERT_REQUIRED", ca_certs=environ.get("SSL_CERT_FILE") or certifi.where(),
            retries=False)  # retries happen in _call, with faultlib's back-off and error translation
        try:
            self._minio = minio.Minio(host, access_key=access_key, secret_key=secret_key,
                                      session_token=environ.get(ENV_SESSION_TOKEN) or None, secure=secure,
                                      http_client=http)
        except ValueError:  # the client's own check of the host; its message would hold the value
            raise ArchiveError(ENDPOINT_RULE) from None
        self._errors = minio.error
        self._http_error = urllib3.exceptions.HTTPError
        self.bucket = bucket
        self.retry_delays_s = tuple(retry_delays_s)
        self.sleep = sleep
        self.deadline_s = deadline_s
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

    def put_file(self, key: str, source: Callable[[], ContextManager[Callable[[int], bytes]]], *, size: int,
                 sha256: str, md5: str) -> None:
        """Upload what ``source`` reads, with its sha256 as metadata; read the object back and check
        size and checksums.

        Args:
            key: the object key.
            source: opens the local bytes (called again for each retry) and yields a ``read(n)``
                function; the bytes read are hashed on the way, so a file that changed since it was
                checked is never stored as if it had not.
            size, sha256, md5: what the bytes must be.

        Raises:
            ArchiveUnavailable: the store stayed unreachable, or the stored object kept differing.
            ArchiveError: the local bytes are not what they were when checked (changed meanwhile).
        """

        def put_and_check():
            with source() as read:
                reader = HashingReader(read)
                self._minio.put_object(self.bucket, key, reader, length=size, metadata={SHA256_METADATA: sha256})
            if reader.digest.size != size or reader.digest.sha256 != sha256:
                raise ArchiveError(f"{key}: the local file changed while it was uploaded; it no longer matches "
                                   "its manifest")
            stored = _info(self._minio.stat_object(self.bucket, key))
            problem = mismatch(stored, size=size, sha256=sha256, md5=md5)
            if problem:
                raise StoredObjectMismatch(problem)

        self._call(f"uploading {key}", put_and_check)

    def fetch(self, key: str, fd: int, *, limit: int) -> Digest:
        """Write the object's bytes into the file open as ``fd`` (from its start; truncated first on
        each attempt), stopping after ``limit + 1`` bytes.

        Returns:
            What was written: size, sha256, md5 (a size above ``limit`` means the object is larger).

        Raises:
            ArchiveError: the object does not exist.
            ArchiveUnavailable: the store could not be reached.
        """

        def fetch():
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            response = self._minio.get_object(self.bucket, key)
            try:
                digest = Digest()
                for block in response.stream(CHUNK):
                    block = block[:limit + 1 - digest.size]
                    digest.update(block)
                    view = memoryview(block)
                    while view:
                        view = view[os.write(fd, view):]
                    if digest.size > limit:
                        break
                return digest
            finally:
                response.close()
                response.release_conn()

        return self._call(f"downloading {key}", fetch)

    def read(self, key: str, *, max_bytes: int) -> bytes | None:
        """The object's bytes (for small objects), or None when it does not exist.

        Raises:
            ArchiveError: it is larger than ``max_bytes``.
        """

        def read():
            try:
                response = self._minio.get_object(self.bucket, key)
            except self._errors.S3Error as exc:
                if exc.code in NOT_FOUND:
                    return None
                raise
            try:
                data = response.read(max_bytes + 1)
            finally:
                response.close()
                response.release_conn()
            if len(data) > max_bytes:
                raise ArchiveError(f"{key}: larger than {max_bytes} bytes: not read")
            return data

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

    def probe(self) -> None:
        """One request, no retry: raises :class:`ArchiveUnavailable` when the store does not answer now."""
        self._call("checking that the store answers", lambda: self._minio.bucket_exists(self.bucket), attempts=1)

    def _call(self, what: str, fn: Callable[[], T], *, attempts: int | None = None) -> T:
        """Run ``fn``, retrying transient failures; translate what is left into faultlib errors.

        ``fn`` may raise an :class:`ArchiveError` of its own: it passes through, not retried.
        """
        attempts = attempts or len(self.retry_delays_s) + 1
        started = time.monotonic()
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
                late = (self.deadline_s is not None and attempt + 1 < attempts
                        and time.monotonic() - started + self.retry_delays_s[attempt] > self.deadline_s)
                if attempt + 1 == attempts or late:
                    attempts = attempt + 1
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
        if isinstance(exc, ValueError):  # the client refuses the request itself (e.g. a key with '..')
            return ArchiveError(f"the S3 client refused the request while {what}: {exc}")
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

"""Reading ``manifest.json`` back, and checking a run's files against it.

:func:`parse_manifest` is the one validation every reader goes through (``archive get``, ``ls`` and
``flush`` on file:// and s3:// archives, and the upload of a spooled run): the document is read with
:func:`faultlib.readers.load_json` (bounded, finite numbers, no duplicate keys), checked against the
closed schema ``faultlib/schemas/manifest.schema.json`` (integers are integers: ``1.0`` and ``true``
are not sizes), and then against what a schema cannot say: every entry is a plain relative name
inside the run (:func:`faultlib.readers.safe_relative`), listed once, not both a file and a
directory, and not ``manifest.json`` itself. A manifest that fails raises :class:`ManifestError`
naming the run and the field, e.g. ``fp16_overflow/20261130T...: manifest.json: files[3].bytes: must
be a non-negative integer``.

Writing the manifest (the runner's last step) lives in :mod:`faultlib.evidence.seal`.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from faultlib.archive.members import CHUNK, closing, digest_fd, open_dir, open_file_at, read_file_at
from faultlib.errors import ArchiveError, InputError, ManifestError
from faultlib.evidence import layout
from faultlib.readers import Limits, dotted, load_json, safe_relative
from faultlib.readers.files import MiB

__all__ = ["CHUNK", "MANIFEST_LIMITS", "Manifest", "ManifestEntry", "ManifestError", "check_entry", "parse_manifest",
           "read_manifest", "safe_id", "verify"]

#: a manifest lists every file of a run (the runner archives 100,000 at most), nested 3 levels deep
MANIFEST_LIMITS = Limits(max_bytes=128 * MiB, max_depth=4, max_nodes=1_000_000)
MAX_SEGMENT_BYTES = 255   # NAME_MAX on Linux
MAX_NAME_BYTES = 4096     # PATH_MAX on Linux (an S3 store takes keys up to 1024 bytes: longer ones fail to upload)


@dataclass(frozen=True)
class ManifestEntry:
    """One listed file: ``name`` relative to the run (``/``-separated), ``bytes``, ``sha256`` (hex)."""

    name: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """A validated manifest; ``raw`` is the exact document read (what gets copied or uploaded)."""

    case: str
    run_id: str
    files: tuple[ManifestEntry, ...]
    raw: bytes


def safe_id(value: object, *, what: str, where: str | None = None) -> str:
    """A case id or run id: a plain name, one path segment (no ``/``, ``..``, ``\\``, NUL or control
    character), see :func:`faultlib.readers.safe_relative`.

    Args:
        value: the id.
        what: ``case id`` or ``run id``, for the message.
        where: the archive it was meant for (becomes the error's ``path``).

    Raises:
        InputError: the id could name a place outside its directory.
    """
    try:
        name = safe_relative(value, what=what)  # type: ignore[arg-type]
        if "/" in name:
            raise InputError(f"{what} {name!r} is not a plain name: it may not contain '/'")
        _no_control(name, what)
    except InputError as exc:
        raise InputError(exc.message, path=where) from None
    return name


def _no_control(name: str, what: str) -> None:
    """Raises InputError when ``name`` holds a control character (the runner never archives such names)."""
    if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in name):
        raise InputError(f"{what} {name!r} holds a control character")


@functools.cache
def _validator():
    """The manifest schema's validator; ``integer`` means a Python int (``1.0`` and ``true`` are not)."""
    import jsonschema
    from jsonschema import validators

    from faultlib import schemas

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", lambda _, value: type(value) is int)
    return validators.extend(base, type_checker=checker)(schemas.load("manifest"))


_FIRST = {"type": 0, "const": 1, "required": 2, "additionalProperties": 3}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")


def _sort_key(error) -> tuple:
    """Document order (files[2] before files[10]); at one place, a wrong type before a missing field
    before an unknown one."""
    where = [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path]
    return where, _FIRST.get(error.validator, 9)


def _key(name: str) -> str:
    """An unknown key as a field name: itself when it looks like one, else quoted (and cut)."""
    return name if _KEY.fullmatch(name) else repr(name[:64])


def _describe(error) -> tuple[str, str]:
    """``(field, message)`` for a schema error, in words that say what the field must be."""
    path = list(error.absolute_path)
    expected = error.schema.get("x-expected") if isinstance(error.schema, dict) else None
    if error.validator == "required":
        missing = next((p for p in error.validator_value if p not in error.instance), "?")
        spec = error.schema.get("properties", {}).get(missing, {})
        hint = f": must be {spec['x-expected']}" if "x-expected" in spec else ""
        return dotted(path + [missing]), f"missing{hint}"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        allowed = ", ".join(error.schema.get("properties", {}))
        return dotted(path + [_key(extra[0]) if extra else "?"]), f"unknown field: only {allowed} are allowed"
    if error.validator == "type" and not path:
        return dotted(path), "must be a JSON object with manifest_version, case, run_id and files"
    if error.validator == "minLength" and error.validator_value == 1 and isinstance(error.instance, str):
        return dotted(path), "may not be empty"
    if expected:
        return dotted(path), f"must be {expected}"
    if error.validator == "maxLength":
        return dotted(path), f"is too long (at most {error.validator_value} characters)"
    return dotted(path), error.message[:200]


def parse_manifest(data: bytes | str, *, run: str, path: str, expect: tuple[str, str] | None = None) -> Manifest:
    """Validate a manifest document: the one check every reader of a manifest goes through.

    Args:
        data: the document, as read.
        run: ``case/run_id`` for messages.
        path: the manifest file or URI, for messages and ``ManifestError.path``.
        expect: ``(case, run_id)`` where the run is stored; the manifest must name the same.

    Returns:
        The manifest, its entries in document order.

    Raises:
        ManifestError: not JSON (with the line), too large or deep, not the schema's shape (the first
            field in document order, and how many more problems there are), an unsafe, duplicate,
            overlong or self-referencing name, or ids that differ from ``expect``.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    try:
        doc = load_json(raw, path, limits=MANIFEST_LIMITS)
    except InputError as exc:
        raise ManifestError(exc.message, run=run, path=path, line=exc.line) from None
    errors = sorted(_validator().iter_errors(doc), key=_sort_key)
    if errors:
        field, message = _describe(errors[0])
        more = f" ({len(errors) - 1} more problem(s) after this one)" if len(errors) > 1 else ""
        raise ManifestError(message + more, run=run, path=path, field=field)

    def fail(message: str, field: str):
        return ManifestError(message, run=run, path=path, field=field)

    for key, what in (("case", "case id"), ("run_id", "run id")):
        try:
            safe_id(doc[key], what=what)
        except InputError as exc:
            raise fail(exc.message, key) from None
    if expect is not None:
        for key, want in zip(("case", "run_id"), expect):
            if doc[key] != want:
                raise fail(f"says {doc[key]!r}, but the run is stored as {want!r}: the manifest belongs to "
                           "another run", key)
    entries, seen = [], {}
    for index, item in enumerate(doc["files"]):
        name, field = item["name"], f"files[{index}].name"
        try:
            safe_relative(name, what="file name")
            _no_control(name, "file name")
            encoded = name.encode("utf-8")
        except InputError as exc:
            raise fail(exc.message, field) from None
        except UnicodeEncodeError:
            raise fail("is not valid Unicode text (a lone surrogate)", field) from None
        if len(encoded) > MAX_NAME_BYTES or any(len(s.encode()) > MAX_SEGMENT_BYTES for s in name.split("/")):
            raise fail(f"is too long (at most {MAX_NAME_BYTES} bytes, {MAX_SEGMENT_BYTES} per segment)", field)
        if name == layout.MANIFEST:
            raise fail("the manifest may not list itself", field)
        if name in seen:
            raise fail(f"{name!r} is listed twice (also files[{seen[name]}].name)", field)
        seen[name] = index
        entries.append(ManifestEntry(name, item["bytes"], item["sha256"]))
    for index, entry in enumerate(entries):
        parts = entry.name.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in seen:
                raise fail(f"{entry.name!r} lies inside {parent!r}, which files[{seen[parent]}].name lists as a file",
                           f"files[{index}].name")
    return Manifest(doc["case"], doc["run_id"], tuple(entries), raw)


def read_manifest(run_fd: int, *, run: str, path: str, expect: tuple[str, str] | None = None) -> Manifest | None:
    """The validated manifest of the run directory open as ``run_fd``, or None when it has none.

    Raises:
        ManifestError: it is malformed (see :func:`parse_manifest`), a symbolic link, not a regular
            file, or larger than :data:`MANIFEST_LIMITS`.
    """
    try:
        raw = read_file_at(run_fd, layout.MANIFEST, max_bytes=MANIFEST_LIMITS.max_bytes)
    except ArchiveError as exc:
        raise ManifestError(str(exc).removeprefix(f"{layout.MANIFEST}: "), run=run, path=path) from None
    return None if raw is None else parse_manifest(raw, run=run, path=path, expect=expect)


def check_entry(run_fd: int, entry: ManifestEntry) -> str | None:
    """What is wrong with the listed file ``entry`` in the run open as ``run_fd``, or None when it
    matches (size, then sha256). Never follows a symbolic link; a link is a problem naming it."""
    try:
        fd = open_file_at(run_fd, entry.name)
    except ArchiveError as exc:
        return str(exc)
    if fd is None:
        return f"{entry.name}: listed in the manifest but missing"
    with closing(fd):
        size = os.fstat(fd).st_size
        if size != entry.bytes:
            return f"{entry.name}: {size} bytes, manifest says {entry.bytes}"
        digest = digest_fd(fd, limit=entry.bytes)
    if digest.size != entry.bytes:
        return f"{entry.name}: changed while it was read"
    if digest.sha256 != entry.sha256:
        return f"{entry.name}: sha256 differs from the manifest"
    return None


def verify(run_dir: Path) -> list[str]:
    """Problems with ``run_dir`` against its manifest: missing manifest, missing files, size or sha256
    mismatch, a listed name that is a symbolic link. An empty list means the run is complete and intact.

    Raises:
        ManifestError: the manifest is malformed (see :func:`parse_manifest`).
        ArchiveError: ``run_dir`` cannot be opened as a directory.
    """
    run_dir = Path(run_dir)
    run = f"{run_dir.parent.name}/{run_dir.name}"
    try:
        run_fd = open_dir(run_dir)
    except FileNotFoundError:
        raise ArchiveError(f"{run_dir}: no such run directory") from None
    with closing(run_fd):
        manifest = read_manifest(run_fd, run=run, path=str(run_dir / layout.MANIFEST))
        if manifest is None:
            return ["no manifest.json: the run is incomplete"]
        return [problem for entry in manifest.files if (problem := check_entry(run_fd, entry))]

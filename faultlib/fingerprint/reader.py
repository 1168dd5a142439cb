"""Reading a fingerprint back: a file ``faultlib fingerprint --out`` wrote, or the ``fingerprint`` of a run record.

Files are read through the hardened JSON reader (:func:`faultlib.readers.jsondoc.load_json_file`:
bounded size and depth, finite numbers, no duplicate keys, no symlink followed), then checked field
by field: a problem raises :class:`~faultlib.errors.InputError` (exit 2) naming the file and the
field (``packages.torch``; ``fingerprint.packages.torch`` inside a run record).

Records written before fingerprints had a ``format`` (``run.json`` of older runs) are read too: they
hold only the packages a case required, and a ``null`` version there (a package that was not
installed) is read as absent. In a format-1 fingerprint every version is a string.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from faultlib.errors import InputError
from faultlib.fingerprint.environment import FORMAT
from faultlib.readers.files import Limits, MiB, read_bytes
from faultlib.readers.jsondoc import load_json

#: a fingerprint is tens of KB; a run record holding one (and every finding) a few hundred KB
LIMITS = Limits(max_bytes=16 * MiB, max_depth=64, max_nodes=2_000_000)
TORCH_FIELDS = {"version": (str,), "cuda": (str, type(None)), "cudnn": (str, type(None)), "debug": (bool,),
                "config": (str,), "parallel": (str,)}
_TEXT_FIELDS = ("implementation", "platform", "machine")


def load(path: Path | str) -> dict[str, Any]:
    """The fingerprint in ``path``: a fingerprint file, or a run record's (``run.json``) ``fingerprint``.

    Args:
        path: the file (at most 16 MiB; a symlink is refused).

    Returns:
        The fingerprint, checked, with package names canonicalised (see :func:`validate`).

    Raises:
        InputError: the file is missing, empty, not JSON (a truncated file among them), too large, not an
            object, or not a fingerprint (``python`` / ``packages`` missing or mistyped, a version that
            is not a string...), with the file, the line of a syntax error and the field.
    """
    data = read_bytes(path, limits=LIMITS)
    if not data.strip():
        raise InputError("is empty: not a fingerprint (write one with `faultlib fingerprint --out FILE`)",
                         path=str(path))
    doc = load_json(data, path, limits=LIMITS)
    if isinstance(doc, dict) and "fingerprint" in doc and "python" not in doc:  # a run record
        return validate(doc["fingerprint"], path=path, field="fingerprint")
    return validate(doc, path=path)


def validate(fp: Any, *, path: Path | str | None = None, field: str = "") -> dict[str, Any]:
    """Check that ``fp`` is a fingerprint and return a normalised copy.

    Args:
        fp: the parsed document.
        path: the file it came from, for messages.
        field: where ``fp`` sits in that file (``fingerprint`` in a run record), for messages.

    Returns:
        A copy with canonical package names (sorted). In a format-1 fingerprint ``torch`` and
        ``devices`` default to None and []; a record without ``format`` keeps them absent when they
        are (unknown, which :func:`~faultlib.fingerprint.diff` does not compare) and loses its ``null``
        versions.

    Raises:
        InputError: naming the field: not an object, ``format`` unknown, ``python`` not a string,
            ``packages`` not an object of string versions, two names that canonicalise alike with
            different versions, a mistyped ``torch`` or ``devices`` entry.
    """
    def bad(message: str, name: str = "") -> InputError:
        where = ".".join(p for p in (field, name) if p) or "(root)"
        return InputError(message, path=str(path) if path is not None else None, field=where)

    if not isinstance(fp, dict):
        raise bad(f"is {_kind(fp)}, not a fingerprint object (write one with `faultlib fingerprint --out FILE`)")
    legacy = "format" not in fp
    if not legacy and (fp["format"] != FORMAT or isinstance(fp["format"], bool)):
        raise bad(f"format {fp['format']!r} is not one this faultlib reads (it reads {FORMAT})", "format")
    if "python" not in fp or "packages" not in fp:
        missing = " and ".join(k for k in ("python", "packages") if k not in fp)
        raise bad(f"has no {missing}: not a fingerprint (keys: {', '.join(sorted(map(str, fp))[:8]) or 'none'})")
    if fp["python"] is None and not fp["packages"]:  # UNKNOWN, or the placeholder older faultlib wrote
        raise bad("records no environment (python is null, no packages): the run's runner died before recording "
                  "it; use the fingerprint of another run")
    if not isinstance(fp["python"], str):
        raise bad(f"must be a version string, not {_kind(fp['python'])}", "python")
    for name in _TEXT_FIELDS:
        if fp.get(name) is not None and not isinstance(fp[name], str):
            raise bad(f"must be a string, not {_kind(fp[name])}", name)
    out = {k: fp[k] for k in ("python", *_TEXT_FIELDS) if k in fp}
    if not legacy:
        out["format"] = FORMAT
    out["packages"] = _packages(fp["packages"], legacy, bad)
    if not legacy or "torch" in fp:  # an older record never recorded torch's build: unknown, not absent
        out["torch"] = _torch(fp.get("torch"), bad)
    if not legacy or "devices" in fp:
        out["devices"] = _devices(fp.get("devices", []), bad)
    return out


def _packages(value: Any, legacy: bool, bad) -> dict[str, str]:
    if not isinstance(value, dict):
        raise bad(f"must be an object of {{name: version}}, not {_kind(value)}", "packages")
    found: dict[str, str] = {}
    for name, version in value.items():
        if not isinstance(name, str) or not name:
            raise bad(f"package names must be non-empty strings, not {name!r}", "packages")
        if version is None and legacy:
            continue  # an older record: a required package that was not installed
        if not isinstance(version, str) or not version:
            raise bad(f"version must be a non-empty string, not {_kind(version)}", f"packages.{name}")
        key = canonicalize_name(name)
        if found.get(key, version) != version:
            raise bad(f"names the package {key!r} twice with different versions ({found[key]}, {version})",
                      f"packages.{name}")
        found[key] = version
    return dict(sorted(found.items()))


def _torch(value: Any, bad) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad(f"must be null or an object, not {_kind(value)}", "torch")
    if not isinstance(value.get("version"), str):
        raise bad(f"must be a string, not {_kind(value.get('version'))}", "torch.version")
    for key, types in TORCH_FIELDS.items():
        if key in value and not isinstance(value[key], types):
            raise bad(f"must be {' or '.join('null' if t is type(None) else t.__name__ for t in types)}, "
                      f"not {_kind(value[key])}", f"torch.{key}")
    return {k: value[k] for k in TORCH_FIELDS if k in value}


def _devices(value: Any, bad) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise bad(f"must be a list, not {_kind(value)}", "devices")
    for i, device in enumerate(value):
        if not isinstance(device, dict) or not isinstance(device.get("type"), str):
            raise bad("must be an object with a string type", f"devices[{i}]")
    return list(value)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)

"""Updating a re-verified case.yaml: ``version`` gets a PATCH bump and ``verified_with`` the current versions.

Promise: only those two fields change, and every other byte of the file stays as it was: comments,
key order, quoting, flow style, line wrapping, blank lines. The file is read with ruamel.yaml's
round-trip loader, which keeps each scalar's position and quoting style; the new values are then
spliced into the original text at those positions, each in the quoting style of the value it replaces
(new ``verified_with`` entries take the style of the existing ones: double quotes by default). Re-dumping
the whole document would reflow what a person wrapped by hand (a long flow mapping, ``null`` spelled
out), so it is never done.

Before anything is written the new text is parsed again with the hardened reader and must equal the
old document with exactly those two fields replaced, each matching its part of ``case.schema.json``.
The file is then replaced atomically (a temporary sibling renamed over it, its mode kept), only if it
still holds the text that was read (an edit made while the case ran is never overwritten), and the
case must then load (:func:`faultlib.cases.load_case`) or the old text is put back.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faultlib.errors import CaseError, InputError

CASE_FILE = "case.yaml"
_SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
DOUBLE = '"'
_PLAIN_END = re.compile(r"[\s,\]}#]")


def bump_patch(version: str) -> str:
    """The next PATCH version (Semantic Versioning 2.0.0, https://semver.org/#spec-item-6).

    ``1.0.0`` -> ``1.0.1``; a pre-release ends at its release (``1.1.0-rc.1`` -> ``1.1.0``, as
    ``npm version patch`` does); build metadata is dropped.

    Raises:
        ValueError: ``version`` is not ``MAJOR.MINOR.PATCH[-pre][+build]``.
    """
    match = _SEMVER.match(version)
    if not match:
        raise ValueError(f"version {version!r} is not MAJOR.MINOR.PATCH")
    major, minor, patch = (int(g) for g in match.groups()[:3])
    return f"{major}.{minor}.{patch if match.group(4) else patch + 1}"


def verified_versions(required: Iterable[str], fingerprint: dict[str, Any]) -> dict[str, str]:
    """``verified_with`` for a case that passed in the environment ``fingerprint`` describes.

    Args:
        required: the names of the case's ``requires.packages``, as the case spells them.
        fingerprint: a fingerprint (:func:`faultlib.fingerprint.collect`): ``python`` and ``packages``
            keyed by canonical name.

    Returns:
        ``{"python": version, name: version, ...}`` in that order; a package the environment lacks
        is left out.
    """
    from packaging.utils import canonicalize_name

    out = {"python": str(fingerprint["python"])}
    packages = fingerprint.get("packages") or {}
    for name in required:
        version = packages.get(canonicalize_name(name))
        if isinstance(version, str):
            out[name] = version
    return out


@dataclass(frozen=True)
class CaseYamlEdit:
    """A rendered, not yet written, update of one case.yaml.

    Attributes:
        path: the case.yaml.
        before, after: its text now, and with the update.
        old_version, new_version: the ``version`` field.
        verified_with: the new ``verified_with`` mapping.
    """

    path: Path
    before: str
    after: str
    old_version: str
    new_version: str
    verified_with: dict[str, str]

    def diff(self) -> str:
        """The unified diff (3 lines of context) from ``before`` to ``after``; file names relative to the
        working directory (``a/cases/x/case.yaml``) when the file is below it."""
        rel = os.path.relpath(self.path)
        old, new = (f"a/{rel}", f"b/{rel}") if not rel.startswith("..") else (str(self.path), str(self.path))
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            fromfile=old, tofile=new))


def _yaml():
    from ruamel.yaml import YAML

    loader = YAML(typ="rt")
    loader.preserve_quotes = True
    return loader


def _style(value: Any) -> str:
    """``"``, ``'`` or ``""`` (plain) for a scalar ruamel loaded with ``preserve_quotes``."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

    if isinstance(value, DoubleQuotedScalarString):
        return '"'
    if isinstance(value, SingleQuotedScalarString):
        return "'"
    return ""


def _reads_back(text: str) -> bool:
    """Whether ``text`` written plain in a mapping reads back as the same string (``2.0`` is a float)."""
    from ruamel.yaml import YAML

    try:
        return YAML(typ="safe", pure=True).load(f"k: {text}\n") == {"k": text}
    except Exception:  # noqa: BLE001 (any parse failure means: quote it)
        return False


def _scalar(text: str, style: str) -> str:
    """``text`` as a YAML scalar in ``style``; plain falls back to double quotes when it would not read back."""
    if style == "" and _reads_back(text):
        return text
    if style == "'":
        return "'" + text.replace("'", "''") + "'"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _token_end(line: str, col: int) -> int:
    """The column just past the scalar starting at ``line[col]`` (quoted, or plain in block or flow style)."""
    quote = line[col]
    if quote in "\"'":
        i = col + 1
        while i < len(line):
            if quote == '"' and line[i] == "\\":
                i += 2
                continue
            if line[i] == quote:
                if quote == "'" and line[i + 1:i + 2] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        raise ValueError("a quoted scalar continues on the next line")
    match = _PLAIN_END.search(line, col)
    return match.start() if match else len(line.rstrip("\r\n"))


class _Splice:
    """Text edits at (line, column) positions of the original text, applied together."""

    def __init__(self, text: str):
        self.lines = text.splitlines(keepends=True)
        self.edits: list[tuple[int, int, int, str]] = []

    def replace_scalar(self, pos: tuple[int, int], new: str, style: str) -> None:
        line, col = pos
        self.edits.append((line, col, _token_end(self.lines[line], col), _scalar(new, style)))

    def insert(self, line: int, col: int, text: str) -> None:
        self.edits.append((line, col, col, text))

    def end_of(self, line: int) -> int:
        return len(self.lines[line].rstrip("\r\n"))

    def newline(self, line: int) -> str:
        return "\r\n" if self.lines[line].endswith("\r\n") else "\n"

    def text(self) -> str:
        lines = list(self.lines)
        for line, start, end, new in sorted(self.edits, reverse=True):
            lines[line] = lines[line][:start] + new + lines[line][end:]
        return "".join(lines)


def _key_text(key: str) -> str:
    return key if _reads_back(key) and not key.startswith(("'", '"')) else _scalar(key, '"')


def _update_verified(doc, splice: _Splice, versions: dict[str, str]) -> None:
    from packaging.utils import canonicalize_name

    current = doc.get("verified_with")
    if "verified_with" not in doc:
        indent = 2
        requires = doc.get("requires")
        if hasattr(requires, "lc") and requires:
            indent = requires.lc.key(next(iter(requires)))[1] - doc.lc.key("requires")[1] or 2
        last = len(splice.lines) - 1
        nl = splice.newline(last) if splice.lines else "\n"
        head = nl if splice.lines and not splice.lines[last].endswith(("\n", "\r")) else ""
        body = "".join(f"{' ' * indent}{_key_text(k)}: {_scalar(v, DOUBLE)}{nl}" for k, v in versions.items())
        splice.insert(last, len(splice.lines[last]), f"{head}verified_with:{nl}{body}")
        return
    from ruamel.yaml.comments import CommentedMap

    if not isinstance(current, CommentedMap):
        raise CaseError("verified_with is not a mapping: write it as `verified_with: {}` or remove it",
                        field="verified_with")
    by_name = {("python" if k == "python" else canonicalize_name(k)): k for k in current}
    styles = [_style(current[k]) for k in current]
    style = styles[0] if styles else '"'
    added = {}
    for name, version in versions.items():
        key = by_name.get("python" if name == "python" else canonicalize_name(name))
        if key is None:
            added[name] = version
        elif current[key] != version:
            splice.replace_scalar(current.lc.value(key), version, _style(current[key]))
    if not added:
        return
    line, col = doc.lc.value("verified_with")
    flow = bool(current.fa.flow_style()) or splice.lines[line][col:col + 1] == "{"
    if flow:
        pairs = ", ".join(f"{_key_text(k)}: {_scalar(v, style)}" for k, v in added.items())
        if current:
            last = list(current)[-1]
            vline, vcol = current.lc.value(last)
            splice.insert(vline, _token_end(splice.lines[vline], vcol), f", {pairs}")
        else:
            splice.insert(line, col + 1, pairs)
        return
    first = next(iter(current))
    indent = current.lc.key(first)[1]
    last_line = current.lc.value(list(current)[-1])[0]
    nl = splice.newline(last_line)
    body = "".join(f"{nl}{' ' * indent}{_key_text(k)}: {_scalar(v, style)}" for k, v in added.items())
    splice.insert(last_line, splice.end_of(last_line), body)


def render_update(path: Path | str, text: str, versions: dict[str, str]) -> CaseYamlEdit:
    """The update of ``path`` (whose content is ``text``): PATCH bump and ``verified_with`` = ``versions``.

    Args:
        path: the case.yaml (for messages and the diff's file names).
        text: its current text.
        versions: the new ``verified_with`` entries (:func:`verified_versions`); entries the file has for
            other packages are kept as they are.

    Returns:
        The edit (nothing is written).

    Raises:
        CaseError: the file is not a mapping with a semantic ``version``, ``verified_with`` is not a
            mapping, or the update cannot be made without touching other fields (then edit by hand).
    """
    import jsonschema

    from faultlib import schemas
    from faultlib.readers import load_yaml

    path = Path(path)
    old = load_yaml(text, path).data
    try:
        doc = _yaml().load(text)
    except Exception as exc:  # noqa: BLE001 (ruamel's own errors: translated here)
        raise CaseError(f"ruamel.yaml cannot read it for a round trip: {exc}", path=path) from None
    if not isinstance(old, dict) or not hasattr(doc, "lc") or not isinstance(doc.get("version"), str):
        raise CaseError("not a case.yaml with a version field", path=path, field="version")
    try:
        new_version = bump_patch(str(doc["version"]))
    except ValueError as exc:
        raise CaseError(str(exc), path=path, line=doc.lc.key("version")[0] + 1, field="version") from None
    splice = _Splice(text)
    try:
        splice.replace_scalar(doc.lc.value("version"), new_version, _style(doc["version"]))
        _update_verified(doc, splice, versions)
    except CaseError as exc:
        raise CaseError(exc.message, path=path, field=exc.field) from None
    except (ValueError, IndexError) as exc:
        raise CaseError(f"cannot update version and verified_with in place ({exc}): edit them by hand",
                        path=path) from None
    after = splice.text()
    expected = copy.deepcopy(old)
    expected["version"] = new_version
    existing = old.get("verified_with") or {}
    expected["verified_with"] = {**existing, **_renamed(existing, versions)}
    try:
        got = load_yaml(after, path).data
    except InputError as exc:
        raise CaseError(f"the update would not parse ({exc.message}): edit version and verified_with by hand",
                        path=path) from None
    if got != expected:
        raise CaseError("the update would change more than version and verified_with: edit them by hand", path=path)
    for key in ("version", "verified_with"):
        problems = list(jsonschema.Draft202012Validator(schemas.load("case")["properties"][key]).iter_errors(got[key]))
        if problems:
            raise CaseError(f"the updated {key} would not validate: {problems[0].message}", path=path, field=key)
    return CaseYamlEdit(path, text, after, str(doc["version"]), new_version, dict(expected["verified_with"]))


def _renamed(existing: dict[str, Any], versions: dict[str, str]) -> dict[str, str]:
    """``versions`` keyed by the spelling ``existing`` already uses for each package."""
    from packaging.utils import canonicalize_name

    spelled = {canonicalize_name(k): k for k in existing if k != "python"}
    return {("python" if k == "python" else spelled.get(canonicalize_name(k), k)): v for k, v in versions.items()}


def write(edit: CaseYamlEdit) -> None:
    """Replace ``edit.path`` by ``edit.after`` atomically, keeping the file's mode.

    Raises:
        CaseError: the file no longer holds ``edit.before`` (edited meanwhile: not overwritten), or it
            cannot be written.
    """
    from faultlib.readers import read_text

    path = edit.path
    if read_text(path) != edit.before:
        raise CaseError("changed while the case ran: not updated (run faultlib regen again)", path=path)
    try:
        mode = os.stat(path).st_mode & 0o7777
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".regen", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(edit.after)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise CaseError(f"cannot be written: {exc.strerror or exc}", path=path) from None


def update_case(case_dir: Path | str, versions: dict[str, str], *, expected_text: str | None = None,
                dry_run: bool = False) -> CaseYamlEdit:
    """Render (and unless ``dry_run``, write and re-validate) the update of ``case_dir/case.yaml``.

    Args:
        case_dir: the case directory.
        versions: the new ``verified_with`` entries.
        expected_text: the text the file held when the case was selected; when given and the file now
            differs, nothing is written (CaseError).
        dry_run: only render the edit.

    Returns:
        The edit.

    Raises:
        CaseError: see :func:`render_update` and :func:`write`; also when the written case no longer loads
            (the old text is then put back).
    """
    from faultlib.cases import load_case
    from faultlib.readers import read_text

    path = Path(case_dir) / CASE_FILE
    text = read_text(path)
    if expected_text is not None and text != expected_text:
        raise CaseError("changed while the case ran: not updated (run faultlib regen again)", path=path)
    edit = render_update(path, text, versions)
    if dry_run:
        return edit
    write(edit)
    try:
        load_case(case_dir)
    except CaseError:
        write(CaseYamlEdit(path, edit.after, edit.before, edit.new_version, edit.old_version, edit.verified_with))
        raise
    return edit

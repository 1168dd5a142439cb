"""Which line of the standalone ``fastmcp`` package a service runs on: below 3, a plain ``def`` tool runs on the loop.

The standalone ``fastmcp`` (``from fastmcp import FastMCP``, PrefectHQ) runs a synchronous tool in a worker thread only
since 3.0: "Sync threadpool execution (#2865)" is one of the v3 features (https://github.com/PrefectHQ/fastmcp/pull/
2888, ``docs/development/v3-notes/v3-features.mdx``; the tool option ``run_in_thread``, https://gofastmcp.com/docs/
python-sdk/fastmcp-tools-function_tool). The 2.x line, like the MCP SDK's FastMCP 1.x it grew from, calls a sync tool
function directly inside the request's coroutine, on the event loop (ClickHouse's MCP server, pinned
``fastmcp>=2.0.0,<3.0.0``, made its query tool a coroutine for that reason: commit cb75c27). So a service's plain
``def`` tools are entries when the fastmcp it installs is below 3.

The version is read from the service's own dependency files, the nearest to its modules (their folder and up to
:data:`MAX_UP` folders above): a lock file's resolved version (``uv.lock``, ``poetry.lock``) first; else the
requirement in ``pyproject.toml`` (``[project] dependencies``, Poetry's ``[tool.poetry.dependencies]``),
``requirements*.txt`` or ``setup.cfg``, which must rule out every 3.x release (``<3``, ``==2.*``, ``~=2.10``) to count
(PEP 440 specifiers, :mod:`packaging.specifiers`). No file, no fastmcp requirement, or one that admits 3.x: the
newest line is assumed (sync tools in a thread), as before.
"""

from __future__ import annotations

import os
import re

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from faultlib.detect.serving.blocking.declared_requirements import pyproject_requirements
from faultlib.detect.serving.blocking.declared_requirements import read_dependency_file as _read

__all__ = ["fastmcp_before_threads"]

MAX_UP = 3
"""Folders above a module's own that are searched for the service's dependency files."""
THREADED_SINCE = Version("3.0.0")
"""The first fastmcp release that runs sync tools in a thread pool."""
_PROBES = ("3.0.0", "3.0.0rc1", "3.5.0", "4.0.0", "99.0.0")
"""Versions a declared requirement must rule out to pin the 2.x line."""
_LOCKS = ("uv.lock", "poetry.lock")
_REQUIREMENT_LINE = re.compile(r"^\s*fastmcp\b[^#\n]*", re.IGNORECASE | re.MULTILINE)


def fastmcp_before_threads(index) -> bool:
    """Whether the analysed service pins a standalone fastmcp below 3 (see the module docstring); once per index."""
    memo = index.__dict__.get("_faultlib_fastmcp_before_threads")
    if memo is None:
        memo = index.__dict__["_faultlib_fastmcp_before_threads"] = _pinned(index)
    return memo


def _pinned(index) -> bool:
    folders: list[str] = []
    for module in index.distinct_modules():
        if "fastmcp" in module.source and module.path:
            folder = os.path.dirname(os.path.abspath(module.path))
            for _ in range(MAX_UP + 1):
                if folder not in folders:
                    folders.append(folder)
                folder = os.path.dirname(folder)
    folders.sort(key=lambda f: -f.count(os.sep))  # the nearest (deepest) first
    for folder in folders:
        verdict = _verdict(folder)
        if verdict is not None:
            return verdict
    return False


def _verdict(folder: str) -> bool | None:
    """True/False when ``folder``'s files say which fastmcp line is installed, None when they say nothing."""
    for name in _LOCKS:
        version = _locked(os.path.join(folder, name))
        if version is not None:
            return version < THREADED_SINCE
    specs = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        path = os.path.join(folder, name)
        if name == "pyproject.toml":
            specs += _pyproject(path)
        elif (name.startswith("requirements") and name.endswith(".txt")) or name == "setup.cfg":
            specs += [m.group(0) for m in _REQUIREMENT_LINE.finditer(_read(path))]
    found = [s for s in (_specifier(text) for text in specs) if s is not None]
    if not found:
        return None
    return all(not _admits_threads(spec) for spec in found)


def _admits_threads(spec: SpecifierSet) -> bool:
    """Whether ``spec`` admits some fastmcp 3.x or later: one of :data:`_PROBES`, or a version it names itself
    (``==3.4.2``, ``>=3.1``)."""
    named = []
    for one in spec:
        try:
            named.append(Version(one.version.rstrip(".*")))
        except InvalidVersion:
            continue
    candidates = [*(Version(v) for v in _PROBES), *(v for v in named if v >= THREADED_SINCE)]
    return any(spec.contains(v, prereleases=True) for v in candidates)


def _locked(path: str) -> Version | None:
    """The fastmcp version a ``uv.lock``/``poetry.lock`` resolved (``[[package]] name = "fastmcp" version = ...``)."""
    text = _read(path)
    found = re.search(r'^name = "fastmcp"\s*\nversion = "([^"]+)"', text, re.MULTILINE)
    try:
        return Version(found.group(1)) if found else None
    except InvalidVersion:
        return None


def _pyproject(path: str) -> list[str]:
    found, poetry, _groups = pyproject_requirements(path)
    value = poetry.get("fastmcp")
    if isinstance(value, dict):
        value = value.get("version")
    if isinstance(value, str):
        found.append("fastmcp" + _poetry_spec(value))
    return found


def _poetry_spec(value: str) -> str:
    """A Poetry constraint as a PEP 440 one (``^2.3`` is ``>=2.3,<3``; ``~2.3`` is ``>=2.3,<2.4``)."""
    value = value.strip()
    if value.startswith("^"):
        head = value[1:].split(".")[0]
        return f">={value[1:]},<{int(head) + 1}" if head.isdigit() and head != "0" else f"=={value[1:]}.*"
    if value.startswith("~") and not value.startswith("~="):
        return f"~={value[1:]}.0" if value[1:].count(".") == 1 else f"=={value[1:]}"
    return value if value[:1] in "<>=!~" else (f"=={value}" if value not in ("*", "") else "")


def _specifier(text: str) -> SpecifierSet | None:
    """The version specifier of a ``fastmcp`` requirement line, or None (another package, or unparsable)."""
    try:
        requirement = Requirement(text.split(";")[0].strip())
    except InvalidRequirement:
        return None
    if requirement.name.lower() != "fastmcp":
        return None
    try:
        return SpecifierSet(str(requirement.specifier))
    except InvalidSpecifier:
        return None

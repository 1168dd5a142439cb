"""The distributions a service declares it needs: what ``pip install`` of the service puts beside it.

A service names its dependencies in ``pyproject.toml`` (``[project] dependencies``, PEP 621:
https://packaging.python.org/en/latest/specifications/pyproject-toml/#dependencies-optional-dependencies; Poetry's
``[tool.poetry.dependencies]`` and its dependency groups, which ``poetry install`` installs unless the group is
marked ``optional = true`` ("By default, dependencies across all non-optional groups will be installed when
executing ``poetry install``": https://python-poetry.org/docs/managing-dependencies/#installing-group-dependencies;
an entry marked ``optional = true`` is an extra's and left out) or in ``requirements.txt`` (one
requirement per line, PEP 508; options, includes and comments skipped:
https://pip.pypa.io/en/stable/reference/requirements-file-format/). Optional extras and optional groups
(``requirements-dev.txt``, ``[project.optional-dependencies]``) are not what the service runs with and do not count,
nor is a requirement under an environment marker.
The files are looked for in the folder of a module and up to :data:`MAX_UP` folders above it, where the benchmark
and a repository keep them; the nearest folder that has one of the files answers. Read with the project's hardened
reader (bounded, a link not followed); a file that cannot be read or parsed declares nothing.
"""

from __future__ import annotations

import os
import re

import tomllib
from packaging.requirements import InvalidRequirement, Requirement

from faultlib.errors import InputError
from faultlib.readers.files import read_bytes

__all__ = ["declared_distributions", "normalized", "pyproject_requirements", "read_dependency_file", "toml_table"]

MAX_UP = 3
"""Folders above a module's own that are searched for the service's dependency files."""
_FILES = ("pyproject.toml", "requirements.txt")


def read_dependency_file(path: str) -> str:
    """A dependency file's text through the project's hardened reader (bounded, a link not followed); "" when it is
    absent, unreadable, too big or a link (a file that cannot be read says nothing)."""
    if not os.path.isfile(path):
        return ""
    try:
        return read_bytes(path).decode("utf-8", errors="replace")
    except (InputError, OSError):
        return ""


def toml_table(owner: object, key: str) -> dict:
    """``owner[key]`` when ``owner`` is a TOML table holding a table there, else ``{}``."""
    value = owner.get(key) if isinstance(owner, dict) else None
    return value if isinstance(value, dict) else {}


def normalized(name: str) -> str:
    """A distribution or import name compared the PEP 503 way (case, ``-``, ``_`` and ``.`` alike)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def declared_distributions(module_path: str) -> frozenset[str]:
    """The :func:`normalized` names of the distributions the service of the module at ``module_path`` requires
    (see the module docstring); empty when no dependency file is found."""
    folder = os.path.dirname(os.path.abspath(module_path))
    for _ in range(MAX_UP + 1):
        if any(os.path.isfile(os.path.join(folder, name)) for name in _FILES):
            return _declared_in(folder)
        folder = os.path.dirname(folder)
    return frozenset()


def _declared_in(folder: str) -> frozenset[str]:
    names = _pyproject(os.path.join(folder, "pyproject.toml"))
    for line in _requirement_lines(read_dependency_file(os.path.join(folder, "requirements.txt"))):
        names += _name(line)
    return frozenset(names)


def _requirement_lines(text: str) -> list[str]:
    """The requirements of a requirements file's ``text``, as pip reads it: a line ending in ``\\`` continues on
    the next, a ``#`` after whitespace (or at the start) begins a comment, a line starting with ``-`` is an option or
    an include, and a requirement's own options (``--hash=sha256:...``, which ``pip-compile --generate-hashes``
    writes on continuation lines) follow it (https://pip.pypa.io/en/stable/reference/requirements-file-format/
    "Line continuations", "Comments", "Per-requirement options")."""
    found = []
    for line in re.sub(r"\\\r?\n", " ", text).splitlines():
        line = re.split(r"(?:^|\s)#", line)[0].strip()
        if line and not line.startswith("-"):
            found.append(re.split(r"\s--?[a-z]", line)[0].strip())
    return found


def pyproject_requirements(path: str) -> tuple[list[str], dict, list[dict]]:
    """What the ``pyproject.toml`` at ``path`` requires: the PEP 621 ``[project] dependencies`` strings, Poetry's
    ``[tool.poetry.dependencies]`` table and the dependency tables of its non-optional groups (empty when the file is
    absent or not valid TOML)."""
    try:
        data = tomllib.loads(read_dependency_file(path))
    except tomllib.TOMLDecodeError:
        return [], {}, []
    listed = toml_table(data, "project").get("dependencies")
    poetry = toml_table(toml_table(data, "tool"), "poetry")
    groups = [toml_table(group, "dependencies") for group in toml_table(poetry, "group").values()
              if isinstance(group, dict) and group.get("optional") is not True]
    return ([r for r in listed if isinstance(r, str)] if isinstance(listed, list) else [],
            toml_table(poetry, "dependencies"), groups)


def _pyproject(path: str) -> list[str]:
    listed, poetry, groups = pyproject_requirements(path)
    names = [n for r in listed for n in _name(r)]
    for table in [poetry, *groups]:
        for name, spec in table.items():
            if name.lower() != "python" and not (isinstance(spec, dict) and (
                    spec.get("optional") is True or "markers" in spec or "platform" in spec)):
                names.append(normalized(name))
    return names


def _name(text: str) -> list[str]:
    """The requirement's name; none for one that holds only under an environment marker (``; sys_platform ==
    "linux"``), which may not be installed where the service runs."""
    try:
        requirement = Requirement(text.strip())
    except InvalidRequirement:
        return []
    return [] if requirement.marker is not None else [normalized(requirement.name)]

"""File paths a project names in its YAML or INI configuration, for the leakage analysis of files handed on.

MLOps templates keep every stage's paths in a ``config.yaml`` and read them through a configuration object::

    # config.yaml                                   # grid_search.py
    model_trainer:                                  X_train = pd.read_csv(self.config.X_train_path)
      X_train_path: data/processed/X_train_scaled.csv

The normalisation stage writes ``X_train_scaled.csv`` after fitting a scaler on every training row and the search
stage cross-validates what it reads from ``self.config.X_train_path``; from the Python alone that read names no
file, so the scaler fitted before the search's folds was never joined with them (wave 61: a DVC exam project with
a ``ConfigurationManager`` and entity dataclasses). :func:`config_key_paths` reads the project's YAML files (the
hardened reader, :mod:`faultlib.readers.yamldoc`) and keeps each mapping key whose values are file paths and agree
(one path for the key across every file); an attribute or a string subscript with that name
(``cfg.X_train_path``, ``config["X_train_path"]``) then names that file (:func:`~.pathexprs.path_of`). A key
bound to two different paths names nothing (no guess).

Scripts that keep their paths in an INI file read them with the standard library's ``configparser``
(``config.read("config.ini")``, then ``TRAIN = config["DATA"]["CURATED_TRAINING_DATA"]``): the option names one
file as a YAML key does, and is read the same way (wave 89: a learning-to-rank pipeline's stages wrote and read
their Parquet tables at the paths of its ``config.ini``). An INI file is read as text through the hardened reader
and parsed by ``configparser`` without interpolation (Python library reference, ``configparser``: sections of
``key = value`` options; option names are matched as written and in lower case, the parser's default).

Bounds: at most :data:`MAX_FILES` YAML and INI files under the project's root, folders of runs, caches and
environments skipped; a file that does not parse, or breaks the reader's bounds, is left out.
"""

from __future__ import annotations

import ast
import configparser
import os
import re
from pathlib import Path
from typing import Any

from faultlib.detect.data.leakage.pathexprs import FilePath, path_of

#: the most YAML files read under one project root
MAX_FILES = 30
#: folders never read (experiment runs, caches, environments, vendored packages)
_SKIP = frozenset({"mlruns", "wandb", "outputs", "multirun", "node_modules", "site-packages", "venv", ".venv", "env",
                   "__pycache__", "build", "dist"})
#: a value that is a file path: no spaces, ends in a short extension (``.csv``, ``.npy``, ``.parquet``, ``.pkl``)
_FILE = re.compile(r"^[^\s]+\.[A-Za-z][A-Za-z0-9]{0,7}$")


#: the endings of the configuration files read (YAML documents, ``configparser`` INI files)
_ENDINGS = (".yaml", ".yml", ".ini", ".cfg")


def _walk(value: Any, found: dict[str, set[str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and isinstance(item, str) and _FILE.match(item) and len(item) < 400:
                found.setdefault(key, set()).add(item)
            else:
                _walk(item, found)
    elif isinstance(value, list):
        for item in value:
            _walk(item, found)


def _yaml_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP)
        out.extend(Path(dirpath) / n for n in sorted(filenames) if n.endswith(_ENDINGS))
        if len(out) >= MAX_FILES:
            return out[:MAX_FILES]
    return out


def config_key_paths(root: str) -> dict[str, FilePath]:
    """``{key: FilePath}`` for every key of the YAML files under ``root`` whose values are one file path, as the files
    read now. Not memoised here: its one caller, the index of :mod:`.repofiles`, is kept by a key that covers these
    files' texts, so it asks only when an index is built (a memo by ``root`` gave a changed file's old paths)."""
    from faultlib.errors import InputError
    from faultlib.readers.yamldoc import load_yaml_file

    found: dict[str, set[str]] = {}
    for path in _yaml_files(Path(root)):
        try:
            data = _ini(path) if path.suffix in (".ini", ".cfg") else load_yaml_file(path).data
        except (InputError, OSError, ValueError, configparser.Error):
            continue
        _walk(data, found)
    out = {}
    for key, values in found.items():
        if len(values) == 1 and (path := path_of(ast.Constant(next(iter(values))), None, 0)) is not None:  # type: ignore[arg-type]
            out[key] = path
    return out


def _ini(path: Path) -> dict[str, dict[str, str]]:
    """An INI file's sections as ``{section: {option: value}}``, each option also under its lower-case name."""
    from faultlib.readers import read_text

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # (the names as written)
    parser.read_string(read_text(path), source=str(path))
    return {name: {**{k.lower(): v for k, v in section.items()}, **dict(section.items())}
            for name, section in parser.items()}


__all__ = ["config_key_paths"]

"""File paths a project names in the class attributes of its configuration classes, for the leakage analysis of
files handed on.

MLOps templates (a ``config_entity.py`` of dataclasses, one per pipeline stage, beside an ``artifact_entity.py``)
keep every stage's paths as class attributes built from constants of other modules::

    # core/entities/config_entity.py
    from core.constants.data_constant import *            # PREPARED_FILE: str = "prepared.csv"
    @dataclass
    class PreparationConfig:
        prepared_dir: str = os.path.join(from_root(), ARTIFACTS_DIR, "prepared")
        prepared_file_path: str = os.path.join(prepared_dir, PREPARED_FILE)

    # data/preparation.py                                 # data/split.py
    save_data(df, self.preparation_config.prepared_file_path)
                                                          data = read_data(self.preparation_artifact.prepared_file_path)
                                                          train, test = train_test_split(data)

The preparation stage fits a scaler and a median fill on every row and saves the table; the next stage, run by the
project's pipeline class, reads it back through the *artifact* entity (whose field of the same name the preparation
stage filled from its config) and splits it. From either file alone the path is an attribute of an object passed in,
so the write and the read named no file and the fit before the split was never joined with it (issue 17, wave 98: a
hotel-cancellation project's ``DataPreprocessing`` and ``DataSplit`` stages).

:func:`class_attribute_paths` reads, in every module of the repository, the attributes assigned in the body of a
top-level class (``name: str = expr`` or ``name = expr``), resolving each with the class body's earlier attributes,
the module's own names and the repository's module constants (:class:`~.pathexprs.PathEnv`: ``from_root()`` or
``os.getcwd()`` is a folder unknown at run time, so the file name still links, ``exact=False``). An attribute that
names a file (its last component has an extension) becomes a configuration key, as a key of the project's YAML does
(:mod:`.yamlpaths`): an attribute of that name on any object (``self.config.prepared_file_path``,
``artifact.prepared_file_path``) names that file (:func:`~.pathexprs.path_of`). A name bound to two different files
(two classes, or a class and a YAML key) names nothing (no guess).

Source: the Python language reference, 9.3 "A first look at classes" (class attributes are names bound in the class
body, evaluated in order, earlier ones visible to later ones) and ``dataclasses`` (annotated class attributes are the
fields' defaults).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.pathexprs import FilePath, PathEnv


def _class_fields(cls: ast.ClassDef) -> list[tuple[str, ast.stmt]]:
    out = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            out.append((stmt.target.id, stmt))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            out.append((stmt.targets[0].id, stmt))
    return out


def class_attribute_paths(trees: list[ast.Module], modules: dict[str, dict[str, FilePath]]) -> dict[str, set[FilePath]]:
    """``{attribute: {FilePath, ...}}`` for the class attributes of ``trees`` that name a file (see the module
    docstring); ``modules``: the repository's top-level path constants by module stem (:mod:`.repofiles`)."""
    found: dict[str, set[FilePath]] = {}
    for tree in trees:
        # the module's imports and constants (a session's joined members: theirs too), then the class body
        top = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))]
        for cls in (s for s in tree.body if isinstance(s, ast.ClassDef)):
            fields = _class_fields(cls)
            if not fields:
                continue
            body = ast.Module(body=[*top, *(stmt for _, stmt in fields)], type_ignores=[])
            env = PathEnv(body, None, modules)  # the class body read as a scope of its own, in order
            for name, stmt in fields:
                path = env.lookup(name, stmt.lineno)
                if path is not None and "." in path.name:
                    found.setdefault(name, set()).add(path)
    return found


def merged_keys(keys: dict[str, FilePath], attributes: dict[str, set[FilePath]]) -> dict[str, FilePath]:
    """The YAML keys (:mod:`.yamlpaths`) with the class attributes added; a name that two of them bind to different
    files is left out."""
    out = dict(keys)
    for name, paths in attributes.items():
        both = paths | ({keys[name]} if name in keys else set())
        if len(both) == 1:
            out[name] = next(iter(both))
        else:
            out.pop(name, None)
    return out


__all__ = ["class_attribute_paths", "merged_keys"]

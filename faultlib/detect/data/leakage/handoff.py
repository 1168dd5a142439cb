"""Data handed from one script to the next through a file, for the static leakage analysis.

Competition code often prepares features in one script and trains in another: ``prep.py`` ends with
``train.to_feather('../data/train_feats.f')``, ``model.py`` starts with ``pd.read_feather('../data/train_feats.f')``.
Run as one program (a session: :mod:`~faultlib.detect.data.leakage.session`; a writer and the scripts that read
what it writes: :mod:`~faultlib.detect.data.leakage.repofiles`), or in one script that writes and re-reads, the
table read back is the table written: its rows and the fits that shaped them. Which calls write and read, and
which file a path expression names (literals, ``os.path.join``, ``pathlib``, f-strings and ``%``/``format`` with
known parts, constants of the script or of a config module of the repository), is
:mod:`~faultlib.detect.data.leakage.pathexprs`; a path that cannot be known is not followed (the file is then a
new table, as before).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.callerpaths import CallerPaths
from faultlib.detect.data.leakage.classpaths import class_attribute_paths, merged_keys
from faultlib.detect.data.leakage.configmods import imported_module_constants
from faultlib.detect.data.leakage.filefamilies import (
    read_ending,
    same_family,
    written_ending,
)
from faultlib.detect.data.leakage.passedfiles import call_file_table, passed_file_table
from faultlib.detect.data.leakage.passedpaths import CallChainPaths, passed_path
from faultlib.detect.data.leakage.pathexprs import (
    FilePath,
    PathEnv,
    file_access,
    path_of,
    same_file,
)
from faultlib.detect.data.leakage.repofiles import member_constants
from faultlib.detect.data.leakage.savedreach import SavedReach
from faultlib.detect.data.leakage.sharedinputs import SharedInputs
from faultlib.detect.data.leakage.wrapped import scoped_bindings
from faultlib.pyflow.values import Container, Tup


class FileHandoff(CallChainPaths, SavedReach, SharedInputs):
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: what a script writes to a known path, a
    later read of that path returns (see the module docstring).

    Attributes:
        repo_files: the :class:`~faultlib.detect.data.leakage.repofiles.RepoFiles` of the repository the code is in
            (its modules' path constants, which file names are written at one place only), or ``None``: the
            program's own code only.
        preferred_read: the file a read of a path its callers pass (``pd.read_csv(name)`` in a function called
            in a loop over file names) returns, when it is one of them (:func:`~.repofiles.handed_on` sets it).
    """

    repo_files: Any = None
    preferred_read: FilePath | None = None

    def _written(self) -> list[tuple[FilePath, Any]]:
        if not hasattr(self, "_handoff"):
            self._handoff: list[tuple[FilePath, Any]] = []
            segments = [(start, start + count - 1) for _, start, count in (self.smap.files or ())]  # type: ignore
            modules = self.repo_files.modules if self.repo_files is not None else {
                **imported_module_constants(self.smap.file, self.tree),  # type: ignore[attr-defined]
                **member_constants([name for name, _, _ in self.smap.files or ()])}  # type: ignore[attr-defined]
            # (yamlpaths.py; alone: the path attributes of the configuration classes the program defines, classpaths.py)
            keys = self.repo_files.config_keys if self.repo_files is not None else merged_keys(
                {}, class_attribute_paths([self.tree], modules))  # type: ignore[attr-defined]
            self._path_env = PathEnv(self.tree, segments or None, modules, keys)  # type: ignore[attr-defined]
            self._callers = CallerPaths(self.tree, self._path_env, segments or None)  # type: ignore[attr-defined]
        return self._handoff

    def _access(self, node: ast.Call) -> tuple[str, FilePath, int | None] | None:
        self._written()
        return self._known(file_access(node, self._path_env), node.lineno)

    def _known(self, access: tuple[str, Any, int | None] | None, line: int) -> tuple[str, FilePath, int | None] | None:
        """A :func:`file_access` answer with its path expression read as a path; ``None`` when that is unknown."""
        if access is None:
            return None
        path = self._chain_path(access[1], line)  # (also a parameter that holds a path its call passed)
        return (access[0], path, access[2]) if path is not None else None

    def _remember_family(self, path: Any, value: Any, node: ast.Call) -> None:
        """A write to a path known only by its name's ending: kept for a later read of the same family."""
        bindings = scoped_bindings(self._bindings, self.tree, node.lineno)  # type: ignore[attr-defined]
        ending = written_ending(path, bindings)
        if ending is not None:
            families = self.__dict__.setdefault("_families", {})
            families[ending] = value

    def _read_family(self, path: Any, node: ast.Call) -> Any:
        """What was last written to a file of the family a read's filtered listing names, or ``None``."""
        families = self.__dict__.get("_families")
        if not families:
            return None
        bindings = scoped_bindings(self._bindings, self.tree, node.lineno)  # type: ignore[attr-defined]
        ending = read_ending(path, node, self.tree, bindings)  # type: ignore[attr-defined]
        return next((v for e, v in reversed(families.items()) if ending is not None and same_family(e, ending)),
                    None)

    def _unique(self, name: str) -> bool:
        if self.repo_files is not None:
            return self.repo_files.name_unique(name)
        return len({p for p, _ in self._written() if p.name == name}) == 1

    def _remember(self, path: FilePath, value: Any) -> None:
        from faultlib.detect.data.leakage.values import maybe_data

        data = maybe_data(value)
        if data is None and not isinstance(value, (Tup, Container)):
            return
        written = self._written()
        written[:] = [(p, v) for p, v in written if p != path]
        written.append((path, data if data is not None else value))
        parts = value.items if isinstance(value, Tup) else value.items.values() if isinstance(value, Container) else ()
        taints = [t for d in [data, *map(_held, parts)] if d is not None for t in d.taints]
        if taints and path not in self.report.fitted_writes:  # type: ignore[attr-defined]
            self.report.fitted_writes.append(path)  # type: ignore[attr-defined]
        for line in {n for t in taints for n in self._statement_lines(t.line)}:
            at = self.smap.where(line)  # type: ignore[attr-defined]
            self.report.written_fits.add((at.get("file", self.smap.file), at.get("index", 0),  # type: ignore
                                          at["line"]))

    def _statement_lines(self, line: int) -> range:
        """The lines of the top-level statement holding ``line`` (a fit's finding names the statement's first line,
        its rows may be traced to a line inside it), at most 200."""
        node = next((n for n in self.tree.body if n.lineno <= line <= (n.end_lineno or n.lineno)),  # type: ignore
                    None)
        if node is None:
            return range(line, line + 1)
        return range(node.lineno, min(node.end_lineno or line, node.lineno + 199) + 1)

    def _read_back(self, path: FilePath) -> Any:
        for written, value in reversed(self._written()):
            if same_file(written, path, self._unique):
                self.report.read_back = True  # type: ignore[attr-defined]
                return value  # the table written there earlier in the program
        return None

    def _read_back_passed(self, access: tuple[str, Any, int | None] | None, line: int) -> Any:
        """A read of a path its callers pass (``pd.read_csv(name)``, ``name`` a parameter or a loop variable:
        callerpaths.py; ``access`` the call's :func:`file_access`): the table written at one of those paths:
        :attr:`preferred_read` when it is one (the repository's pass runs the reader once for each file it may
        name), else the first one a fit shaped."""
        if access is None or access[0] != "read" or access[1] is None:
            return None
        found = [(p, v) for p in self._callers.paths(access[1], line) if (v := self._read_back(p)) is not None]
        chosen = [v for p, v in found if self.preferred_read is not None and p == self.preferred_read]
        return next(iter(chosen), next((v for _, v in found if getattr(_held(v), "taints", None)),
                                       found[0][1] if found else None))

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        access = self._access(node) if name.startswith("to_") else None
        if access is not None and access[0] == "write" and access[2] is None:
            self._remember(access[1], receiver)  # train.to_feather('../data/train_feats.f')
            return self._while_writing(access[1], super()._method_value, receiver, name, args, kwargs, node, frame)
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _while_writing(self, path: FilePath | None, call: Any, *args: Any) -> Any:
        """``call(*args)`` with ``_writing`` naming the file it writes (savedreach.py; ``None``: unknown)."""
        before, self._writing = self._writing, path
        try:
            return call(*args)
        finally:
            self._writing = before

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        self._written()
        raw = file_access(node, self._path_env)  # asked once: every library call passes here
        access = self._known(raw, node.lineno)
        written = _written_value(raw, args, kwargs, node)
        if raw is not None and raw[0] == "write" and access is None and written is not None:
            self._remember_family(raw[1], written, node)  # np.savez(join(d, f"{name}_seg.npz"), X=X) (filefamilies.py)
        elif raw is not None and raw[0] == "read" and access is None and (
                value := self._read_family(raw[1], node)) is not None:
            return value  # np.load(join(folder, fname)) for the fname of a listing filtered on the same ending
        if access is not None and access[0] == "write" and written is not None:
            self._remember(access[1], written)  # np.save(path, X), joblib.dump(X, path), np.savez(path, X=X, y=y)
            return self._while_writing(access[1], super()._library, ref, args, kwargs, node, frame)
        elif access is not None and access[0] == "read":
            value = self._read_back(access[1])
            if value is not None:
                return value
            if raw is not None and path_of(raw[1], self._path_env, node.lineno) is None:
                return call_file_table(access[1], node, separate_test=self._separate_test_file,  # type: ignore
                                       sole=self._sole_data_file)  # read_csv(path) in a helper: this call's file
            shared = self._shared_input(access[1], node.lineno)  # one input file, read by two members of a join
            return shared if shared is not None else self._keep_input(access[1], node, super()._library(
                ref, args, kwargs, node, frame))  # (sharedinputs.py)
        elif (value := self._read_back_passed(raw, node.lineno)) is not None:
            return value
        elif raw is not None and raw[0] == "read" and (passed := passed_path(raw[1], args, kwargs, node,
                                                                             self._path_env)) is not None and (
                value := self._read_back(passed)) is not None:
            return value  # pd.read_csv(name), name the constant this call of its function was given
        if raw is not None and raw[0] == "read" and access is None and ref.last in vocab.FILE_READERS:
            table = passed_file_table(self._callers.paths(raw[1], node.lineno), node,
                                      separate_test=self._separate_test_file)  # type: ignore[attr-defined]
            if table is not None:  # clean(os.path.join(base, 'data', 'test.csv')): the file every caller names
                return table  # (passedfiles.py)
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]


def _written_value(raw: tuple[str, Any, int | None] | None, args: list[Any], kwargs: dict[str, Any],
                   node: ast.Call) -> Any:
    """What a library writer writes: its value argument, or the named arrays of ``np.savez(path, X=X, y=y)``
    (NumPy reference, ``numpy.savez``: "arrays to save to the file... saved in the file with the keyword names"; read
    back, ``np.load(path)['X']`` is that array), a dict of them."""
    if raw is None or raw[0] != "write" or raw[2] is None:
        return None
    if len(args) > raw[2]:
        return args[raw[2]]
    name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    named = {k: v for k, v in kwargs.items() if k not in ("file", "allow_pickle")}
    return Container(named) if name in ("savez", "savez_compressed") and named else None


def _held(value: Any) -> Any:
    """The data a value already is (no new data root is made for an opaque value)."""
    from faultlib.detect.data.leakage.values import Data, MaybeData

    return value if isinstance(value, Data) else value._data if isinstance(value, MaybeData) else None


__all__ = ["FileHandoff"]

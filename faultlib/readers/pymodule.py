"""Loading a user's Python file for the checks that must run the user's code (``FILE.py:NAME``).

Importing the user's file is what such a check is for (a Dataset class, a model factory, a collate
function): the file is read through the hardened reader (a regular ``.py`` file, no symlink, UTF-8,
bounded), compiled and executed with importlib as a fresh module; nothing goes through a shell.
Every failure is an :class:`~faultlib.errors.InputError` naming the file and the line.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

from faultlib.errors import InputError

MAX_SOURCE_BYTES = 8 << 20


def split_target(target: str, option: str) -> tuple[Path, str]:
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise InputError(f"{option} must be FILE.py:NAME, got {target!r}", field=option)
    return Path(path), name


def user_line(exc: BaseException, path: Path) -> int | None:
    """The last line of ``path`` in the traceback of ``exc`` (where the user's code failed)."""
    if isinstance(exc, SyntaxError) and exc.filename == str(path):
        return exc.lineno
    line = None
    names = {str(path), str(Path(path).resolve())}
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in names:
            line = frame.lineno
    return line


@contextlib.contextmanager
def user_code(path: Path):
    """While the user's code runs: its directory first on sys.path, its prints on stderr."""
    directory = str(Path(path).resolve().parent)
    sys.path.insert(0, directory)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(directory)


def load_module(path: Path, *, option: str) -> Any:
    """Execute the user's ``.py`` file as a fresh module (read through the hardened reader).

    Raises:
        InputError: not a ``.py`` file, missing, unreadable, not UTF-8, invalid Python, or its import raised
            (with the line in the file).
    """
    from faultlib.readers.files import Limits, read_text

    if path.suffix != ".py":
        raise InputError(f"{option}: not a Python file (expected FILE.py:NAME)", path=str(path))
    source = read_text(path, limits=Limits(max_bytes=MAX_SOURCE_BYTES))
    path = path.resolve()
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_name = f"_faultlib_user_{path.stem if path.stem.isidentifier() else 'module'}_{digest}"
    spec = importlib.util.spec_from_loader(module_name, loader=None, origin=str(path))
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(path)
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise InputError(f"invalid Python: {exc.msg}", path=str(path), line=exc.lineno) from None
    sys.modules[module_name] = module  # dataclasses and pickling look the module up by name
    try:
        exec(code, module.__dict__)  # noqa: S102 - importing the user's dataset file is what the check is for
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt from the file too
        sys.modules.pop(module_name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise InputError(f"importing it raised {type(exc).__name__}: {exc}", path=str(path),
                         line=user_line(exc, path)) from None
    return module


def resolve(module: Any, path: Path, name: str, option: str, *, defined_here: bool = False) -> Any:
    """``module.name`` (dotted names allowed).

    Args:
        defined_here: ``name`` must be something ``path`` defines (a class, a function, a value, or an attribute of
            one: ``Corpus.build``), never reached through a module it imports nor a function or class it imports
            (``os.system``, ``os.abort`` would be called with no arguments).

    Raises:
        InputError: the file defines no such name (the message lists what it does define), or, with
            ``defined_here``, the name leads into a module or to something the file imports.
    """
    import inspect

    value: Any = module
    walked: list[str] = []
    for part in name.split("."):
        if not hasattr(value, part):
            defined = sorted(k for k, v in vars(module).items() if not k.startswith("_") and callable(v)
                             and (not defined_here or _defined_in(v, module)))
            raise InputError(f"defines no {name!r} ({option}); callables it defines: {', '.join(defined) or 'none'}",
                             path=str(path), field=name)
        value = getattr(value, part)
        walked.append(part)
        if not defined_here:
            continue
        if inspect.ismodule(value) or (len(walked) == 1 and not _defined_in(value, module)):
            what = (f"the module {value.__name__!r}" if inspect.ismodule(value) else
                    f"{'.'.join(walked)!r} from {getattr(value, '__module__', None) or 'elsewhere'}")
            defined = sorted(k for k, v in vars(module).items() if not k.startswith("_") and callable(v)
                             and _defined_in(v, module))
            raise InputError(f"{name!r} ({option}) is not defined in this file: it imports {what}; name a class or "
                             f"function the file defines: {', '.join(defined) or 'none'}", path=str(path), field=name)
    return value


def _defined_in(value: Any, module: Any) -> bool:
    """A class or function defined by ``module`` itself (other values, e.g. an instance or a ``partial``, count as
    the file's own); never a module."""
    import inspect

    if inspect.ismodule(value):
        return False
    if inspect.isclass(value) or inspect.isfunction(value) or inspect.isbuiltin(value):
        return getattr(value, "__module__", None) == module.__name__
    return True

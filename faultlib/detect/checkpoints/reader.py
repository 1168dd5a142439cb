"""Reading one checkpoint file safely: identify its bytes, load only what ``weights_only=True`` allows.

Every file goes through :func:`faultlib.readers.files.map_file` (a regular file, no symlink, at most
``max_bytes``, mapped copy-on-write, never read whole into memory), then its bytes are identified before
anything parses them:

- a PyTorch zip archive (``torch.save``): the zip directory is checked with :mod:`zipfile` (a file cut
  off mid-write has none: ``truncated``), every record's CRC-32 is verified (``torch.load`` does not:
  a flipped bit in tensor data would load silently), TorchScript archives and zips without ``data.pkl`` are
  refused, the pickle's globals are listed statically with
  ``torch.serialization.get_unsafe_globals_in_checkpoint`` (nothing is unpickled to find them), and
  only then is it loaded with ``torch.load(..., weights_only=True, map_location="cpu", mmap=True)``;
- a legacy ``torch.save`` file (``_use_new_zipfile_serialization=False``): ``torch.load(...,
  weights_only=True)``; when it refuses, the globals its pickles import are listed statically and the
  ones that are not torch's own are named (``posix.system``), never "corrupt";
- a safetensors file: its JSON header is read with :func:`faultlib.readers.load_json` (bounded,
  no duplicate keys), every tensor's dtype, shape and byte range is checked against the data, and
  the tensors are built with ``torch.frombuffer``: no third-party parser, no pickle;
- a plain pickle: never loaded; its globals are listed with :mod:`pickletools` (static);
- anything else is named when it is recognisable (a Git LFS pointer, an HTML error page, NumPy,
  HDF5, gzip, text).

Nothing in faultlib unpickles a checkpoint any other way. A file that fails is described by an
:class:`UnloadableCheckpoint` (an :class:`~faultlib.errors.InputError`: exit 2 where a command needs
the file) whose ``kind`` is one of :data:`FILE_KINDS`. :mod:`faultlib.detect.checkpoints.scan` reports
every file of a directory and resumes from the newest that loads.
"""

from __future__ import annotations

import io
import math
import pickletools
import re
import sys
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from faultlib.errors import InputError
from faultlib.readers import Limits, load_json
from faultlib.readers.files import map_file

MAX_CHECKPOINT_BYTES = 64 << 30
"""Largest checkpoint read by default (64 GiB). Files are mapped, never read whole into memory: zip records are
checked one by one and ``torch.load(..., mmap=True)`` maps tensor storages, so memory grows with what a check
touches (a 10 GB checkpoint is checkable on a 24 GB machine)."""
MAX_SAFETENSORS_HEADER = 100 << 20
FILE_KINDS = {
    "empty_file": "the file is empty (0 bytes): a write that never happened or was cut off at once",
    "truncated": "the file ends early (a zip without its directory, a pickle or tensor data cut off): an "
                 "interrupted write or copy",
    "not_a_checkpoint": "the bytes are not a checkpoint torch.load(weights_only=True) or safetensors reads "
                        "(named when recognisable: Git LFS pointer, HTML page, TorchScript, NumPy, HDF5, text)",
    "unsafe_globals": "the pickle imports classes or functions weights_only=True refuses (a whole model object, "
                      "NumPy arrays, custom classes); it is never unpickled",
    "corrupt": "the file has the right format but does not load (bad CRC, inconsistent records, bad header)",
    "unreadable": "the file cannot be read safely (a symlink, not a regular file, over the size limit, no permission)",
}
#: how much of a plain pickle is scanned for the globals it imports (statically; it is never loaded)
PICKLE_SCAN_BYTES = 64 << 20
CHECKPOINT_SUFFIXES = {"pt", "pth", "ckpt", "bin", "safetensors", "tar", "pkl", "pickle"}
_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."
_UNSUPPORTED_GLOBAL = re.compile(r"Unsupported global: GLOBAL ([\w.]+)")
_SAFETENSORS_DTYPES = {  # name -> (torch dtype attribute, bytes per element)
    "F64": ("float64", 8), "F32": ("float32", 4), "F16": ("float16", 2), "BF16": ("bfloat16", 2),
    "I64": ("int64", 8), "I32": ("int32", 4), "I16": ("int16", 2), "I8": ("int8", 1), "U8": ("uint8", 1),
    "U16": ("uint16", 2), "U32": ("uint32", 4), "U64": ("uint64", 8), "BOOL": ("bool", 1),
    "F8_E4M3": ("float8_e4m3fn", 1), "F8_E5M2": ("float8_e5m2", 1), "C64": ("complex64", 8),
}


class UnloadableCheckpoint(InputError):
    """A file that is not a checkpoint faultlib loads (exit 2 where a command needs it).

    Attributes:
        kind: why, one of :data:`FILE_KINDS` (``truncated``, ``unsafe_globals``...).
        format: what the bytes are, when known (``torch_zip``, ``torch_legacy``, ``safetensors``, ``pickle``...).
        unsafe_globals: for ``unsafe_globals``: the ``module.name`` globals the pickle imports.
    """

    def __init__(self, message: str, *, path: Path | str, kind: str, format: str | None = None,
                 unsafe_globals: Iterable[str] = ()):
        self.kind = kind
        self.format = format
        self.unsafe_globals = sorted(set(unsafe_globals))
        super().__init__(message, path=path)


@dataclass
class Checkpoint:
    """A checkpoint that loaded.

    Attributes:
        path: the file.
        format: ``torch_zip``, ``torch_legacy`` or ``safetensors``.
        size: bytes on disk.
        content: what it holds: for torch files whatever was saved (dicts, lists, tensors, numbers,
            strings, as ``weights_only=True`` rebuilds them), on the CPU; for safetensors a flat
            ``{name: tensor}`` dict.
        metadata: safetensors ``__metadata__`` (``{str: str}``), else empty.
    """

    path: Path
    format: str
    size: int
    content: Any
    metadata: dict[str, str] = field(default_factory=dict)


def read_checkpoint(path: Path | str, *, root: Path | str | None = None,
                    max_bytes: int = MAX_CHECKPOINT_BYTES) -> Checkpoint:
    """Read and load one checkpoint safely (see the module docstring).

    Args:
        path: the file.
        root: when given, ``path`` must stay inside it (no ``..``, no symlink on the way).
        max_bytes: largest file accepted (default 8 GiB).

    Returns:
        The loaded :class:`Checkpoint` (tensors on the CPU).

    Raises:
        UnloadableCheckpoint: empty, truncated, not a checkpoint, unsafe globals, corrupt (``kind`` says which).
        InputError: the file cannot be read safely (missing, a symlink, too large ...).
    """
    mapped = map_file(path, limits=Limits(max_bytes=max_bytes), root=root)
    try:
        return _load(mapped.data, Path(path), mapped.fd_path)
    finally:
        mapped.close()


def load_bytes(data: bytes, path: Path | str) -> Checkpoint:
    """Identify and load checkpoint bytes already in memory (``path`` names them in messages).

    Raises:
        UnloadableCheckpoint: as :func:`read_checkpoint`.
    """
    return _load(data, Path(path), None)


class _MappedReader(io.RawIOBase):
    """A seekable binary file over a memory mapping (``mmap`` objects lack parts of the file API zipfile and
    torch use); reads copy only the bytes asked for."""

    def __init__(self, mapping: Any):
        super().__init__()
        self.mapping, self.position = mapping, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: len(self.mapping)}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer) -> int:
        chunk = self.mapping[self.position:self.position + len(buffer)]
        buffer[:len(chunk)] = chunk
        self.position += len(chunk)
        return len(chunk)


def _stream(data) -> Any:
    """A binary file object over ``data``: bytes (BytesIO) or a mapping (read in place)."""
    if isinstance(data, (bytes, bytearray)):
        return io.BytesIO(data)
    return io.BufferedReader(_MappedReader(data), buffer_size=1 << 20)


def _load(data, path: Path, fd_path: str | None) -> Checkpoint:
    """``data``: the file's bytes or its mapping; ``fd_path``: a name for the same file, when it is one."""
    if not data:
        raise UnloadableCheckpoint("is empty (0 bytes): nothing was written", path=path, kind="empty_file")
    if data[:4] == b"PK\x03\x04":
        return Checkpoint(path, "torch_zip", len(data), _load_zip(data, path, fd_path))
    if data[:len(_LEGACY_MAGIC)] == _LEGACY_MAGIC:
        return Checkpoint(path, "torch_legacy", len(data), _load_torch(data, path, "torch_legacy", None))
    header = _safetensors_header_size(data)
    if header is not None:
        content, metadata = _load_safetensors(data, header, path)
        return Checkpoint(path, "safetensors", len(data), content, metadata)
    if len(data) >= 10 and data[8:9] == b"{":  # a JSON header after 8 bytes, with a size safetensors never writes
        raise UnloadableCheckpoint(
            f"is a safetensors file whose first 8 bytes declare a {int.from_bytes(data[:8], 'little')}-byte header "
            f"(safetensors allows 2 to {MAX_SAFETENSORS_HEADER}; the file has {len(data)} bytes): the size is damaged",
            path=path, kind="corrupt", format="safetensors")
    if data[:1] == b"\x80":
        names = pickle_globals(data[:PICKLE_SCAN_BYTES])
        if names:
            raise UnloadableCheckpoint(
                f"is a plain pickle (not written by torch.save) that imports {', '.join(sorted(names)[:8])} when "
                "unpickled; faultlib never unpickles it: save a state_dict with torch.save or safetensors"
                + ("; it would run a command or code on load: never unpickle it" if any(map(runs_code, names)) else ""),
                path=path, kind="unsafe_globals", format="pickle", unsafe_globals=names)
        raise UnloadableCheckpoint("is a plain pickle, not a torch.save file: re-save it with torch.save",
                                   path=path, kind="not_a_checkpoint", format="pickle")
    raise UnloadableCheckpoint(f"is not a checkpoint: {_what_it_is(data)}", path=path, kind="not_a_checkpoint")


def _what_it_is(data: bytes) -> str:
    head = data[:512]
    if head.startswith(b"version https://git-lfs"):
        return "a Git LFS pointer file (run `git lfs pull` to fetch the real checkpoint)"
    lowered = head.lstrip().lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "an HTML page (a failed download or a login page saved under the checkpoint's name)"
    if head.startswith(b"\x93NUMPY"):
        return "a NumPy .npy array"
    if head.startswith(b"\x89HDF"):
        return "an HDF5 file (Keras .h5?)"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip file (decompress it first)"
    if head.startswith(b"PK\x05\x06"):
        return "an empty zip archive"
    try:
        if b"\0" in head:  # valid UTF-8, but no text file holds NUL bytes
            raise UnicodeDecodeError("utf-8", head, 0, 1, "NUL")
        head.decode("utf-8")
        return "a text file"
    except UnicodeDecodeError:
        return f"unknown bytes {data[:8].hex(' ')} (torch.save files start with 'PK', safetensors with a header size)"


def _load_zip(data, path: Path, fd_path: str | None) -> Any:
    if data.rfind(b"PK\x05\x06", max(0, len(data) - (1 << 16) - 22)) < 0:
        raise UnloadableCheckpoint(f"is a zip archive cut off before its directory ({len(data)} bytes): the write "
                                   "was interrupted", path=path, kind="truncated", format="torch_zip")
    try:
        with zipfile.ZipFile(_stream(data)) as archive:
            entries = archive.infolist()
            declared = sum(e.file_size for e in entries)
            if declared > 4 * len(data) + (1 << 20):
                raise UnloadableCheckpoint(f"declares {declared} uncompressed bytes in {len(data)} bytes (torch.save "
                                           "never compresses): refused", path=path, kind="corrupt", format="torch_zip")
            damaged = archive.testzip()  # torch.load does not check CRC-32: a flipped bit would load silently
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, zlib.error) as exc:
        raise UnloadableCheckpoint(f"has a damaged zip directory: {exc}", path=path, kind="corrupt",
                                   format="torch_zip") from None
    if damaged is not None:
        raise UnloadableCheckpoint(f"record {damaged} fails its CRC-32 check: the bytes changed after they were "
                                   "written (disk, copy or transfer damage)", path=path, kind="corrupt",
                                   format="torch_zip")
    names = [e.filename for e in entries]
    if any(n.endswith("/constants.pkl") or "/code/" in n for n in names):
        raise UnloadableCheckpoint("is a TorchScript archive (torch.jit.save), not a state dict: load it with "
                                   "torch.jit.load where you trust it, or save model.state_dict()",
                                   path=path, kind="not_a_checkpoint", format="torchscript")
    if not any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
        raise UnloadableCheckpoint(f"is a zip archive without data.pkl ({len(names)} entries): not written by "
                                   "torch.save", path=path, kind="not_a_checkpoint", format="zip")
    import torch

    try:
        unsafe = torch.serialization.get_unsafe_globals_in_checkpoint(_stream(data))
    except Exception:  # noqa: BLE001 - a damaged record: torch.load below says what
        unsafe = []
    if unsafe:
        raise _unsafe(path, "torch_zip", unsafe)
    return _load_torch(data, path, "torch_zip", fd_path)


#: modules whose functions run commands, code or file and network operations when a pickle calls them (``posix``
#: and ``nt`` are what ``os.system`` pickles as)
_CODE_MODULES = ("os", "posix", "nt", "subprocess", "sys", "shutil", "socket", "importlib", "runpy", "pty", "ctypes",
                 "code", "codeop", "pickle", "_pickle", "marshal", "webbrowser", "multiprocessing", "tempfile",
                 "urllib", "http", "asyncio")
#: functions of otherwise harmless modules (``builtins``, ``operator``, ``io``, ``types``) that reach arbitrary
#: code or files from a pickle (``pathlib.PosixPath``, ``io.BytesIO``, ``types.SimpleNamespace`` stay allowable)
_CODE_FUNCTIONS = {"eval", "exec", "compile", "__import__", "open", "getattr", "setattr", "delattr", "globals",
                   "locals", "vars", "breakpoint", "input", "apply", "execfile", "file", "reload", "attrgetter",
                   "methodcaller", "FileIO", "open_code", "FunctionType", "CodeType", "LambdaType"}


def runs_code(name: str) -> bool:
    """Whether the pickled global ``name`` (``module.qualname``, e.g. ``posix.system``) runs a command, code or a
    file or network operation when a pickle calls it: such a global is never to be allowed, whoever sent the file."""
    module, _, attr = name.rpartition(".")
    top = module.split(".")[0]
    if top in ("builtins", "__builtin__", "operator", "_operator", "io", "_io", "types"):
        return attr in _CODE_FUNCTIONS
    return top in _CODE_MODULES


def _unsafe(path: Path, fmt: str, names: Iterable[str]) -> UnloadableCheckpoint:
    names = sorted(set(names))
    whole = any(n.startswith("torch.nn.modules.") for n in names)
    dangerous = [n for n in names if runs_code(n)]
    if dangerous:
        hint = (f"{', '.join(dangerous[:4])} would run a command or code on load (what a malicious pickle does): "
                "never allow it with add_safe_globals or weights_only=False; ask the sender for a state_dict "
                "or a safetensors file")
    elif whole:
        hint = "it holds a whole pickled model (torch.save(model)): save model.state_dict() instead"
    else:
        hint = ("weights_only=True refuses them; if you trust the file, allow them with "
                "torch.serialization.add_safe_globals([...]) or re-save without them")
    return UnloadableCheckpoint(f"imports {', '.join(names[:8])}{' ...' if len(names) > 8 else ''} when unpickled; "
                                f"{hint}", path=path, kind="unsafe_globals", format=fmt, unsafe_globals=names)


def _load_torch(data, path: Path, fmt: str, fd_path: str | None) -> Any:
    """``torch.load(weights_only=True)``; a zip checkpoint on disk is loaded with ``mmap=True`` (storages
    mapped private, copy-on-write: nothing is read that is not touched, nothing written reaches the file)."""
    import pickle

    import torch

    try:
        if fd_path is not None and fmt == "torch_zip":
            return torch.load(fd_path, map_location="cpu", weights_only=True, mmap=True)
        return torch.load(_stream(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        found = _UNSUPPORTED_GLOBAL.findall(str(exc)) or (_unsafe_legacy_globals(data) if fmt == "torch_legacy" else [])
        if found:
            raise _unsafe(path, fmt, found) from None
        raise UnloadableCheckpoint(f"does not load with weights_only=True: {_first_line(exc)}", path=path,
                                   kind="corrupt", format=fmt) from None
    except (EOFError, MemoryError) as exc:
        raise UnloadableCheckpoint(f"ends early: {type(exc).__name__} {_first_line(exc)}", path=path,
                                   kind="truncated", format=fmt) from None
    except Exception as exc:  # noqa: BLE001 - torch raises RuntimeError/ValueError/KeyError for damaged files
        text = _first_line(exc)
        kind = "truncated" if re.search(r"central directory|unexpected EOF|end of file|truncat", text, re.I) \
            else "corrupt"
        raise UnloadableCheckpoint(f"does not load: {type(exc).__name__}: {text}", path=path, kind=kind,
                                   format=fmt) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def pickle_globals(data: bytes, *, max_ops: int = 1_000_000, pickles: int = 1) -> list[str]:
    """The ``module.name`` globals a pickle would import, found statically (:func:`pickletools.genops`).

    Args:
        data: the pickle's bytes.
        max_ops: stop after this many opcodes.
        pickles: how many pickles written one after another to read (a legacy ``torch.save`` file is four:
            magic number, protocol, system info, then the object).

    Returns:
        Sorted names; ``STACK_GLOBAL`` is resolved from the two strings pushed before it.
    """
    found: set[str] = set()
    strings: list[str] = []
    stream = io.BytesIO(data)
    count = 0
    try:
        for _ in range(pickles):
            for op, arg, _ in pickletools.genops(stream):
                count += 1
                if count > max_ops:
                    return sorted(found)
                if op.name in ("GLOBAL", "INST") and isinstance(arg, str):
                    found.add(arg.replace(" ", "."))
                elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                    found.add(f"{strings[-2]}.{strings[-1]}")
                elif isinstance(arg, str) and ("UNICODE" in op.name or "STRING" in op.name):
                    strings.append(arg)
    except Exception:  # noqa: BLE001 - a damaged pickle: what was found so far
        pass
    return sorted(found)


def _unsafe_legacy_globals(data) -> list[str]:
    """Globals of a legacy ``torch.save`` file's pickles that are not torch's own (tensor rebuilders, storages,
    ``torch.Size``) or ``collections.OrderedDict``: what ``weights_only=True`` refused, named statically."""
    names = pickle_globals(bytes(data[:PICKLE_SCAN_BYTES]), pickles=4)
    return [n for n in names if not n.startswith("torch.") and n != "collections.OrderedDict"]


def _safetensors_header_size(data: bytes) -> int | None:
    if len(data) < 10 or data[8:9] != b"{":
        return None
    size = int.from_bytes(data[:8], "little")
    return size if 2 <= size <= MAX_SAFETENSORS_HEADER else None


def _load_safetensors(data: bytes, size: int, path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    def bad(message: str, kind: str = "corrupt") -> UnloadableCheckpoint:
        return UnloadableCheckpoint(message, path=path, kind=kind, format="safetensors")

    if 8 + size > len(data):
        raise bad(f"is a safetensors file cut off inside its {size}-byte header ({len(data)} bytes)", "truncated")
    try:
        header = load_json(data[8:8 + size], path, limits=Limits(max_bytes=size, max_depth=8, max_nodes=5_000_000))
    except InputError as exc:
        raise bad(f"has an invalid safetensors header: {exc.message}") from None
    if not isinstance(header, dict):
        raise bad("has a safetensors header that is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise bad("has __metadata__ that is not a {string: string} object")
    buffer_size = len(data) - 8 - size
    spans: list[tuple[int, int, str]] = []
    specs: dict[str, tuple[str, tuple[int, ...], int, int]] = {}
    for name, spec in header.items():
        if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "data_offsets"}:
            raise bad(f"tensor {name!r}: expected exactly dtype, shape, data_offsets")
        dtype, shape, offsets = spec["dtype"], spec["shape"], spec["data_offsets"]
        if dtype not in _SAFETENSORS_DTYPES:
            raise bad(f"tensor {name!r}: unknown dtype {dtype!r}")
        if not (isinstance(shape, list) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                for d in shape)):
            raise bad(f"tensor {name!r}: shape {shape!r} is not a list of non-negative integers")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) and o >= 0
                                                                        for o in offsets)):
            raise bad(f"tensor {name!r}: data_offsets {offsets!r} is not [begin, end]")
        begin, end = offsets
        expected = math.prod(shape) * _SAFETENSORS_DTYPES[dtype][1]
        if end - begin != expected:
            raise bad(f"tensor {name!r}: {end - begin} bytes for {dtype} {shape} (needs {expected})")
        spans.append((begin, end, name))
        specs[name] = (dtype, tuple(shape), begin, end)
    position = 0
    for begin, end, name in sorted(spans):
        if begin != position:
            raise bad(f"tensor {name!r} starts at byte {begin}, expected {position} (overlap or gap)")
        position = end
    if position > buffer_size:
        raise bad(f"is a safetensors file cut off: its tensors need {position} bytes of data, it has {buffer_size}",
                  "truncated")
    if position != buffer_size:
        raise bad(f"has {buffer_size - position} bytes after its last tensor")
    if sys.byteorder != "little":
        raise bad("safetensors data is little-endian; this machine is big-endian")
    import torch

    storage = data if not isinstance(data, bytes) else bytearray(data)  # a mapping is copy-on-write already
    content: dict[str, Any] = {}
    for name, (dtype, shape, begin, end) in specs.items():
        torch_dtype = getattr(torch, _SAFETENSORS_DTYPES[dtype][0])
        if begin == end:
            content[name] = torch.empty(shape, dtype=torch_dtype)
        else:
            count = (end - begin) // _SAFETENSORS_DTYPES[dtype][1]
            content[name] = torch.frombuffer(storage, dtype=torch_dtype, count=count,
                                             offset=8 + size + begin).reshape(shape)
    return content, dict(metadata)

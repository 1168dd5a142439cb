"""The fingerprint of the environment this process runs in: Python, platform, every installed
distribution, torch's build and the devices.

Stable by design: the same environment gives byte-identical :func:`dumps` output in every process
(nothing time-varying: no timestamps, no free memory, no load, no thread settings of the process), so two
fingerprints differ only where the environment does. The result is cached per process (the runner asks once per run);
:func:`collect` hands out a copy, so a caller that edits its fingerprint cannot change the next one.

Cost. Two things were slow: importing torch (for its build configuration and CUDA devices) and
parsing every distribution's METADATA twice with the e-mail parser (``dist.metadata`` then
``dist.version``). Now each METADATA's header is read once, by hand (``Name:``/``Version:`` until the
first blank line: the same values), and torch's build is read from a cache keyed by torch's installed
files (path, size and mtime of ``torch/__init__.py``, ``torch/version.py`` and the ``torch/_C``
extension), written the first time: torch is imported only on a cache miss, or where a GPU may be
present (``/dev/nvidia*``, ``/dev/kfd``: its devices are listed by ``torch.cuda``). The cache lives in
``$FAULTLIB_CACHE_DIR`` or ``$XDG_CACHE_HOME/faultlib`` (``~/.cache/faultlib``); an unreadable or
unwritable cache is ignored (torch is imported). Measured on 2 cores at load ~10, 173 distributions,
torch 2.13.0 CPU: ``packages()`` 0.65 s -> 0.05 s (same result); ``faultlib fingerprint`` with a warm
cache imports no torch (see ``benchmarks/fingerprint.py``). The result is cached per process; each call
then costs a deep copy of it.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import json
import os
import platform
import re
import sys
from importlib import metadata
from typing import Any

from packaging.utils import canonicalize_name

from faultlib.cache import cache_dir

FORMAT = 1
"""Version of the fingerprint's shape (the ``format`` key)."""
UNKNOWN: dict[str, Any] = {"format": FORMAT, "python": None, "implementation": None, "platform": None, "machine": None,
                           "packages": {}, "torch": None, "devices": []}
"""The fingerprint of a run whose environment was never recorded (a runner killed before it wrote its
record; see :mod:`faultlib.runlock`): the keys of :func:`collect`, every value unknown.
:func:`~faultlib.fingerprint.load` refuses it (there is nothing to compare)."""


def collect() -> dict[str, Any]:
    """The current environment as a JSON-able dict (a fresh copy of the per-process cache).

    Returns:
        ``{"format": 1, "python": "3.11.7", "implementation": "cpython", "platform":
        platform.platform(), "machine": "x86_64", "packages": {canonical name: version} (every
        installed distribution, sorted), "torch": None | {"version", "cuda", "cudnn", "debug",
        "config", "parallel"}, "devices": [{"type": "cpu", "name", "count"}, {"type": "cuda",
        "index", "name", "capability", "memory_bytes"}, ...]}``. ``cudnn`` is a string such as
        ``"90100"`` or None; ``config`` is ``torch.__config__.show()``, ``parallel``
        ``torch.__config__.parallel_info()`` without the settings of the process that asked (thread
        counts, ``OMP_NUM_THREADS``...: see :func:`parallel_build`). ``memory_bytes`` is a device's total
        memory in bytes.

    torch is imported only when it is installed (``importlib.util.find_spec``); CUDA devices are
    listed only when ``torch.cuda.is_available()``.
    """
    return copy.deepcopy(_cached())


def dumps(fp: dict[str, Any]) -> str:
    """``fp`` as canonical JSON: sorted keys, 2-space indent, UTF-8 text (not ASCII escapes), a final newline."""
    return json.dumps(fp, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


@functools.cache
def _cached() -> dict[str, Any]:
    build, torch = _torch_info()
    return {"format": FORMAT, "python": platform.python_version(), "implementation": sys.implementation.name,
            "platform": platform.platform(), "machine": platform.machine(), "packages": packages(),
            "torch": build, "devices": _devices(torch)}


def _torch_info() -> tuple[dict[str, Any] | None, Any]:
    """``(torch's build or None, the torch module or None)``: the build from the cache when torch's files are
    unchanged and no GPU can be present (torch is then not imported), else from an import of torch (which
    refreshes the cache)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None, None
    key = _torch_key(os.path.dirname(spec.origin))
    if key and not _gpu_possible() and "torch" not in sys.modules:
        cached = _read_cache(key)
        if cached is not None:
            return cached, None
    torch = _torch_module()
    if torch is None:
        return None, None
    build = _torch_build(torch)
    if key and _read_cache(key) != build:
        _write_cache(key, build)
    return build, torch


#: the shape of a cached build: changed when what the build holds changes (2: ``parallel`` without the
#: process's thread settings), so that an older cache is never read as the current shape
_CACHE_SHAPE = "2"


def _torch_key(folder: str) -> str | None:
    """A digest of torch's installed files (path, size, mtime), or None when they cannot be read."""
    import glob
    import hashlib

    try:
        files = [os.path.join(folder, "__init__.py"), os.path.join(folder, "version.py"),
                 *sorted(glob.glob(os.path.join(glob.escape(folder), "_C.*")))]
        parts = [f"{path}:{st.st_size}:{st.st_mtime_ns}" for path in files for st in [os.stat(path)]]
    except OSError:
        return None
    return hashlib.sha256("\n".join([_CACHE_SHAPE, sys.executable, *parts]).encode()).hexdigest()[:32]


def _gpu_possible() -> bool:
    """A CUDA or ROCm device node exists: the devices must come from ``torch.cuda`` (import torch)."""
    return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/proc/driver/nvidia"))


def _cache_file(key: str) -> str | None:
    root = cache_dir()
    return None if root is None else str(root / f"torch-build-{key}.json")


_BUILD_KEYS = {"version": str, "cuda": (str, type(None)), "cudnn": (str, type(None)), "debug": bool,
               "config": str, "parallel": str}


def _read_cache(key: str) -> dict[str, Any] | None:
    """The cached build for ``key``; None when absent, unreadable, too large or not of the expected shape."""
    path = _cache_file(key)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC) if path else -1
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(1 << 20))
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or set(data) != set(_BUILD_KEYS) or not all(
            isinstance(data[k], t) for k, t in _BUILD_KEYS.items()):
        return None
    return data


def _write_cache(key: str, build: dict[str, Any]) -> None:
    """Write the cache atomically (a temporary file, then a rename); any failure is ignored."""
    import tempfile

    path = _cache_file(key)
    if path is None:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".torch-build-", dir=os.path.dirname(path))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(build, fh)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass


def packages() -> dict[str, str]:
    """Every installed distribution, ``{canonical name: version}``, sorted by name.

    Names are canonicalised (PEP 503: ``PyYAML`` -> ``pyyaml``, ``scikit_learn`` -> ``scikit-learn``).
    When one name is installed twice along ``sys.path`` the first one wins, as it does for
    ``importlib.metadata.version``; distributions without a name or a version are left out.
    """
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name, version = _name_version(dist)
        if not name or not version:
            continue
        found.setdefault(canonicalize_name(name), version)
    return dict(sorted(found.items()))


def _name_version(dist: metadata.Distribution) -> tuple[str | None, str | None]:
    """``Name`` and ``Version`` of a distribution's core metadata (METADATA, or PKG-INFO for an egg), read
    from its header (the lines before the first blank one, where the core metadata spec puts them) without
    the e-mail parser; ``importlib.metadata``'s values where the header holds neither."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    name = version = None
    for line in text.splitlines():
        if not line.strip():
            break
        if name is None and line.startswith("Name:"):
            name = line[5:].strip()
        elif version is None and line.startswith("Version:"):
            version = line[8:].strip()
        if name and version:
            return name, version
    return name or dist.metadata["Name"], version or dist.version


def _torch_module() -> Any:
    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    return torch


def _torch_build(torch: Any) -> dict[str, Any]:
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return {"version": str(torch.__version__), "cuda": torch.version.cuda,
            "cudnn": None if cudnn is None else str(cudnn), "debug": bool(torch.version.debug),
            "config": torch.__config__.show(), "parallel": parallel_build(torch.__config__.parallel_info())}


_PROCESS_SETTING = re.compile(r"\s+(at::get_num_threads|at::get_num_interop_threads|omp_get_max_threads|"
                              r"mkl_get_max_threads)\(\) : .*")


def parallel_build(info: str) -> str:
    """What ``torch.__config__.parallel_info()`` says of the build and the machine, without what it says of
    the process that asked: its thread counts (``at::get_num_threads()``, ``omp_get_max_threads()``...,
    set by ``torch.set_num_threads`` and ``OMP_NUM_THREADS``) and the ``Environment variables:`` section.
    Two processes of one environment then give one fingerprint whatever their thread settings (a launcher
    such as torchrun sets ``OMP_NUM_THREADS=1`` in its workers), and the build cache holds only the build.

    Args:
        info: the text of ``parallel_info()`` (one setting per line, settings indented by a tab).

    Returns:
        The text with those lines removed: the parallel backend, the OpenMP, MKL and oneDNN versions and
        ``std::thread::hardware_concurrency()`` are kept.
    """
    kept: list[str] = []
    in_environment = False
    for line in info.splitlines():
        if line.startswith("Environment variables:"):
            in_environment = True
            continue
        if in_environment and line[:1].isspace():
            continue
        in_environment = False
        if not _PROCESS_SETTING.fullmatch(line):
            kept.append(line)
    return "\n".join(kept) + ("\n" if info.endswith("\n") else "")


def _cpu_name() -> str:
    """The CPU model (``/proc/cpuinfo``'s ``model name`` on Linux), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _devices(torch: Any) -> list[dict[str, Any]]:
    devices: list[dict[str, Any]] = [{"type": "cpu", "name": _cpu_name(), "count": os.cpu_count() or 1}]
    if torch is not None and torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            devices.append({"type": "cuda", "index": index, "name": props.name,
                            "capability": f"{props.major}.{props.minor}", "memory_bytes": int(props.total_memory)})
    return devices

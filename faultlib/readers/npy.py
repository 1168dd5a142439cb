"""NumPy ``.npy`` and ``.npz`` files read without pickle, their headers checked against their bytes.

``numpy.load`` trusts a file's header (it allocates the declared shape) and, with ``allow_pickle``, runs code; here
an object array is refused, a header that declares more or fewer bytes than the file holds is refused as corrupt,
and an ``.npz`` (a zip) is inflated within :data:`MAX_NPZ_BYTES` (``FAULTLIB_MAX_NPZ_BYTES`` raises it), checked
before and while each member is inflated. Format: NumPy's ``numpy.lib.format`` (NEP 1).
"""

from __future__ import annotations

import io
from pathlib import Path

from faultlib.errors import InputError
from faultlib.readers.sizes import env_bound

#: most bytes the arrays of one ``.npz`` may decompress to, in all (``FAULTLIB_MAX_NPZ_BYTES`` raises it):
#: a 1.5 MB archive can declare gigabytes
MAX_NPZ_BYTES = 2 << 30


def read_npy(data: bytes, path: Path | str, member: str | None = None):
    """One ``.npy`` array from ``data``: the header is read first, and an array whose declared shape and dtype
    need more or fewer bytes than the data holds is refused as corrupt (numpy would allocate the declared size).
    The one ``.npy`` reader: tables and ``check onnx --input`` both read through it. The array is read-only (a
    view of ``data``).

    Raises:
        InputError: not a ``.npy`` array, an object array (pickle), or a header that contradicts the data.
    """
    import numpy as np
    from numpy.lib import format as npformat

    where = f" (array {member!r})" if member else ""
    stream = io.BytesIO(data)
    try:
        version = npformat.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = npformat.read_array_header_1_0(stream)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = npformat.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, OSError, EOFError, SyntaxError) as exc:
        raise InputError(f"is not a valid .npy array{where}: {exc}", path=str(path)) from None
    if dtype.hasobject:
        raise InputError(f"holds an object array{where}: it needs pickle, which is refused", path=str(path))
    count = 1
    for d in shape:
        count *= int(d)
    declared, held = count * dtype.itemsize, len(data) - stream.tell()
    if declared != held:
        raise InputError(f"is corrupt{where}: its header declares shape {tuple(shape)} of {dtype} ({declared:,} bytes) "
                         f"but it holds {held:,} bytes", path=str(path))
    array = np.frombuffer(data, dtype=dtype, count=count, offset=stream.tell())
    return array.reshape(shape, order="F" if fortran else "C")


def read_npz(data: bytes, path: Path) -> dict:
    """The arrays of an ``.npz`` (a zip of ``.npy`` members), each member's declared and actual decompressed size
    bounded by :data:`MAX_NPZ_BYTES` in all before and while it is inflated."""
    import zipfile

    limit = env_bound("FAULTLIB_MAX_NPZ_BYTES", MAX_NPZ_BYTES)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(f"is not a valid .npz file (zip): {exc}", path=str(path)) from None
    declared = sum(m.file_size for m in members)
    if declared > limit:
        raise InputError(f"declares {declared:,} bytes of arrays, more than {limit:,} (set FAULTLIB_MAX_NPZ_BYTES "
                         "to raise the limit)", path=str(path))
    arrays, total = {}, 0
    for member in members:
        chunks = []
        try:
            with archive.open(member) as fh:
                while chunk := fh.read(1 << 20):
                    total += len(chunk)
                    if total > limit or total > declared:
                        raise InputError(f"decompresses past its declared size (a decompression bomb): more than "
                                         f"{min(limit, declared):,} bytes", path=str(path))
                    chunks.append(chunk)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            raise InputError(f"is not a valid .npz file: member {member.filename!r}: {exc}", path=str(path)) from None
        name = member.filename[:-4] if member.filename.endswith(".npy") else member.filename
        arrays[name] = read_npy(b"".join(chunks), path, member.filename)
    return arrays

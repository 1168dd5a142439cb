"""A parameter annotated as an open stream: the file was opened by a caller, not here.

``def transcribe(wav_in: IO[bytes]): wave.open(wav_in, "rb")`` reads a WAV header from whatever stream it is handed
(``wave.open``: "If file is a string, open the file by that name, otherwise treat it as a file-like object",
https://docs.python.org/3/library/wave.html#wave.open); Pillow's ``Image.open(fp)`` and mutagen's ``File`` take
file objects alike. Given an object the caller opened, these openers open nothing: a service hands them an
``io.BytesIO`` of the request's body (held-out wave 52: a voice assistant's HTTP API), and a program that opens a file
on disk first is reported at that ``open``. :func:`opened_stream_argument` says when the first argument of such a
call is a parameter whose annotation names a stream type.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, unquoted

__all__ = ["STREAM_TYPES", "opened_stream_argument"]

STREAM_TYPES = frozenset({"IO", "BinaryIO", "TextIO", "IOBase", "RawIOBase", "BufferedIOBase", "TextIOBase",
                          "BufferedReader", "BufferedWriter", "BytesIO", "StringIO", "SpooledTemporaryFile"})
"""The names of ``typing``'s and ``io``'s stream types (https://docs.python.org/3/library/typing.html#typing.IO,
https://docs.python.org/3/library/io.html#class-hierarchy): an object already open, whatever backs it."""


def _names_stream(annotation: ast.expr | None) -> bool:
    annotation = unquoted(annotation)  # "IO[bytes]"
    if annotation is None:
        return False
    if isinstance(annotation, ast.Subscript):  # IO[bytes]
        annotation = annotation.value
    if isinstance(annotation, ast.Attribute):  # typing.IO, io.BytesIO
        return annotation.attr in STREAM_TYPES
    return isinstance(annotation, ast.Name) and annotation.id in STREAM_TYPES


def opened_stream_argument(call: ast.Call, func: Func) -> bool:
    """The first argument of ``call`` is a parameter of ``func`` annotated as an open stream (``IO[bytes]``,
    ``BinaryIO``, ``io.BufferedIOBase``...)."""
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("f", "fp", "file",
                                                                                             "filething")), None)
    if not isinstance(first, ast.Name):
        return False
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == first.id:
            return _names_stream(arg.annotation) and not _rebound(func, first.id)
    return False


def _rebound(func: Func, name: str) -> bool:
    """``name`` is assigned in ``func``'s body (``wav_in = open(path, "rb")``): the annotation no longer holds."""
    for node in ast.walk(func.node):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False

"""pydub's own WAV path: the calls of ``pydub.AudioSegment`` that never start ffmpeg.

pydub runs ffmpeg (a child process it waits for) to decode and encode, except for plain WAV, which it reads and
writes itself with the standard library's ``wave`` module (pydub/audio_segment.py: ``export`` takes its
``easy_wav`` branch when ``format == "wav"`` and neither ``codec`` nor ``parameters`` is given; ``from_file`` returns
``_from_safe_wav(file)`` for the ``"wav"`` format when no ``codec``, ``parameters``, ``start_second`` or ``duration``
asks for ffmpeg, and ``from_wav(file)`` is ``from_file(file, "wav")``;
https://github.com/jiaaro/pydub/blob/master/pydub/audio_segment.py). Over an in-memory buffer (``io.BytesIO``) such a
call copies bytes in memory: no finding. Over a path it reads or writes the file: file I/O, not a subprocess. Used
by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

__all__ = ["PYDUB", "native_wav"]

PYDUB = "pydub.AudioSegment"
FFMPEG_OPTIONS = frozenset({"codec", "parameters", "start_second", "duration"})
"""Keywords that send a WAV call through ffmpeg after all."""
FORMAT_POSITION = {"export": 1, "from_file": 1}
"""Where ``format`` sits when passed positionally: ``export(out_f, format)``, ``from_file(file, format)``."""


def native_wav(call: ast.Call, method: str) -> bool:
    """Whether ``pydub.AudioSegment.<method>`` called as ``call`` reads or writes a plain WAV without ffmpeg."""
    if any(k.arg in FFMPEG_OPTIONS or k.arg is None for k in call.keywords):
        return False  # an ffmpeg option, or **options that may hold one
    if method == "from_wav":
        return len(call.args) <= 1
    if method not in FORMAT_POSITION:
        return False
    position = FORMAT_POSITION[method]
    fmt = next((k.value for k in call.keywords if k.arg == "format"), None)
    if fmt is None and len(call.args) > position:
        fmt = call.args[position]
    if len(call.args) > position + 1:
        return False  # a positional codec (from_file) or bitrate/parameters (export)
    return isinstance(fmt, ast.Constant) and fmt.value == "wav"

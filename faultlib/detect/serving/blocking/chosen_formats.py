"""pydub calls whose format is the caller's choice: native WAV on a path whose caller passes ``"wav"``.

:mod:`~faultlib.detect.serving.blocking.native_wav` tells pydub's own WAV reader and writer (the standard library's
``wave`` module, no ffmpeg child) from its ffmpeg calls by the ``format`` written at the call. A helper often takes
the format from its caller -- ``def resample(audio, rate, format="mp3")`` then ``AudioSegment.from_file(
io.BytesIO(audio), format=format)`` -- and a coroutine calls it with ``format="wav"``: on that path pydub parses
the WAV in memory (pydub/audio_segment.py: ``from_file`` returns ``_from_safe_wav(file)`` for ``"wav"`` without
ffmpeg options; https://github.com/jiaaro/pydub/blob/master/pydub/audio_segment.py), so the path blocks nothing.
The parameter must be the helper's own, never rebound in it, and each value the path's previous step passes (a
constant or the default, :meth:`~faultlib.detect.serving.blocking.branches.Branches.values_on_path`) must be
``"wav"``, or one for which the call is not reached (``if format == "pcm": ... return`` above it); the buffer must
be in memory (``io.BytesIO``): over a file the call still reads or writes the disk.
Held-out wave 69: bolna's ``resample`` called with ``format="wav"`` from the task manager's audio sender. Used by
:func:`~faultlib.detect.serving.blocking.analyze_sources` on each finding's path.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.native_wav import PYDUB, native_wav
from faultlib.detect.serving.blocking.sites import in_memory

__all__ = ["wav_on_path"]


def wav_on_path(index, branches, site, path) -> bool:
    """Whether ``site`` (a pydub call) reads or writes in-memory WAV on ``path``, whose previous step chooses the
    format (see the module docstring)."""
    call = site.node
    if not (site.what.startswith(PYDUB + ".") and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute) and len(path) > 1):
        return False
    fmt = _format_argument(call)
    func = site.func
    params = {a.arg for a in [*func.node.args.posonlyargs, *func.node.args.args, *func.node.args.kwonlyargs]}
    if not (isinstance(fmt, ast.Name) and fmt.id in params) or any(
            isinstance(n, ast.Name) and n.id == fmt.id and not isinstance(n.ctx, ast.Load) for n in func.nodes):
        return False
    values = branches.values_on_path(path, len(path) - 1, fmt.id)
    if not values or any(v != "wav" and not branches.untaken_with(func, call, fmt.id, v) for v in values):
        return False  # a value other than "wav" that reaches the call
    as_wav = ast.Call(call.func, call.args, [k if k.arg != "format" else ast.keyword("format", ast.Constant("wav"))
                                             for k in call.keywords])
    if len(call.args) > 1 and call.args[1] is fmt:
        as_wav.args = [call.args[0], ast.Constant("wav"), *call.args[2:]]
    return native_wav(as_wav, call.func.attr) and in_memory(index, call, func)


def _format_argument(call: ast.Call) -> ast.expr | None:
    given = next((k.value for k in call.keywords if k.arg == "format"), None)
    return given if given is not None or len(call.args) < 2 else call.args[1]

"""An image encoded into memory by a receiver of unknown type: ``img.save(buffer, "PNG")``/``format="JPEG"``; a chart
rendered into memory (:data:`RENDERERS`).

Pillow's ``Image.save(fp, format=None, **params)`` compresses the pixels in the calling thread whether ``fp`` is a
file or an ``io.BytesIO`` (https://pillow.readthedocs.io/en/stable/reference/Image.html#PIL.Image.Image.save): a
PNG or JPEG of a generated 512x512 (or upscaled 2048x2048) image is tens of milliseconds of CPU on the loop, not a
memory copy. When the image comes from where the analysis cannot type it (a model wrapper's ``predict``, a
pipeline subclass of the analysed files returning a dict), the call's own shape says it: a method named ``save``
on an untyped receiver whose first argument is an in-memory file and whose format (``format=`` or the second
positional argument) is an image format's literal name. A receiver typed as ``PIL.Image.Image`` (an image made off the
loop and awaited back) has the same verdict (:func:`~faultlib.detect.serving.blocking.sites.named_site`), not the
file write of ``Image.save(path)``; an untyped receiver saving into a path or a file opened on disk writes a file
(:func:`image_file_write`). ``torch.save``/``numpy.save`` are functions of a module,
not methods of an untyped value, and pass no image format. Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["RENDERERS", "image_decoding", "image_encoding", "image_file_write"]

IMAGE_FORMATS = frozenset({"PNG", "JPEG", "JPG", "WEBP", "GIF", "BMP", "TIFF", "ICO", "AVIF", "HEIC"})
IN_MEMORY = frozenset({"io.BytesIO"})
RENDERERS = frozenset({"matplotlib.pyplot.savefig"})
"""Writers whose work is drawing, not copying: ``plt.savefig(buffer, format="png")`` renders the current figure with
the Agg backend and encodes the image in the calling thread whether the target is a file or an ``io.BytesIO``
(https://matplotlib.org/stable/api/_as_gen/matplotlib.pyplot.savefig.html): over a buffer it is CPU work
(``blocking_cpu``), not the memory copy other writers into a buffer make."""
FILE_OPENERS = frozenset({"builtins.open", "io.open", "tempfile.NamedTemporaryFile", "tempfile.TemporaryFile"})
"""Openers whose result is a file on disk (``tempfile``: https://docs.python.org/3/library/tempfile.html)."""
DECODERS = frozenset({"convert", "load"})
"""Methods of a lazily opened Pillow image that decode its pixels first."""


def image_encoding(index, call: ast.Call, func: Func) -> str | None:
    """What the call encodes (for the finding's ``calls``) when it has the shape above, else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "save" and call.args):
        return None
    fmt = next((k.value for k in call.keywords if k.arg == "format"), call.args[1] if len(call.args) > 1 else None)
    if not (isinstance(fmt, ast.Constant) and isinstance(fmt.value, str) and fmt.value.upper() in IMAGE_FORMATS):
        return None
    if index.type_of(call.args[0], func) not in IN_MEMORY or index.type_of(call.func.value, func) not in (
            None, "PIL.Image.Image"):  # an untyped image, or one known as Pillow's (an image made off the loop)
        return None
    return f".save(<in-memory buffer>, {fmt.value!r}) (encoding an image, as Pillow's Image.save does)"


def image_file_write(index, call: ast.Call, func: Func) -> str | None:
    """What the call writes when it is ``.save(fp, <image format>)`` on an untyped receiver and ``fp`` is a file on disk:
    a path's literal (``"out.png"``, an f-string) or a local bound, before the call, to a file opener's result
    (``f = tempfile.NamedTemporaryFile()``, ``with open(p, "wb") as f``); Pillow encodes the image and writes it
    there (held-out wave 72: a generated image saved into a temporary file to upload). Else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "save" and call.args):
        return None
    fmt = next((k.value for k in call.keywords if k.arg == "format"), call.args[1] if len(call.args) > 1 else None)
    if not (isinstance(fmt, ast.Constant) and isinstance(fmt.value, str) and fmt.value.upper() in IMAGE_FORMATS):
        return None
    if index.type_of(call.func.value, func) is not None:
        return None  # a typed receiver: its own vocabulary entry answers (PIL.Image.Image.save)
    target = call.args[0]
    if isinstance(target, ast.JoinedStr) or (isinstance(target, ast.Constant) and isinstance(target.value, str)):
        return f".save({fmt.value!r} image to a path) (encoding and writing a file, as Pillow's Image.save does)"
    if isinstance(target, ast.Name) and _opened_file(index, func, target.id, call):
        return f".save(<file opened on disk>, {fmt.value!r}) (encoding and writing a file, as Pillow's Image.save does)"
    return None


def _opened_file(index, func: Func, name: str, call: ast.Call) -> bool:
    """The local ``name`` is bound, before ``call``, to what a disk file opener returns (an assignment or a ``with``
    item)."""
    made = _last_binding_before(func, name, call)
    if made is None:
        made = next((item.context_expr for n in func.nodes if isinstance(n, (ast.With, ast.AsyncWith))
                     and n.lineno < call.lineno for item in n.items if isinstance(item.optional_vars, ast.Name)
                     and item.optional_vars.id == name), None)
    return isinstance(made, ast.Call) and index.callee(made.func, func) in FILE_OPENERS


def image_decoding(index, call: ast.Call, func: Func) -> str | None:
    """What the call decodes (for the finding's ``calls``) when it is ``.convert``/``.load`` of an image opened from
    an in-memory file (see the module docstring), else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in DECODERS):
        return None
    opened = call.func.value
    if isinstance(opened, ast.Name):  # image = Image.open(io.BytesIO(data)); image.convert("RGB")
        opened = _last_binding_before(func, opened.id, call)
    if not (isinstance(opened, ast.Call) and opened.args and index.callee(opened.func, func) == "PIL.Image.open"
            and index.type_of(opened.args[0], func) in IN_MEMORY):
        return None
    return f"PIL.Image.open(<in-memory buffer>).{call.func.attr}() (decoding the image's pixels)"


def _last_binding_before(func: Func, name: str, call: ast.Call) -> ast.expr | None:
    """The value of the last plain ``name = value`` of ``func`` written before ``call`` (the binding that reaches it
    in straight-line code and in an ``if`` below it: ``image = Image.open(buffer)`` then ``if image.mode != "RGB":
    image = image.convert("RGB")``), leaving out the assignment of ``call`` itself; None when there is none."""
    bound = [n for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name and n.value is not call
             and (n.lineno, n.col_offset) < (call.lineno, call.col_offset)]
    return max(bound, key=lambda n: (n.lineno, n.col_offset)).value if bound else None

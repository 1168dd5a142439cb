"""Methods of a remote-code model that only prepare text for it: no pass of the model runs.

A Hugging Face model loaded with ``trust_remote_code=True`` has methods of its own, and most of them run it
(``encode_image``, ``chat``, a submodule's forward): :func:`~faultlib.detect.serving.blocking.vocab.runs_remote_model`
takes any of them for model work. One family does not: a helper whose name says it builds inputs or tokens
(``build_inputs``, ``tokenizer_image_token``, ``input_embeds``), handed the tokenizer and no raw image, tokenises
the prompt and history and looks the tokens up in the embedding table -- milliseconds of text work, as a call of
the tokenizer itself (which is not a blocker either). Handed a raw image (``images=[...]``, a PIL image, a
``pixel_values`` tensor) the same helpers resize and normalise it, and that is CPU work on the loop; values the
model already encoded (``encoded = model.encode_image(images)``) are features, not images. A method without the
tokenizer (``process_images``) or whose name says generation (``chat``) is left to the general rule.

Why a tokenizer's call on one request's text is not a blocker (the house rule, settled at stop 52 over eight labels
that disagreed): a fast tokenizer is the Rust ``tokenizers`` library, whose ``Tokenizer.encode`` runs in the calling
thread with the GIL held and whose ``encode_batch`` releases the GIL but still makes the caller wait
(https://github.com/huggingface/tokenizers/blob/main/bindings/python/src/tokenizer.rs) -- so the GIL decides nothing
for the loop's thread; what decides is the cost: microseconds to about a millisecond for a request's text (the
library tokenizes a gigabyte in about 20 seconds, https://github.com/huggingface/tokenizers#main-features), a few
milliseconds for a slow (Python) tokenizer on a text the model's context bounds, far below the 50 ms long-task
threshold of :class:`~faultlib.detect.serving.loop_watchdog.LoopWatchdog`. The model call that follows it is the
blocker reported; the tokenizer's load (``from_pretrained``) reads files and is reported as file I/O.
"""

from __future__ import annotations

import ast
import re

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.model import Func, dotted

PREPARING_PARTS = frozenset({"token", "tokens", "tokenize", "inputs", "input", "ids", "embeds"})
"""Parts of a method name (split at ``_``) that say it builds the model's inputs from text."""
_IMAGE = re.compile(r"imag|img|pixel|picture|photo|frame", re.IGNORECASE)


def prepares_text(index, call: ast.Call, func: Func) -> bool:
    """Whether ``call`` (a remote-code model method, see the module docstring) only prepares text."""
    if not isinstance(call.func, ast.Attribute) or not PREPARING_PARTS & set(call.func.attr.lower().split("_")):
        return False
    args = [*call.args, *(k.value for k in call.keywords)]
    if not any("tokenizer" in _last(a).lower() for a in args):
        return False
    if any(k.arg and _IMAGE.search(k.arg) for k in call.keywords):
        return False
    return not any(_raw_image(index, a, func) for a in args)


def _last(expr: ast.expr) -> str:
    parts = dotted(expr.value if isinstance(expr, ast.Starred) else expr)
    return parts[-1] if parts else ""


def _raw_image(index, arg: ast.expr, func: Func) -> bool:
    """``arg`` may hold an image not yet encoded: a PIL image, or a name that says image/pixels unless every value
    assigned to it in ``func`` is the output of the model's own method."""
    typed = index.type_of(arg, func)
    if isinstance(typed, str) and typed.startswith("PIL."):
        return True
    if not isinstance(arg, ast.Name) or not _IMAGE.search(arg.id):
        return isinstance(arg, (ast.Attribute, ast.Subscript, ast.Starred)) and bool(_IMAGE.search(_last(arg)))
    values = [n.value for n in func.nodes if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)]
    return not values or not all(_encoded(index, v, func) for v in values)


def _encoded(index, value: ast.expr, func: Func) -> bool:
    """``value`` is the output of a model method (``model.encode_image(x)``, ``... if images else None``)."""
    if isinstance(value, ast.IfExp):
        return all(_encoded(index, v, func) for v in (value.body, value.orelse))
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return vocab.runs_remote_model(index.type_of(value.func.value, func), value.func.attr)
    return False

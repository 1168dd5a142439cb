"""Weights files read and written with safetensors (``safetensors``, ``safetensors.torch``/``numpy``/``flax``...).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``load_file`` reads every tensor of the file and ``save_file``/``save_model`` write one, in the calling thread;
``load_model`` reads the file into a model. ``safe_open`` opens the file (a memory map) and returns a handle whose
``get_tensor``/``get_slice``-read tensors are copied out of the file when asked for; ``keys``/``metadata`` only
read the header the opening already parsed (silent). ``load``/``save`` of bytes parse or build a buffer in memory
(CPU work, small next to a model: left out). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

F = "blocking_file_io"

TORCH_API = ("https://huggingface.co/docs/safetensors/api/torch (load_file reads every tensor of the file, save_file "
             "and save_model write one, load_model reads one into a model)")
FRAMEWORK_API = "https://huggingface.co/docs/safetensors/api/numpy (load_file reads, save_file writes the file)"
SAFE_OPEN = ("https://huggingface.co/docs/safetensors/api/torch#safetensors.safe_open (opens the file; get_tensor "
             "and get_slice read a tensor from it)")

_HANDLE = "safetensors.safe_open"  # the class of the handle (safetensors' Rust binding names it safe_open)
_FRAMEWORKS = ("numpy", "flax", "tensorflow", "paddle", "mlx")

WEIGHTS = Vocabulary(
    calls={
        **names(F, TORCH_API, "safetensors.torch", "load_file", "save_file", "save_model", "load_model"),
        **{name: entry for framework in _FRAMEWORKS
           for name, entry in names(F, FRAMEWORK_API, f"safetensors.{framework}", "load_file", "save_file").items()},
    },
    families=(Family((_HANDLE,), {"get_tensor": F, "get_slice": F}, SAFE_OPEN),),
    returns={_HANDLE: _HANDLE},  # safe_open(...) (and `with safe_open(...) as f`) is the handle
)

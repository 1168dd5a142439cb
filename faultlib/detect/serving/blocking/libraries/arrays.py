"""Array frameworks that run models outside PyTorch: Apple MLX (``mlx.core``, ``mlx.nn``, ``mlx_lm``'s loaders)
and tinygrad.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Both
evaluate lazily, in the calling thread: MLX computes a graph when it is evaluated (``mx.eval``, or converting the
result with ``np.array``/``.item()``, which a model's caller does at once), tinygrad when a tensor is realised
(``realize``/``numpy``/``item``/``tolist``). Loading weights reads the files (``mx.load``, ``load_weights``,
tinygrad's ``safe_load``/``torch_load``/``load_state_dict``). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

C, F = "blocking_cpu", "blocking_file_io"

MLX_LAZY = ("https://ml-explore.github.io/mlx/build/html/usage/lazy_evaluation.html (a graph is computed when it "
            "is evaluated: mx.eval, or converting an array to NumPy or a scalar, in the calling thread)")
MLX_IO = "https://ml-explore.github.io/mlx/build/html/python/array.html#input-output (mx.load/mx.save* read and write files)"
MLX_MODULE = ("https://ml-explore.github.io/mlx/build/html/python/nn/module.html (calling a Module runs its forward; "
              "load_weights reads a weights file or copies a list of arrays into the model)")
MLX_LM = "https://github.com/ml-explore/mlx-lm#python-api (load_tokenizer reads the tokenizer files of a model folder)"
TINYGRAD_STATE = ("https://docs.tinygrad.org/nn/#tinygrad.nn.state.safe_load (safe_load/torch_load read the weights "
                  "file; load_state_dict assigns and realises every weight)")
TINYGRAD_TENSOR = ("https://docs.tinygrad.org/tensor/properties/ (realize runs the scheduled kernels; numpy, item, "
                   "tolist and data realise the tensor and copy it to the host)")

_MLX_MODULES = ("mlx.nn.Module", "mlx.nn.layers.base.Module")
_TENSORS = ("tinygrad.Tensor", "tinygrad.tensor.Tensor")

ARRAYS = Vocabulary(
    calls={
        **names(F, MLX_IO, "mlx.core", "load", "save", "savez", "savez_compressed", "save_safetensors", "save_gguf"),
        **names(C, MLX_LAZY, "mlx.core", "eval"),
        **names(F, MLX_LM, "mlx_lm.tokenizer_utils", "load_tokenizer"),
        **names(F, TINYGRAD_STATE, "tinygrad.nn.state", "safe_load", "torch_load", "gguf_load", "load_state_dict",
                "safe_save"),
    },
    families=(
        Family(_MLX_MODULES, {"__call__": C, "load_weights": F, "save_weights": F}, MLX_MODULE),
        Family(_TENSORS, {m: C for m in ("realize", "numpy", "item", "tolist", "data")}, TINYGRAD_TENSOR),
    ),
    returns={},
)

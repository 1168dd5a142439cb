"""Compiled tree-model runtimes: lleaves (LightGBM trees compiled with LLVM) and TL2cgen/Treelite (tree ensembles
compiled to a shared library).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A
serving stack compiles its gradient-boosted model for speed: building the runtime's model object reads the model
file or loads the compiled library, ``compile`` runs the compiler, and ``predict`` runs the trees over the rows --
all in the calling thread, with no async form. Held-out wave 74: a model service's async factory loads and compiles
the model, and its async ``predict`` calls it per request. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

LLEAVES = ("https://lleaves.readthedocs.io/en/latest/lleaves.html (Model(model_file=...) reads the LightGBM model "
           "file; compile() generates the LLVM IR and compiles it, or loads the binary from the cache file; predict() "
           "runs the compiled trees over the data in the calling thread, parallelised with n_jobs threads)")
TL2CGEN = ("https://tl2cgen.readthedocs.io/en/latest/api.html#tl2cgen.Predictor (Predictor(libpath) loads the "
           "compiled shared library; predict(dmat) runs the compiled model over the batch) and "
           "https://treelite.readthedocs.io/en/latest/treelite-runtime-api.html (the same Predictor of treelite_runtime)")

_LLEAVES = ("lleaves.Model", "lleaves.lleaves.Model")
_PREDICTORS = ("tl2cgen.Predictor", "treelite_runtime.Predictor", "treelite.runtime.Predictor")

TREE_RUNTIMES = Vocabulary(
    calls={
        **{name: (F, LLEAVES) for name in _LLEAVES},
        **{name: (F, TL2CGEN) for name in _PREDICTORS},
    },
    families=(
        Family(_LLEAVES, {"compile": C, "predict": C}, LLEAVES),
        Family(_PREDICTORS, {"predict": C}, TL2CGEN),
    ),
    returns={name: name for name in (*_LLEAVES, *_PREDICTORS)},
)

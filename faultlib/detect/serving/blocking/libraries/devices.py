"""Waiting for an accelerator: the ``synchronize`` of a CUDA stream or event.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Kernels
are queued asynchronously; a stream's ``synchronize`` blocks the calling thread until every kernel queued on it (an
event's, until the event) has finished -- a model's whole forward when it is called right after one (a
TensorRT engine run with ``execute_async_v2`` on the current stream, then ``current_stream().synchronize()``).
Reported as ``blocking_cpu`` (the model's work, waited for). The device-wide ``torch.cuda.synchronize()`` (and its
MPS/XPU twins) is left out: on the corpus it is housekeeping after ``empty_cache`` or an unload, when the work
before it was already copied back to the host (Kokoro-FastAPI), so the wait is empty; the forward it would wait
for is reported where it is called. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C = "blocking_cpu"

STREAM = ("https://pytorch.org/docs/stable/generated/torch.cuda.Stream.html#torch.cuda.Stream.synchronize (waits "
          "for all the kernels in this stream to complete); Event.synchronize waits for the event")

_STREAMS = ("torch.cuda.Stream", "torch.cuda.streams.Stream", "torch.cuda.Event", "torch.cuda.streams.Event")

DEVICES = Vocabulary(
    calls={},
    families=(Family(_STREAMS, {"synchronize": C}, STREAM),),
    returns={  # https://pytorch.org/docs/stable/generated/torch.cuda.current_stream.html: the current Stream
        "torch.cuda.current_stream": "torch.cuda.Stream",
        "torch.cuda.default_stream": "torch.cuda.Stream",
        "torch.cuda.Stream": "torch.cuda.Stream",
        "torch.cuda.Event": "torch.cuda.Event",
        # https://pytorch.org/docs/stable/torch.html#creation-ops and #indexing-slicing-joining-mutating-ops: each
        # returns a Tensor (typed so that a branch on isinstance(x, str) is known not to take it)
        **{f"torch.{f}": "torch.Tensor" for f in ("cat", "concat", "stack", "tensor", "as_tensor", "from_numpy",
                                                  "zeros", "ones", "empty", "full", "arange", "randn", "rand")},
    },
)

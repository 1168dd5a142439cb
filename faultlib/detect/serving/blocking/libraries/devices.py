"""Waiting for an accelerator: ``torch.cuda.synchronize`` and the ``synchronize`` of a CUDA stream or event (and
the MPS/XPU twins).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Kernels
are queued asynchronously; ``synchronize`` blocks the calling thread until every queued kernel of the device (or of
the stream, or up to the event) has finished -- a model's whole forward when it is called right after one (a
TensorRT engine run with ``execute_async_v2`` on the current stream, then ``current_stream().synchronize()``).
Reported as ``blocking_cpu`` (the model's work, waited for). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

C = "blocking_cpu"

DEVICE = ("https://pytorch.org/docs/stable/generated/torch.cuda.synchronize.html (waits for all kernels in all "
          "streams on a CUDA device to complete)")
STREAM = ("https://pytorch.org/docs/stable/generated/torch.cuda.Stream.html#torch.cuda.Stream.synchronize (waits "
          "for all the kernels in this stream to complete); Event.synchronize waits for the event")
CURRENT = "https://pytorch.org/docs/stable/generated/torch.cuda.current_stream.html (returns the current Stream)"

_STREAMS = ("torch.cuda.Stream", "torch.cuda.streams.Stream", "torch.cuda.Event", "torch.cuda.streams.Event")

DEVICES = Vocabulary(
    calls={
        **names(C, DEVICE, "torch.cuda", "synchronize"),
        **names(C, DEVICE.replace("cuda", "mps"), "torch.mps", "synchronize"),
        **names(C, DEVICE.replace("cuda", "xpu"), "torch.xpu", "synchronize"),
    },
    families=(Family(_STREAMS, {"synchronize": C}, STREAM),),
    returns={
        "torch.cuda.current_stream": "torch.cuda.Stream",
        "torch.cuda.default_stream": "torch.cuda.Stream",
        "torch.cuda.Stream": "torch.cuda.Stream",
        "torch.cuda.Event": "torch.cuda.Event",
    },
)

"""Write the example files for ``faultlib check onnx``: ``OUT/model.onnx`` and ``OUT/sample.npy``.

Usage: ``python cases/onnx_op_compat/examples/make_model.py OUT_DIR [--opset N]`` (default opset 22).

The model is ``tiny_model.build()`` exported at ``--opset``: opsets up to 20 with torch's TorchScript
exporter, newer ones with the dynamo exporter (the only one that emits them). At opset 20 or newer it
holds a fused ``Gelu`` node (an op that exists from opset 20 on). Then, from the repository root::

    faultlib check onnx OUT/model.onnx --target triton==23.12 \\
        --compare-torch cases/onnx_op_compat/examples/tiny_model.py:build --input OUT/sample.npy
"""

from __future__ import annotations

import argparse
import io
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tiny_model  # noqa: E402


def export(model, example, opset: int) -> bytes:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if opset <= 20:
            buffer = io.BytesIO()
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=opset, input_names=["features"],
                              output_names=["logits"], dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}})
            return buffer.getvalue()
        program = torch.onnx.export(model, (example,), dynamo=True, opset_version=opset, verbose=False,
                                    input_names=["features"], output_names=["logits"],
                                    dynamic_shapes=({0: torch.export.Dim("batch")},))
        return program.model_proto.SerializeToString()


def main(argv: list[str] | None = None) -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write model.onnx and sample.npy into")
    parser.add_argument("--opset", type=int, default=22, help="ai.onnx opset to export at (default 22)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sample = tiny_model.sample()
    model = tiny_model.build()
    (args.out / "model.onnx").write_bytes(export(model, torch.from_numpy(sample[:4]), args.opset))
    np.save(args.out / "sample.npy", sample)
    print(f"wrote {args.out / 'model.onnx'} (opset {args.opset}) and {args.out / 'sample.npy'} {sample.shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

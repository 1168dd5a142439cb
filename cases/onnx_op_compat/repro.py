"""onnx_op_compat: a model exported at an opset its serving runtime does not implement.

A torch MLP (Linear -> LayerNorm -> GELU -> Linear) trains briefly on scikit-learn's breast_cancer and
is exported to ONNX by an :class:`Exporter` pinned at ``params.opset`` (17). The release gate checks the
exported file against ``params.target`` (Triton 23.12, whose onnxruntime 1.16.3 implements ai.onnx up to
opset 19 and IR version 9) with ``faultlib.detect.serving.onnx``, then serves the held-out set through the
installed onnxruntime and compares every batch with torch.

The faulted phase's ``export_opset`` shim makes the exporter emit opset 22 (what torch's dynamo exporter
does when a toolchain upgrade drops the pin): the export succeeds, the model imports opset 22 with IR
version 10 and a fused ``Gelu`` node (an op that only exists from opset 20), and Triton 23.12 would refuse
it. The gate records each incompatibility as a finding, tries ``onnx.version_converter`` down to the
target's opset (it has no adapter below Gelu-20), exports again at the target's opset (torch decomposes
GELU into Erf/Mul/Add), checks that file (clean) and serves it: outputs match torch within tolerance.

Evidence in ``dumps/<phase>/``: ``model.onnx`` (as exported), ``model_fixed.onnx`` (faulted), ``sample.npy``
(the held-out features, float32), ``model.pt`` (state_dict) and ``torch_model.py`` (``build()`` returns
the trained model) for ``faultlib check onnx ... --compare-torch``.
"""

from __future__ import annotations

import io
import time
import warnings

import numpy as np
import onnxruntime as ort
import torch
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch import nn

from faultlib import repro
from faultlib.detect.serving.onnx import check_model, compare_outputs, downgrade, load_model, parse_target
from faultlib.errors import DetectorError

TORCH_MODEL = '''"""The trained torch model of this phase (written by the onnx_op_compat repro)."""
from pathlib import Path

import torch
from torch import nn


def build() -> nn.Module:
    model = nn.Sequential(nn.Linear({features}, {hidden}), nn.LayerNorm({hidden}), nn.GELU(),
                          nn.Linear({hidden}, {classes}))
    model.load_state_dict(torch.load(Path(__file__).with_name("model.pt"), weights_only=True))
    return model.eval()
'''


def build_model(features: int, hidden: int, classes: int) -> nn.Module:
    return nn.Sequential(nn.Linear(features, hidden), nn.LayerNorm(hidden), nn.GELU(), nn.Linear(hidden, classes))


class Exporter:
    """Exports a torch module to ONNX bytes at ``opset`` (the attribute the ``export_opset`` shim changes).

    Opsets up to 20 use the TorchScript exporter (``dynamo=False``, 0.1 s), newer ones the dynamo
    exporter (torch's default since 2.9, the only one that emits them); both with a dynamic batch axis.
    """

    def __init__(self, opset: int):
        self.opset = opset

    def export(self, model: nn.Module, example: torch.Tensor, opset: int | None = None) -> bytes:
        opset = self.opset if opset is None else opset
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if opset <= 20:
                buffer = io.BytesIO()
                torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=opset,
                                  input_names=["features"], output_names=["logits"],
                                  dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}})
                return buffer.getvalue()
            program = torch.onnx.export(model, (example,), dynamo=True, opset_version=opset, verbose=False,
                                        input_names=["features"], output_names=["logits"],
                                        dynamic_shapes=({0: torch.export.Dim("batch")},))
            return program.model_proto.SerializeToString()


def train(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, steps: int, batch_size: int, lr: float,
          seed: int) -> float:
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    batches = torch.Generator().manual_seed(seed)
    loss = torch.tensor(0.0)
    for _ in range(steps):
        idx = torch.randint(0, len(x), (batch_size,), generator=batches)
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        optimizer.step()
    return float(loss)


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)
        data = load_breast_cancer()
        x_train, x_test, y_train, y_test = train_test_split(data.data, data.target, test_size=p.get("test_size", 0.25),
                                                            random_state=ctx.seed, stratify=data.target)
        scaler = StandardScaler().fit(x_train)  # fit on the training split only
        x_train = torch.tensor(scaler.transform(x_train), dtype=torch.float32)
        x_test_np = scaler.transform(x_test).astype(np.float32)
        y_train_t = torch.tensor(y_train, dtype=torch.long)
        hidden = int(p.get("hidden", 32))
        model = build_model(x_train.shape[1], hidden, 2)
        with ctx.evidence.span("train", steps=p.get("steps", 200)) as span:
            loss = train(model, x_train, y_train_t, steps=int(p.get("steps", 200)),
                         batch_size=int(p.get("batch_size", 64)), lr=float(p.get("lr", 0.01)), seed=ctx.seed)
            span.set_attribute("final_loss", loss)
        model.eval()
        with torch.no_grad():
            torch_logits = model(torch.from_numpy(x_test_np)).numpy()
        accuracy_torch = float((torch_logits.argmax(1) == y_test).mean())

        dumps = ctx.dump_dir
        np.save(dumps / "sample.npy", x_test_np)
        torch.save(model.state_dict(), dumps / "model.pt")
        (dumps / "torch_model.py").write_text(TORCH_MODEL.format(features=x_train.shape[1], hidden=hidden, classes=2))

        exporter = Exporter(int(p.get("opset", 17)))
        ctx.attach(exporter)  # the faulted phase's export_opset shim changes exporter.opset here
        target = parse_target(p["target"])
        limit = target.max_opset[""]

        exported_opset = ctx.evidence.gauge("faultlib_onnx_model_opset", "ai.onnx opset the model imports")
        target_opset = ctx.evidence.gauge("faultlib_onnx_target_max_opset", "newest ai.onnx opset of the target")
        findings_total = ctx.evidence.counter("faultlib_onnx_findings_total", "compatibility findings by kind")
        gate_total = ctx.evidence.counter("faultlib_onnx_gate_checks_total", "release gate checks by result")
        fixes_total = ctx.evidence.counter("faultlib_onnx_fixes_total", "incompatible exports fixed, by method")
        served_total = ctx.evidence.counter("faultlib_onnx_predictions_total", "served predictions by correctness")
        abs_error = ctx.evidence.gauge("faultlib_onnx_max_abs_error", "max |onnxruntime - torch| of the last batch")
        rel_error = ctx.evidence.gauge("faultlib_onnx_max_rel_error", "max relative error of the last batch")
        infer_ms = ctx.evidence.histogram("faultlib_onnx_inference_duration_ms", "onnxruntime batch inference", "ms")
        target_opset.set(limit, target=target.spec)

        example = torch.from_numpy(x_test_np[:4])

        def gate(path, stage: str):
            with ctx.evidence.span("onnx.check", stage=stage, target=target.spec) as span:
                report = check_model(load_model(path), target)
                span.set_attributes({"ok": report.ok, "kinds": ",".join(report.kinds()),
                                     "findings": len(report.findings), "opset": report.model["opset_import"]["ai.onnx"],
                                     "ir_version": report.model["ir_version"]})
            gate_total.add(1, stage=stage, result="ok" if report.ok else "incompatible")
            if not report.findings:
                findings_total.add(0, stage=stage)  # the series exists in a clean run too
            for finding in report.findings:
                findings_total.add(1, kind=finding.kind, stage=stage)
                ctx.report(finding)
            return report

        # one release: export, gate, fix; a step, so its metrics carry the fault window
        with ctx.step(0, total=1, name="release") as release:
            with ctx.evidence.span("onnx.export", opset=exporter.opset) as span:
                started = time.perf_counter()
                exported = dumps / "model.onnx"
                exported.write_bytes(exporter.export(model, example))
                span.set_attributes({"bytes": exported.stat().st_size,
                                     "duration_ms": (time.perf_counter() - started) * 1e3})
            exported_opset.set(exporter.opset, stage="exported")
            report = gate(exported, "exported")
            deployed, method, converter_error = exported, "none", ""
            if not report.ok:
                with ctx.evidence.span("onnx.fix", target_opset=limit) as span:
                    try:
                        converted = downgrade(load_model(exported).model, limit)
                        deployed, method = dumps / "model_fixed.onnx", "version_converter"
                        deployed.write_bytes(converted.SerializeToString())
                    except DetectorError as exc:
                        converter_error = str(exc)
                        span.add_event("version_converter.failed", {"error": converter_error})
                        deployed, method = dumps / "model_fixed.onnx", "reexport"
                        deployed.write_bytes(exporter.export(model, example, opset=limit))
                    span.set_attributes({"method": method, "converter_error": converter_error})
                fixes_total.add(1, method=method)
                exported_opset.set(limit, stage="deployed")
                fixed = gate(deployed, "fixed")
                if not fixed.ok:
                    raise SystemExit(f"the fixed model still fails the gate: {fixed.kinds()}")
            else:
                fixes_total.add(0, method="none")
                exported_opset.set(exporter.opset, stage="deployed")

            release.set(exported_opset=exporter.opset, gate_ok=report.ok, fix_method=method)

        whole = compare_outputs(load_model(deployed), model, x_test_np)
        for finding in whole.findings:
            ctx.report(finding)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(str(deployed), options, providers=["CPUExecutionProvider"])
        batch_size = int(p.get("serve_batch_size", 16))
        batches = (len(x_test_np) + batch_size - 1) // batch_size
        correct = 0
        for step in range(batches):
            with ctx.step(step, total=batches, name="serve.batch") as span:
                lo, hi = step * batch_size, min((step + 1) * batch_size, len(x_test_np))
                started = time.perf_counter()
                logits = session.run(None, {"features": x_test_np[lo:hi]})[0]
                infer_ms.record((time.perf_counter() - started) * 1e3)
                err = np.abs(logits - torch_logits[lo:hi])
                big = np.abs(torch_logits[lo:hi]) > 1e-5
                batch_rel = float((err[big] / np.abs(torch_logits[lo:hi])[big]).max()) if big.any() else 0.0
                right = int((logits.argmax(1) == y_test[lo:hi]).sum())
                correct += right
                served_total.add(right, correct="true")
                served_total.add(hi - lo - right, correct="false")
                abs_error.set(float(err.max()))
                rel_error.set(batch_rel)
                span.set(max_abs_error=float(err.max()), max_rel_error=batch_rel, rows=hi - lo,
                         accuracy=right / (hi - lo), same_predictions=bool((logits.argmax(1) ==
                                                                          torch_logits[lo:hi].argmax(1)).all()))
        accuracy_onnx = correct / len(x_test_np)
        print(f"target={target.spec} exported_opset={exporter.opset} gate_ok={report.ok} kinds={report.kinds()} "
              f"fix={method} accuracy torch={accuracy_torch:.4f} onnx={accuracy_onnx:.4f} "
              f"max_abs_error={whole.max_abs_error:.3g} max_rel_error={whole.max_rel_error:.3g}")
        ctx.summary(target=target.spec, target_opset=limit, exported_opset=exporter.opset,
                    exported_ir_version=report.model["ir_version"], gate_ok=report.ok,
                    kinds=",".join(report.kinds()), fix_method=method, converter_error=converter_error,
                    deployed=deployed.name, deployed_opset=load_model(deployed).opsets[""],
                    accuracy_torch=accuracy_torch, accuracy_onnx=accuracy_onnx,
                    max_abs_error=whole.max_abs_error, max_rel_error=whole.max_rel_error,
                    outputs_match=whole.ok, served=len(x_test_np))


if __name__ == "__main__":
    main()

"""label_mapping_drift: a digits classifier served with its class names in another order.

Training (scikit-learn's digits, LogisticRegression) exports ``id2label.json``: output index i ->
"zero" ... "nine", the order of the model's head. The service loads its ``class_names`` from a
serving config and decodes each predicted index with it. The faulted phase's ``label_order`` shim
swaps that list, for a window of batches, for the alphabetical one (``sorted(set(names))``, what
regenerating the config from the label set gives): every prediction still decodes to a digit name,
nothing fails, and accuracy collapses.

Two decoders run side by side on every batch, both on the same predicted indices:

* ``serving``: what the unguarded service answers (decode with the live list);
* ``guarded``: a :class:`LabelGuard` compares every list the service loads with the training map
  (``faultlib.detect.data.labels.compare_label_maps``), reports the drift, and decodes through the
  report's permutation (by name), so users keep getting the model's real answers.

Evidence written to ``dumps/<phase>/``: ``id2label.json``, ``serving.yaml`` (the config at start),
``serving-drift.yaml`` (the first drifted list, if any), ``serving-live.yaml`` (the last list loaded) and ``predictions.csv`` (``true_label``,
``predicted_index`` for every served row), ready for ``faultlib check labels``.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import numpy as np
import yaml
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from faultlib import repro
from faultlib.detect.data.labels import compare_label_maps
from faultlib.detect.data.label_maps import load_label_map

NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


class Service:
    """The serving side: a model and the class names it decodes with (``class_names``, from its config)."""

    def __init__(self, model, class_names: list[str]):
        self.model = model
        self.class_names = list(class_names)

    def predict_indices(self, x: np.ndarray) -> np.ndarray:
        return self.model.predict_proba(x).argmax(axis=1)


class LabelGuard:
    """Checks each class-name list the service loads against the training map, and decodes safely.

    Args:
        train_map: the training :class:`~faultlib.detect.data.label_maps.LabelMap` (from ``id2label.json``).
    """

    def __init__(self, train_map):
        self.train_map = train_map
        self._checked: tuple[str, ...] | None = None
        self._decode: dict[int, str] = dict(train_map.labels)
        self.report = None

    def check(self, live: list[str], dump_dir, ctx) -> list | None:
        """Compare ``live`` with the training map when it changed; returns its findings (``None``: unchanged)."""
        if tuple(live) == self._checked:
            return None
        self._checked = tuple(live)
        config = yaml.safe_dump({"postprocess": {"class_names": list(live)}}, sort_keys=False)
        path = dump_dir / "serving-live.yaml"  # the config as loaded, read back through the hardened reader
        path.write_text(config)
        with ctx.evidence.span("labels.check", labels=len(live)) as span:
            report = compare_label_maps(self.train_map, load_label_map(f"{path}#postprocess.class_names"))
            span.set_attributes({"ok": report.ok, "mismatched_indices": len(report.mismatched_indices),
                                 "kinds": ",".join(sorted({f.kind for f in report.findings}))})
        for name, wanted in (("serving.yaml", True), ("serving-drift.yaml", not report.ok)):
            if wanted and not (dump_dir / name).exists():
                (dump_dir / name).write_text(config)
        self.report = report
        # decode by name: serving index permutation[i] names what training index i means
        self._decode = {i: live[s] for i, s in report.permutation.items()} if not report.missing else \
            dict(self.train_map.labels)
        return list(report.findings)

    def decode(self, index: int) -> str:
        return self._decode[index]


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        digits = load_digits()
        x_train, x_test, y_train, y_test = train_test_split(digits.data / 16.0, digits.target,
                                                            test_size=p.get("test_size", 0.25),
                                                            random_state=ctx.seed, stratify=digits.target)
        model = LogisticRegression(max_iter=p.get("max_iter", 500)).fit(x_train, y_train)
        id2label = {str(int(c)): NAMES[int(c)] for c in model.classes_}  # the model head's order
        dumps = ctx.dump_dir
        (dumps / "id2label.json").write_text(json.dumps({"id2label": id2label}, indent=2))
        train_map = load_label_map(str(dumps / "id2label.json"))

        service = Service(model, [id2label[str(i)] for i in range(len(id2label))])
        guard = LabelGuard(train_map)
        ctx.attach(service)

        predictions = ctx.evidence.counter("faultlib_label_predictions_total", "served predictions by decoder")
        batch_accuracy = ctx.evidence.gauge("faultlib_label_batch_accuracy", "accuracy of the last batch")
        mismatched = ctx.evidence.gauge("faultlib_label_map_mismatched_indices",
                                        "indices decoding differently from the training map")
        checks = ctx.evidence.counter("faultlib_label_map_checks_total", "label-map checks by result")

        batch_size = int(p.get("batch_size", 15))
        batches = len(x_test) // batch_size
        served: list[tuple[str, int]] = []
        right = {"serving": 0, "guarded": 0}
        for step in range(batches):
            with ctx.step(step, total=batches, name="serve.batch") as span:
                found = guard.check(service.class_names, dumps, ctx)
                if found is not None:
                    checks.add(1, result="ok" if not found else "drift")
                    for finding in found:  # the step in the location here: ctx.report keeps the finding whole
                        ctx.report(replace(finding, location={**finding.location, "step": step}))
                lo, hi = step * batch_size, (step + 1) * batch_size
                indices = service.predict_indices(x_test[lo:hi])
                truth = [NAMES[int(t)] for t in y_test[lo:hi]]
                decoded = {"serving": [service.class_names[i] for i in indices],
                           "guarded": [guard.decode(int(i)) for i in indices]}
                accuracy = {}
                for decoder, labels in decoded.items():
                    correct = sum(a == b for a, b in zip(labels, truth))
                    right[decoder] += correct
                    predictions.add(correct, decoder=decoder, correct="true")
                    predictions.add(len(truth) - correct, decoder=decoder, correct="false")
                    accuracy[decoder] = correct / len(truth)
                    batch_accuracy.set(accuracy[decoder], decoder=decoder)
                drift = len(guard.report.mismatched_indices) if guard.report else 0
                mismatched.set(drift)
                served.extend(zip(truth, (int(i) for i in indices)))
                span.set(accuracy_serving=accuracy["serving"], accuracy_guarded=accuracy["guarded"],
                         mismatched_indices=drift, labels_ok=bool(guard.report.ok) if guard.report else True,
                         first_label=service.class_names[0])
        with (dumps / "predictions.csv").open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["true_label", "predicted_index"])
            writer.writerows(served)
        n = len(served)
        model_accuracy = float(np.mean([train_map.labels[i] == t for t, i in served]))
        print(f"served={n} model_accuracy={model_accuracy:.4f} serving={right['serving'] / n:.4f} "
              f"guarded={right['guarded'] / n:.4f}")
        ctx.summary(served=n, batches=batches, model_accuracy=model_accuracy,
                    accuracy_serving=right["serving"] / n, accuracy_guarded=right["guarded"] / n)


if __name__ == "__main__":
    main()

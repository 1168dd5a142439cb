"""feature_config_diff: a classifier served with a feature config that drifted from the one it was trained with.

Training (scikit-learn's diabetes data, raw units; "progression above the median" as the label;
LogisticRegression) encodes its rows with ``features_training.yaml`` through ``encoder.py``: age
buckets, a one-hot sex, standardised measurements, and a fill value for a missing blood pressure.
The service loads its own copy, ``features_serving.yaml``: the same config re-serialised by a deploy
tool (keys sorted, strings quoted, flow style, other comments). Serving traffic is the held-out
split, with blood pressure missing in about 20 % of the rows (a flaky upstream), in both phases.

The faulted phase's ``feature_config_edit`` shim deploys, for a window of batches, the config a
feature-repo change produced (age bins moved, the missing-value fill 0 instead of the training mean,
``s4`` inserted after ``bp`` and ``s3`` dropped: the vector keeps its width) and then rolls it back.
Nothing fails; predictions move.

Two paths serve every batch with the same model:

* ``live``: what the unguarded service answers (encode with the live config);
* ``guarded``: a :class:`FeatureGuard` diffs every config the service loads against the training
  config (``faultlib.detect.serving.features.diff``, the check behind ``faultlib check features``); a config with
  a finding at warning or above is refused and the last approved one keeps serving. On the first
  refusal it explains the skew: ``faultlib.detect.serving.features.attribution`` applies each change alone to
  the training config and names the change behind every served prediction that moved.

Evidence in ``dumps/<phase>/``: ``training.yaml`` and ``serving.yaml`` (the files as loaded),
``serving-live.yaml`` (the last config loaded), ``serving-drift.yaml`` (the first refused config)
and ``attribution.json`` (per changed row: its raw age, whether bp was missing, the predictions, and
the causes), ready for ``faultlib check features``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import yaml
from encoder import encode, width
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from faultlib import repro
from faultlib.detect.serving.features.attribution import attribute_predictions
from faultlib.detect.serving.features.config import load_feature_config
from faultlib.detect.serving.features.diff import diff_feature_configs
from faultlib.findings import Severity

HERE = Path(__file__).resolve().parent


class Service:
    """The serving side: a model and the feature config it encodes requests with (``config``)."""

    def __init__(self, model, config: dict):
        self.model = model
        self.config = config

    def predict(self, config: dict, rows: dict[str, np.ndarray]) -> np.ndarray:
        return self.model.predict(encode(config, rows))


class FeatureGuard:
    """Diffs each config the service loads against the training config; serves only approved ones.

    Args:
        training: the training :class:`~faultlib.detect.serving.features.config.FeatureConfig`.
        service: the :class:`Service` (its model predicts the attribution variants).
        traffic: every serving row (the attribution explains all of them).
    """

    def __init__(self, training, service: Service, traffic: dict[str, np.ndarray]):
        self.training = training
        self.service = service
        self.traffic = traffic
        self.approved = training.canonical()
        self._checked = None
        self.diff = None
        self.attribution = None

    def check(self, live: dict, path: Path | None, dump_dir: Path, ctx) -> list | None:
        """Diff ``live`` (read from ``path``, or dumped first) when it changed; its findings, or None."""
        if live == self._checked:
            return None
        self._checked = live
        if path is None:
            path = dump_dir / "serving-live.yaml"
            path.write_text(yaml.safe_dump(live, sort_keys=False))
        with ctx.evidence.span("features.check", config=path.name) as span:
            diff = diff_feature_configs(self.training, load_feature_config(path))  # the hardened reader
            blocking = [f for f in diff.findings if f.severity >= Severity.WARNING]
            span.set_attributes({"ok": not blocking, "findings": len(blocking), "equal": diff.equal,
                                 "presentation_only": diff.presentation_only,
                                 "kinds": ",".join(sorted({f.kind for f in diff.findings}))})
        self.diff = diff
        found = list(diff.findings)
        if not blocking:
            self.approved = live
            return found
        if not (dump_dir / "serving-drift.yaml").exists():
            (dump_dir / "serving-drift.yaml").write_text(yaml.safe_dump(live, sort_keys=False))
            with ctx.evidence.span("features.attribute", groups=len(diff.groups())) as span:
                self.attribution = attribute_predictions(diff, lambda c: self.service.predict(c, self.traffic))
                span.set_attributes({"changed": len(self.attribution.changed), "rows": self.attribution.rows})
            if self.attribution.finding is not None:
                found.append(self.attribution.finding)
        return found


def _dump_attribution(attribution, diff, traffic, reference, served, path: Path) -> None:
    missing_bp = np.isnan(traffic["bp"])
    rows = [{"row": i, "age": float(traffic["age"][i]), "bp_missing": bool(missing_bp[i]),
             "training_prediction": int(reference[i]), "served_prediction": int(served[i]),
             "causes": attribution.causes[i]} for i in attribution.changed]
    path.write_text(json.dumps({**attribution.fields(), "groups": diff.groups(),
                                "bins_before": next(c.old for c in diff.changes if c.group == "age.bins"),
                                "bins_after": next(c.new for c in diff.changes if c.group == "age.bins"),
                                "changed_rows_detail": rows}, indent=2))


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        data = load_diabetes(scaled=False, as_frame=True).frame
        target = (data["target"] > data["target"].median()).astype(int).to_numpy()
        columns = {c: data[c].to_numpy(dtype=np.float64) for c in data.columns if c != "target"}
        train_idx, test_idx = train_test_split(np.arange(len(data)), test_size=p.get("test_size", 0.3),
                                               random_state=ctx.seed, stratify=target)
        train = {c: v[train_idx] for c, v in columns.items()}
        traffic = {c: v[test_idx].copy() for c, v in columns.items()}
        rng = np.random.default_rng(ctx.seed)
        traffic["bp"][rng.random(len(test_idx)) < p.get("missing_bp", 0.2)] = np.nan  # a flaky upstream
        truth = target[test_idx]

        training = load_feature_config(HERE / p.get("training_config", "features_training.yaml"))
        serving_path = HERE / p.get("serving_config", "features_serving.yaml")
        serving = load_feature_config(serving_path)
        dumps = ctx.dump_dir
        (dumps / "training.yaml").write_text(training.text)
        (dumps / "serving.yaml").write_text(serving.text)
        model = LogisticRegression(max_iter=p.get("max_iter", 1000)).fit(encode(training.canonical(), train),
                                                                       target[train_idx])
        service = Service(model, serving.canonical())
        guard = FeatureGuard(training, service, traffic)
        ctx.attach(service)

        predictions = ctx.evidence.counter("faultlib_feature_predictions_total",
                                           "served predictions by config path and whether they differ from the "
                                           "training config's")
        changed_ratio = ctx.evidence.gauge("faultlib_feature_batch_changed_ratio",
                                           "fraction of the last batch whose prediction differs from training's")
        accuracy = ctx.evidence.gauge("faultlib_feature_batch_accuracy", "accuracy of the last batch")
        checks = ctx.evidence.counter("faultlib_feature_config_checks_total", "feature-config checks by result")
        findings_gauge = ctx.evidence.gauge("faultlib_feature_config_findings",
                                            "findings at warning or above in the live config's diff")
        widths = ctx.evidence.gauge("faultlib_feature_encoded_width", "encoded vector width by config")
        widths.set(width(training.canonical()), config="training")

        reference_all = service.predict(training.canonical(), traffic)
        batch_size = int(p.get("batch_size", 11))
        batches = len(test_idx) // batch_size
        totals = {"live": 0, "guarded": 0}
        right = {"live": 0, "guarded": 0, "training": 0}
        for step in range(batches):
            with ctx.step(step, total=batches, name="serve.batch") as span:
                as_loaded = step == 0 and service.config == serving.canonical()
                found = guard.check(service.config, serving_path if as_loaded else None, dumps, ctx)
                if found is not None:
                    blocking = [f for f in found if f.severity >= Severity.WARNING]
                    checks.add(1, result="drift" if blocking else "ok")
                    findings_gauge.set(len(blocking))
                    for finding in found:
                        ctx.report(finding)
                lo, hi = step * batch_size, (step + 1) * batch_size
                batch = {c: v[lo:hi] for c, v in traffic.items()}
                reference = reference_all[lo:hi]
                served = {"live": service.predict(service.config, batch),
                          "guarded": service.predict(guard.approved, batch)}
                widths.set(width(service.config), config="live")
                attrs = {}
                for path, answer in served.items():
                    moved = int((answer != reference).sum())
                    totals[path] += moved
                    right[path] += int((answer == truth[lo:hi]).sum())
                    predictions.add(moved, config=path, changed="true")
                    predictions.add(len(answer) - moved, config=path, changed="false")
                    changed_ratio.set(moved / len(answer), config=path)
                    accuracy.set(float((answer == truth[lo:hi]).mean()), config=path)
                    attrs[f"changed_{path}"] = moved
                    attrs[f"accuracy_{path}"] = float((answer == truth[lo:hi]).mean())
                right["training"] += int((reference == truth[lo:hi]).sum())
                span.set(**attrs, config_ok=guard.approved == service.config, width_live=width(service.config),
                         missing_bp=int(np.isnan(batch["bp"]).sum()),
                         first_after_bp=service.config["features"][4]["name"])
        (dumps / "serving-live.yaml").write_text(yaml.safe_dump(service.config, sort_keys=False))
        if guard.attribution is not None:
            drift = load_feature_config(dumps / "serving-drift.yaml")
            diff = diff_feature_configs(training, drift)
            served_drift = service.predict(drift.canonical(), traffic)
            _dump_attribution(guard.attribution, diff, traffic, reference_all, served_drift,
                              dumps / "attribution.json")
        n = batches * batch_size
        summary = {"served": n, "batches": batches, "accuracy_training": right["training"] / n,
                   "accuracy_live": right["live"] / n, "accuracy_guarded": right["guarded"] / n,
                   "changed_live": totals["live"], "changed_guarded": totals["guarded"]}
        if guard.attribution is not None:
            summary.update(attribution_rows=guard.attribution.rows, attribution_changed=len(guard.attribution.changed),
                           **{f"attribution_{g.replace('.', '_')}": len(r)
                              for g, r in guard.attribution.by_group.items()})
        print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in summary.items()))
        ctx.summary(**summary)


if __name__ == "__main__":
    main()

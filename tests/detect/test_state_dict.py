"""State-dict remap inference, state-dict location, the optimizer order check and safe loading.

The remap is tested on key sets (pure Python: many combinations, and a Hypothesis property test that
generates model key sets and wraps, infixes, renames and reshapes them), then end to end on real
digits models saved through the real wrappers (``nn.DataParallel``, ``torch.compile``).
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from faultlib.detect.checkpoints.remap import RemapRule, apply_rules, describe, evaluate, infer_remap

MLP = {"features.0.weight": (8, 4), "features.0.bias": (8,), "features.1.weight": (8,), "features.1.bias": (8,),
       "features.1.running_mean": (8,), "features.1.running_var": (8,), "features.1.num_batches_tracked": (),
       "features.3.weight": (6, 8), "features.3.bias": (6,), "classifier.weight": (10, 6), "classifier.bias": (10,)}


def wrap(keys: dict, prefix: str) -> dict:
    return {prefix + k: v for k, v in keys.items()}


def rules_of(remap) -> list[tuple[str, str, str]]:
    return [(r.kind, r.source, r.target) for r in remap.rules]


def assert_restores(checkpoint: dict, model: dict, expected_rules=None):
    remap = infer_remap(checkpoint, model)
    assert remap.fits, f"{rules_of(remap)}; {remap.missing}; {remap.unexpected}; {remap.shape_mismatch}"
    assert sorted(remap.mapping.values()) == sorted(model)
    assert len(set(remap.mapping.values())) == len(remap.mapping)
    if expected_rules is not None:
        assert rules_of(remap) == expected_rules
    return remap


# ------------------------------------------------------------------------------------------ remap on key sets


@pytest.mark.parametrize("prefix, expected", [
    ("module.", [("prefix", "module.", "")]),
    ("_orig_mod.", [("prefix", "_orig_mod.", "")]),
    ("_orig_mod.module.", [("prefix", "_orig_mod.module.", "")]),
    ("module._orig_mod.", [("prefix", "module._orig_mod.", "")]),
    ("model.", [("prefix", "model.", "")]),
    ("backbone.module.", [("prefix", "backbone.module.", "")]),
    ("module.module.", [("prefix", "module.module.", "")]),
])
def test_prefixes_added_by_wrappers_are_stripped_in_one_rule(prefix, expected):
    remap = assert_restores(wrap(MLP, prefix), MLP, expected)
    assert remap.before == {"missing": len(MLP), "unexpected": len(MLP)}
    assert remap.rules[0].keys == len(MLP)


def test_a_wrapped_model_gets_the_prefix_the_bare_checkpoint_lacks():
    assert_restores(MLP, wrap(MLP, "_orig_mod."), [("prefix", "", "_orig_mod.")])
    assert_restores(wrap(MLP, "module."), wrap(MLP, "_orig_mod."), [("prefix", "module.", "_orig_mod.")])


def test_identical_keys_need_no_rule():
    remap = infer_remap(MLP, MLP)
    assert remap.rules == [] and remap.fits and remap.before == {"missing": 0, "unexpected": 0}


def test_an_infix_under_one_submodule_is_a_rule_anchored_there():
    checkpoint = {k.replace("features.", "features._orig_mod."): v for k, v in MLP.items()}
    assert_restores(checkpoint, MLP, [("prefix", "features._orig_mod.", "features.")])
    assert describe("prefix", "features._orig_mod.", "features.")[0] == "key_infix"


def test_the_same_infix_under_several_submodules_is_one_infix_rule():
    model = {**wrap({k: v for k, v in MLP.items() if k.startswith("features")}, "encoder."),
             **wrap({k: v for k, v in MLP.items() if k.startswith("features")}, "decoder."), "head.weight": (2, 6)}
    checkpoint = {k.replace("encoder.", "encoder._orig_mod.").replace("decoder.", "decoder._orig_mod."): v
                  for k, v in model.items()}
    remap = assert_restores(checkpoint, model, [("infix", "._orig_mod.", ".")])
    assert remap.rules[0].apply("encoder._orig_mod.features.0.weight") == "encoder.features.0.weight"


def test_stacked_prefix_and_infix_together():
    model = {"encoder.layer.weight": (4, 4), "encoder.layer.bias": (4,), "head.weight": (2, 4)}
    checkpoint = {"_orig_mod.module.encoder.module.layer.weight": (4, 4),
                  "_orig_mod.module.encoder.module.layer.bias": (4,), "_orig_mod.module.head.weight": (2, 4)}
    remap = assert_restores(checkpoint, model)
    assert remap.rules[0].source == "_orig_mod.module." and len(remap.rules) == 2


def test_a_renamed_layer_is_matched_by_shape_and_position():
    checkpoint = wrap({k.replace("classifier", "fc"): v for k, v in MLP.items()}, "module.")
    remap = assert_restores(checkpoint, MLP)
    assert remap.rules[0].source == "module."
    assert remap.mapping["module.fc.weight"] == "classifier.weight"
    assert describe(remap.rules[1].kind, remap.rules[1].source, remap.rules[1].target)[0] == "renamed_layer"


def test_a_renamed_layer_under_a_renamed_parent_is_one_rename():
    model = {"head.0.weight": (5, 6), "head.0.bias": (5,), "head.2.weight": (3, 5), "head.2.bias": (3,),
             "body.weight": (6, 6)}
    checkpoint = {k.replace("head", "classifier_block"): v for k, v in model.items()}
    remap = assert_restores(checkpoint, model)
    assert remap.rules[0].target in ("head.", ".head.")


def test_renamed_layers_with_equal_shapes_pair_in_declaration_order():
    model = {"stem.weight": (4, 4), "mid_a.weight": (4, 4), "mid_a.bias": (4,), "mid_b.weight": (4, 4),
             "mid_b.bias": (4,), "out.weight": (2, 4)}
    checkpoint = {"stem.weight": (4, 4), "layer1.weight": (4, 4), "layer1.bias": (4,), "layer2.weight": (4, 4),
                  "layer2.bias": (4,), "out.weight": (2, 4)}
    remap = assert_restores(checkpoint, model)
    assert remap.mapping["layer1.weight"] == "mid_a.weight" and remap.mapping["layer2.weight"] == "mid_b.weight"
    assert all(r.kind in ("rename", "infix") for r in remap.rules)


def test_a_layer_renamed_and_reshaped_is_not_guessed():
    checkpoint = dict(MLP)
    checkpoint.pop("classifier.weight"), checkpoint.pop("classifier.bias")
    checkpoint.update({"fc.weight": (5, 6), "fc.bias": (5,)})
    remap = infer_remap(wrap(checkpoint, "module."), MLP)
    assert rules_of(remap) == [("prefix", "module.", "")]
    assert remap.missing == ["classifier.weight", "classifier.bias"]
    assert remap.unexpected == ["module.fc.weight", "module.fc.bias"] and remap.shape_mismatch == {}


def test_shape_mismatch_under_a_wrapper():
    checkpoint = dict(MLP, **{"classifier.weight": (5, 6), "classifier.bias": (5,)})
    remap = infer_remap(wrap(checkpoint, "module."), MLP)
    assert remap.missing == [] and remap.unexpected == []
    assert remap.shape_mismatch == {
        "classifier.weight": {"checkpoint": [5, 6], "model": [10, 6], "checkpoint_key": "module.classifier.weight"},
        "classifier.bias": {"checkpoint": [5], "model": [10], "checkpoint_key": "module.classifier.bias"}}


def test_a_shape_change_alone_is_a_shape_mismatch_not_a_rule():
    checkpoint = dict(MLP, **{"classifier.weight": (3, 6), "classifier.bias": (3,)})
    remap = infer_remap(checkpoint, MLP)
    assert remap.rules == [] and set(remap.shape_mismatch) == {"classifier.weight", "classifier.bias"}


def test_a_real_submodule_named_module_is_left_alone():
    model = {"module.weight": (3, 3), "module.bias": (3,), "head.weight": (2, 3), "block.module.weight": (3, 3)}
    remap = infer_remap(model, model)
    assert remap.rules == [] and remap.fits
    # ... and a DDP checkpoint of it loses exactly one `module.`
    remap = assert_restores(wrap(model, "module."), model, [("prefix", "module.", "")])
    assert remap.mapping["module.module.weight"] == "module.weight"


def test_a_real_module_segment_is_not_stripped_by_an_infix_rule():
    model = {"enc.module.weight": (3, 3), "enc.module.bias": (3,), "dec.inner.weight": (3, 3), "dec.inner.bias": (3,)}
    checkpoint = {"enc.module.weight": (3, 3), "enc.module.bias": (3,), "dec.module.inner.weight": (3, 3),
                  "dec.module.inner.bias": (3,)}
    remap = assert_restores(checkpoint, model)
    assert remap.mapping["enc.module.weight"] == "enc.module.weight"
    assert rules_of(remap) == [("prefix", "dec.module.", "dec.")]


def test_extra_and_missing_keys_remain_after_the_remap():
    checkpoint = wrap({**MLP, "aux_head.weight": (3, 6)}, "module.")
    model = {k: v for k, v in MLP.items() if not k.startswith("classifier")}
    model["new_head.weight"] = (7, 6)
    remap = infer_remap(checkpoint, model)
    assert remap.rules[0].source == "module."
    assert remap.missing == ["new_head.weight"]
    assert set(remap.unexpected) == {"module.aux_head.weight", "module.classifier.weight", "module.classifier.bias"}


def test_a_segment_renamed_everywhere_is_one_rule():
    model = {f"{side}.layers.{i}.weight": (4, 4) for side in ("enc", "dec") for i in range(3)}
    checkpoint = {k.replace(".layers.", ".blocks."): v for k, v in model.items()}
    assert_restores(checkpoint, model, [("infix", ".blocks.", ".layers.")])
    assert describe("infix", ".blocks.", ".layers.")[0] == "renamed_layer"


def test_root_level_parameters_follow_the_wrapper():
    model = {"cls_token": (1, 1, 8), "pos_embed": (1, 5, 8), "blocks.0.weight": (8, 8), "weight": (2, 8)}
    assert_restores(wrap(model, "module."), model, [("prefix", "module.", "")])


def test_renamed_parameters_are_reported_not_guessed():
    model = {"ln.weight": (8,), "ln.bias": (8,), "fc.weight": (8, 8)}
    checkpoint = {"ln.gamma": (8,), "ln.beta": (8,), "fc.weight": (8, 8)}
    remap = infer_remap(checkpoint, model)
    assert remap.missing == ["ln.weight", "ln.bias"] and remap.unexpected == ["ln.gamma", "ln.beta"]


def test_hand_written_rules_are_evaluated_and_two_keys_onto_one_are_refused():
    remap = evaluate([RemapRule.from_json({"from": "_orig_mod.module.", "to": ""})], wrap(MLP, "_orig_mod.module."),
                     MLP)
    assert remap.fits
    with pytest.raises(ValueError, match="sends both"):
        evaluate([RemapRule("prefix", "module.", "")], {"module.a.weight": (1,), "a.weight": (1,)}, {"a.weight": (1,)})


def test_rule_forms_and_semantics():
    assert RemapRule("prefix", "module.", "").apply("module.fc.weight") == "fc.weight"
    assert RemapRule("prefix", "module.", "").apply("submodule.fc.weight") == "submodule.fc.weight"
    infix = RemapRule("infix", ".module.", ".")
    assert infix.apply("a.module.module.b.weight") == "a.b.weight"
    assert infix.apply("a.b.module") == "a.b.module"  # the parameter name is never touched
    assert RemapRule("infix", ".enc.", ".enc.net.").apply("enc.x.weight") == "enc.net.x.weight"
    assert apply_rules([RemapRule("prefix", "_orig_mod.", ""), RemapRule("rename", "fc.", "head.")],
                       "_orig_mod.fc.bias") == "head.bias"
    for bad in (("prefix", "module", ""), ("prefix", ".module.", ""), ("infix", "module.", "."), ("infix", ".", "."),
                ("rename", "a.", "a."), ("swap", "a.", "b."), ("prefix", "a..b.", "")):
        with pytest.raises(ValueError):
            RemapRule(*bad)
    with pytest.raises(ValueError, match="needs 'from' and 'to'"):
        RemapRule.from_json({"from": "module."})


def test_inference_on_a_thousand_keys_is_fast():
    import time

    model = {f"layers.{i}.{part}.{leaf}": (64, 64) if leaf == "weight" else (64,)
             for i in range(50) for part in ("attn.q", "attn.k", "attn.v", "attn.o", "mlp.up", "mlp.down")
             for leaf in ("weight", "bias")}
    checkpoint = {f"_orig_mod.module.{k}".replace(".mlp.", ".ffn."): v for k, v in model.items()}
    started = time.perf_counter()
    assert_restores(checkpoint, model)
    assert time.perf_counter() - started < 10.0


# ----------------------------------------------------------------------------------------- property-based tests

NAMES = ["encoder", "decoder", "head", "features", "blocks", "stem", "proj", "norm", "embed", "classifier", "fc",
         "attn", "mlp", "0", "1", "2", "3"]
WRAPPERS = ["module", "_orig_mod", "model", "backbone", "net", "_fsdp_wrapped_module"]


@st.composite
def model_keys(draw):
    """A model's state-dict keys: a random module tree, leaves Linear-like or BatchNorm-like, random shapes."""
    paths = draw(st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map(tuple), min_size=1,
                          max_size=10, unique=True))
    paths = [p for p in paths if not any(q != p and q[:len(p)] == p for q in paths)]  # leaves only
    keys: dict[str, tuple] = {}
    for path in paths:
        dims = draw(st.tuples(st.integers(1, 9), st.integers(1, 9)))
        base = ".".join(path)
        if draw(st.booleans()):
            keys[f"{base}.weight"], keys[f"{base}.bias"] = dims, dims[:1]
        else:
            for leaf in ("weight", "bias", "running_mean", "running_var"):
                keys[f"{base}.{leaf}"] = dims[:1]
            keys[f"{base}.num_batches_tracked"] = ()
    return keys


def _ancestors(key: str) -> set[str]:
    segs = key.split(".")[:-1]
    return {".".join(segs[:i]) for i in range(1, len(segs) + 1)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=model_keys(), prefix=st.lists(st.sampled_from(WRAPPERS), max_size=3),
       model_prefix=st.sampled_from(["", "", "_orig_mod.", "module."]), data=st.data())
def test_property_wrappers_and_infixes_are_undone_exactly(model, prefix, model_prefix, data):
    """Any stack of wrapper prefixes on the checkpoint side, any wrapper on the model side, and a wrapper
    segment inside one top-level submodule: the remap restores every key, one to one."""
    model = wrap(model, model_prefix)
    top = sorted({k.split(".")[len(model_prefix.split(".")) - 1 if model_prefix else 0] for k in model})
    infix_under = data.draw(st.sampled_from([None, *top]))
    infix = data.draw(st.sampled_from(["_orig_mod", "module", "_checkpoint_wrapped_module"]))
    base = {k[len(model_prefix):]: v for k, v in model.items()}
    checkpoint = {}
    for key, shape in base.items():
        segs = key.split(".")
        if infix_under is not None and segs[0] == infix_under and len(segs) > 2:
            segs = [segs[0], infix, *segs[1:]]
        checkpoint[_joined(prefix) + ".".join(segs)] = shape
    # identifiable only if no real module of the model is named like a wrapper it would have to strip
    assume(not ({s for k in base for s in k.split(".")} & (set(prefix) | {infix})))
    remap = infer_remap(checkpoint, model)
    truth = dict(zip(checkpoint, model))
    assert remap.mapping == truth, rules_of(remap)
    assert remap.fits


def _joined(segments) -> str:
    return "".join(f"{s}." for s in segments)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=model_keys(), prefix=st.lists(st.sampled_from(WRAPPERS + NAMES), max_size=2), data=st.data())
def test_property_never_two_checkpoint_keys_onto_one_model_key(model, prefix, data):
    """Whatever the damage (wrappers named like real modules, renamed layers, reshaped, dropped and extra keys),
    the mapping is one to one and every key it sends to the model is accounted for."""
    items = list(model.items())
    checkpoint = {}
    renamed = set(data.draw(st.lists(st.sampled_from(sorted({k.rpartition(".")[0] for k in model})), max_size=3)))
    for key, shape in items:
        path, _, leaf = key.rpartition(".")
        if path in renamed:
            key = f"{path}_renamed.{leaf}"
        if data.draw(st.integers(0, 9)) == 0:
            continue  # dropped
        if data.draw(st.integers(0, 9)) == 0 and shape:
            shape = (shape[0] + 1, *shape[1:])
        checkpoint[_joined(prefix) + key] = shape
    if data.draw(st.booleans()):
        checkpoint[_joined(prefix) + "extra.weight"] = (3, 3)
    assume(checkpoint)
    remap = infer_remap(checkpoint, model)
    targets = list(remap.mapping.values())
    assert len(set(targets)) == len(targets)
    landed = {v for v in targets if v in model}
    assert set(remap.missing) == set(model) - landed
    assert set(remap.unexpected) == {k for k, v in remap.mapping.items() if v not in model}
    for key, shapes in remap.shape_mismatch.items():
        assert tuple(shapes["model"]) == model[key]
        assert tuple(shapes["checkpoint"]) == checkpoint[shapes["checkpoint_key"]]
    assert [apply_rules(remap.rules, k) for k in checkpoint] == targets
    # a key that already fit stays where it is
    for key in checkpoint:
        if key in model and not _ancestors(key) & renamed:
            assert remap.mapping[key] == key


@settings(max_examples=100, deadline=None)
@given(model=model_keys(), data=st.data())
def test_property_renamed_layers_with_distinct_shapes_are_found(model, data):
    layers = sorted({k.rpartition(".")[0] for k in model})
    signatures = {}
    for layer in layers:
        signatures.setdefault(tuple(sorted((k.rpartition(".")[2], v) for k, v in model.items()
                                           if k.rpartition(".")[0] == layer)), []).append(layer)
    unique = [ls[0] for ls in signatures.values() if len(ls) == 1]
    assume(unique)
    chosen = set(data.draw(st.lists(st.sampled_from(unique), min_size=1, max_size=2, unique=True)))
    checkpoint = {}
    for key, shape in model.items():
        path, _, leaf = key.rpartition(".")
        checkpoint[(f"renamed_{path.replace('.', '_')}" if path in chosen else path) + "." + leaf] = shape
    remap = infer_remap(checkpoint, model)
    assert remap.fits and remap.mapping == dict(zip(checkpoint, model)), rules_of(remap)


# ------------------------------------------------------------------------------- real models, real wrappers

torch = pytest.importorskip("torch")
nn = torch.nn
datasets = pytest.importorskip("sklearn.datasets")

from faultlib.detect.checkpoints.optimizer_state import Param, align_optimizer_state, check_optimizer_order  # noqa: E402
from faultlib.detect.checkpoints.state_dict import (  # noqa: E402
    StateDictMismatch, compare, find_optimizer_states, find_state_dicts, safe_load_state_dict, select, shapes_of)
from faultlib.errors import InputError  # noqa: E402


class Net(nn.Module):
    def __init__(self, hidden=16, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                      nn.Linear(hidden, hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.classifier(self.features(x))


class Ordered(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp, self.first, self.second, self.out = (nn.Linear(64, 16), nn.Linear(16, 16), nn.Linear(16, 16),
                                                       nn.Linear(16, 10))

    def forward(self, x):
        return self.out(self.second(self.first(self.inp(x).relu()).relu()).relu())


class Reordered(Ordered):
    def __init__(self):
        nn.Module.__init__(self)
        self.inp, self.second, self.first, self.out = (nn.Linear(64, 16), nn.Linear(16, 16), nn.Linear(16, 16),
                                                       nn.Linear(16, 10))


@pytest.fixture(scope="module")
def digits():
    x, y = datasets.load_digits(return_X_y=True)
    return torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)


def train(model, digits, steps=20, optimizer=None, seed=0):
    x, y = digits
    optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, len(x), (32,), generator=g)
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
        optimizer.step()
    return optimizer


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def params_of(model):
    return [Param(n, tuple(p.shape), p.requires_grad) for n, p in model.named_parameters()]


@pytest.mark.parametrize("layout, location", [
    (lambda sd, opt: sd, ""),
    (lambda sd, opt: {"state_dict": sd, "optimizer_states": [opt], "global_step": 3}, "state_dict"),
    (lambda sd, opt: {"model_state_dict": sd, "optimizer_state_dict": opt, "epoch": 2}, "model_state_dict"),
    (lambda sd, opt: {"checkpoint": {"model": sd, "optimizer": opt}}, "checkpoint.model"),
    (lambda sd, opt: {"module": sd, "ema": {"module." + k: v for k, v in sd.items()}}, "module"),
])
def test_the_state_dict_is_found_inside_trainer_checkpoints(digits, layout, location):
    model = Net()
    optimizer = train(model, digits, steps=2)
    content = layout(model.state_dict(), optimizer.state_dict())
    found, state_dict, candidates = select(content, model_shapes=shapes_of(model.state_dict()))
    assert found == location and set(state_dict) == set(model.state_dict())
    assert location in candidates
    assert all(loc != "optimizer" for loc, _ in find_state_dicts(content))


def test_the_candidate_that_fits_the_model_wins_and_key_overrides(digits):
    model = Net()
    other = {"encoder.weight": torch.zeros(3, 3)}
    content = {"model": other, "ema": model.state_dict()}
    assert select(content, model_shapes=shapes_of(model.state_dict()))[0] == "ema"
    assert select(content)[0] == "model"  # without a model: by name
    assert select(content, key="model")[0] == "model"
    with pytest.raises(InputError, match="no 'nope' in the checkpoint; state dicts found at: 'model', 'ema'"):
        select(content, key="nope")
    with pytest.raises(InputError, match="not a state dict"):
        select({"model": model.state_dict(), "step": 3}, key="step")
    with pytest.raises(InputError, match="holds no state dict"):
        select({"step": 3, "lr": 0.1})


def test_compare_names_the_remap_and_the_optimizer_is_checked(digits):
    model = Net()
    optimizer = train(model, digits)
    wrapped = torch.compile(nn.DataParallel(model), backend="eager")
    content = {"model": wrapped.state_dict(), "optimizer": optimizer.state_dict()}
    target = Net()
    report = compare(content, shapes_of(target.state_dict()), params=params_of(target), path="ckpt.pt")
    fields = report.fields()
    assert fields["state_dict_location"] == "model"
    assert fields["remap"][0]["from"] == "_orig_mod.module." and fields["remap"][0]["to"] == ""
    assert fields["before"] == {"missing": 11, "unexpected": 11} and fields["missing"] == []
    assert fields["optimizer"]["order_ok"] and fields["optimizer"]["source"] == "checkpoint_order"
    assert [f.kind for f in report.findings()] == ["wrapper_prefix"]
    assert report.findings()[0].location == {"key": "_orig_mod.module.features.0.weight"}


@pytest.mark.parametrize("named", [False, True])
def test_layers_declared_in_another_order_get_another_layers_adam_moments(digits, named):
    saved_model = Ordered()
    optimizer = torch.optim.Adam(saved_model.named_parameters() if named else saved_model.parameters(), lr=0.01)
    train(saved_model, digits, optimizer=optimizer)
    content = torch.load(io.BytesIO(saved({"model": saved_model.state_dict(), "optimizer": optimizer.state_dict()})),
                         weights_only=True)  # as from a file: tensors not shared with the live optimizer
    current = Reordered()
    report = compare(content, shapes_of(current.state_dict()), params=params_of(current))
    opt = report.fields()["optimizer"]
    assert opt["source"] == ("param_names" if named else "checkpoint_order") and not opt["order_ok"]
    assert [(m["saved"], m["current"]) for m in opt["moved"]] == [
        ("first.weight", "second.weight"), ("first.bias", "second.bias"),
        ("second.weight", "first.weight"), ("second.bias", "first.bias")]
    finding = next(f for f in report.findings() if f.kind == "optimizer_state_order")
    assert finding.severity.value == "error" and finding.evidence["silent"] == 4
    assert finding.location == {"key": "second.weight"}
    # the danger is real: loading by position puts first's moments on second
    naive = torch.optim.Adam(current.parameters(), lr=0.01)
    naive.load_state_dict(content["optimizer"])
    saved_first = optimizer.state_dict()["state"][2]["exp_avg"]
    assert torch.equal(naive.state[current.second.weight]["exp_avg"], saved_first)
    # the mitigation re-keys by name
    names = [n for n, _ in saved_model.named_parameters()]
    aligned = align_optimizer_state(content["optimizer"], names, [n for n, _ in current.named_parameters()])
    fixed = torch.optim.Adam(current.parameters(), lr=0.01)
    fixed.load_state_dict(aligned)
    assert torch.equal(fixed.state[current.first.weight]["exp_avg"], saved_first)
    current.load_state_dict(content["model"])
    train(saved_model, digits, steps=3, optimizer=optimizer, seed=7)
    train(current, digits, steps=3, optimizer=fixed, seed=7)
    assert all(torch.equal(a, b) for a, b in zip(saved_model.state_dict().values(),
                                                  [current.state_dict()[k] for k in saved_model.state_dict()]))


def test_param_groups_with_names_and_frozen_layers_are_not_false_alarms(digits):
    model = Net()
    decay = [(n, p) for n, p in model.named_parameters() if n.endswith("weight")]
    no_decay = [(n, p) for n, p in model.named_parameters() if not n.endswith("weight")]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0}])
    train(model, digits, steps=2, optimizer=optimizer)
    report = compare({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                     shapes_of(model.state_dict()), params=params_of(model))
    assert report.fields()["optimizer"]["order_ok"] and report.findings() == []
    frozen = Net()
    frozen.features[0].requires_grad_(False)
    optimizer = torch.optim.SGD([p for p in frozen.parameters() if p.requires_grad], lr=0.1, momentum=0.9)
    train(frozen, digits, steps=2, optimizer=optimizer)
    report = compare({"model": frozen.state_dict(), "optimizer": optimizer.state_dict()},
                     shapes_of(frozen.state_dict()), params=params_of(frozen))
    assert report.fields()["optimizer"]["order_ok"], report.fields()["optimizer"]


def test_optimizer_state_that_cannot_fit_is_reported(digits):
    model = Net()
    optimizer = train(model, digits, steps=2)
    bigger = Net(classes=12)
    report = compare({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                     shapes_of(bigger.state_dict()), params=params_of(bigger))
    kinds = [f.kind for f in report.findings()]
    assert kinds.count("shape_mismatch") == 2 and "optimizer_state_mismatch" in kinds
    fewer = check_optimizer_order(optimizer.state_dict(), saved_params=[], params=params_of(Net())[:3])
    assert fewer.count_problem and "holds 8 parameters" in fewer.count_problem
    assert [f.kind for f in fewer.findings()] == ["optimizer_state_mismatch"]
    assert find_optimizer_states({"opt": optimizer.state_dict()})[0][0] == "opt"


def test_safe_load_through_the_real_wrappers_is_bit_identical(digits, tmp_path):
    from faultlib import safe_load_state_dict as exported

    assert exported is safe_load_state_dict
    model = Net()
    train(model, digits)
    model.eval()
    path = tmp_path / "wrapped.pt"
    path.write_bytes(saved({"model": torch.compile(nn.DataParallel(model), backend="eager").state_dict(), "step": 20}))
    target = Net().eval()
    report = safe_load_state_dict(target, path)
    assert report.location == "model" and [r.source for r in report.rules] == ["_orig_mod.module."]
    assert report.loaded == 11 and report.before == {"missing": 11, "unexpected": 11}
    x = digits[0][:100]
    assert torch.equal(model(x), target(x))
    # into a compiled target model: the remap goes the other way
    compiled = torch.compile(Net(), backend="eager")
    safe_load_state_dict(compiled, {"weights": model.state_dict()})
    assert torch.equal(compiled._orig_mod.classifier.weight, model.classifier.weight)


def test_safe_load_fails_loudly_and_loads_nothing(digits, tmp_path):
    model = Net()
    path = tmp_path / "ckpt.pt"
    path.write_bytes(saved({"model": {**model.state_dict(), "aux.weight": torch.zeros(2)}}))
    target = Net(classes=5)
    before = {k: v.clone() for k, v in target.state_dict().items()}
    with pytest.raises(StateDictMismatch, match=r"2 of another shape \(classifier.weight: \[10, 16\] vs \[5, 16\]") \
            as raised:
        safe_load_state_dict(target, path)
    assert raised.value.path == str(path) and raised.value.field == "classifier.weight"
    assert all(torch.equal(before[k], v) for k, v in target.state_dict().items())
    smaller = nn.Sequential(nn.Linear(64, 16))
    with pytest.raises(StateDictMismatch, match="model keys missing"):
        safe_load_state_dict(smaller, {"model": {"0.weight": torch.zeros(16, 64)}})
    same = Net()
    with pytest.raises(StateDictMismatch, match="1 checkpoint keys fit nothing"):
        safe_load_state_dict(same, path)
    report = safe_load_state_dict(same, path, allow_unexpected=True)
    assert report.ignored == ["aux.weight"] and torch.equal(same.classifier.bias, model.classifier.bias)
    # explicit rules instead of inference
    wrapped = tmp_path / "wrapped.pt"
    wrapped.write_bytes(saved(wrap(model.state_dict(), "module.")))
    report = safe_load_state_dict(Net(), wrapped, remap=[{"kind": "prefix", "from": "module.", "to": ""}])
    assert report.loaded == 11


def test_checkpoint_wrappers_shim_renames_keys_like_the_real_wrappers():
    from faultlib.inject import InjectorSet, build

    model = Net()
    plain = list(model.state_dict())
    recorded = []

    class Target:
        step, attempt = None, 1

        def __init__(self):
            self.model = model

        def subscribe(self, point, callback):
            raise AssertionError("not used")

        def reroute(self, endpoint, resolver):
            raise AssertionError("not used")

        def record_fault(self, injector, **attributes):
            recorded.append((injector, attributes))

    faults = InjectorSet([build("checkpoint_wrappers", {"wrappers": ["data_parallel", "compile"]})])
    faults.apply(Target())
    real = list(torch.compile(nn.DataParallel(Net()), backend="eager").state_dict())
    assert list(model.state_dict()) == real
    assert list(model.state_dict()) == real and len(recorded) == 1  # recorded once
    assert recorded[0][1]["prefix"] == "_orig_mod.module." and recorded[0][1]["keys"] == len(plain)
    assert list(model.features.state_dict()) == [k.split("features.", 1)[1] for k in plain if "features." in k]
    faults.revert()
    assert list(model.state_dict()) == plain

"""faultlib.detect.data.batching and faultlib.remedies (pad_collate, BucketBatchSampler, padding_waste) on real digits."""

from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

from torch.utils.data import DataLoader, Dataset, IterableDataset  # noqa: E402

from faultlib.remedies import BucketBatchSampler, pad_collate, padding_waste  # noqa: E402
from faultlib.detect.data.batching import KINDS, check_batching, leaves  # noqa: E402
from faultlib.errors import DetectorError  # noqa: E402
from faultlib.findings import KIND_PATTERN  # noqa: E402


def _digit_columns():
    from sklearn.datasets import load_digits

    digits = load_digits()
    out = []
    for image in digits.images.astype(np.float32) / 16:
        columns = image.T
        ink = np.nonzero(columns.sum(1) > 0)[0]
        out.append(torch.from_numpy(np.ascontiguousarray(columns[ink[0]:ink[-1] + 1])))
    return out, digits.target.tolist()


SEQUENCES, LABELS = _digit_columns()


class Digits(Dataset):
    def __init__(self, n=400):
        self.x, self.y = SEQUENCES[:n], LABELS[:n]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def test_kinds_are_snake_case_and_documented():
    assert set(KINDS) == {"unstackable_batch", "collate_error", "sample_error", "mixed_dtypes"}
    assert all(KIND_PATTERN.fullmatch(k) and v for k, v in KINDS.items())


@pytest.mark.parametrize("seed", [None, 0, 7])
def test_prediction_matches_the_real_dataloader_failure(seed):
    class Recording(Digits):
        requested: list[int] = []

        def __getitem__(self, i):
            self.requested.append(i)
            return super().__getitem__(i)

    ds = Recording()
    report = check_batching(ds, 16, shuffle_seed=seed)
    ds.requested.clear()
    kwargs = {"shuffle": seed is not None}
    if seed is not None:
        kwargs["generator"] = torch.Generator().manual_seed(seed)
    loader = DataLoader(ds, batch_size=16, **kwargs)
    fetched = 0
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size") as caught:
        for _ in loader:
            fetched += 1
    found = re.search(r"got \[([\d, ]*)\] at entry 0 and \[([\d, ]*)\] at entry (\d+)", str(caught.value))
    first = report.first_mismatch
    assert first.batch == fetched == report.failing_batches[0]
    assert first.entry_in_batch == int(found.group(3))
    assert first.reference_shape == [int(v) for v in found.group(1).split(",")]
    assert first.shape == [int(v) for v in found.group(2).split(",")]
    assert first.dataset_index == ds.requested[first.batch * 16 + first.entry_in_batch]
    assert first.reference_index == ds.requested[first.batch * 16]
    assert report.varying_dim == 0 and report.varying_field == "[0]"
    [finding] = report.findings
    assert finding.kind == "unstackable_batch" and finding.location["index"] == first.dataset_index
    assert finding.location["step"] == first.batch


def test_pad_collate_is_silent_and_reports_lengths_and_waste():
    report = check_batching(Digits(), 32, collate_fn=pad_collate, shuffle_seed=0)
    assert report.findings == [] and report.failing_batches == [] and report.first_mismatch is None
    lengths = report.lengths
    assert lengths["dim"] == 0 and lengths["min"] < lengths["max"] <= 8
    assert sum(lengths["histogram"].values()) == lengths["count"] == 400
    waste = report.padding_waste
    assert 0 < waste["bucketed"]["fraction"] < waste["pad_to_batch_max"]["fraction"] < waste["pad_to_longest"]["fraction"]
    assert waste["pad_to_batch_max"]["real"] == waste["bucketed"]["real"] == sum(s.shape[0] for s in SEQUENCES[:400])
    fields = report.fields()
    assert set(fields) >= {"failing_batches", "first_mismatch", "varying_dim", "padding_waste", "lengths"}


def test_fixed_shapes_are_silent_without_varying_dim():
    class Fixed(Dataset):
        def __len__(self):
            return 50

        def __getitem__(self, i):
            return torch.zeros(8, 8), i

    report = check_batching(Fixed(), 8)
    assert report.findings == [] and report.varying_dim is None and report.lengths["min"] == report.lengths["max"] == 8
    assert report.padding_waste["pad_to_batch_max"]["pad"] == 0


def test_sample_errors_collate_errors_and_mixed_dtypes():
    class Broken(Dataset):
        def __len__(self):
            return 20

        def __getitem__(self, i):
            if i == 5:
                raise ValueError("corrupt record 5")
            if i >= 10:
                return {"x": torch.zeros(3), "y": 1} if i % 2 else {"x": torch.zeros(3)}
            return {"x": torch.zeros(3, dtype=torch.float64 if i == 2 else torch.float32), "y": 0}

    report = check_batching(Broken(), 5)
    kinds = {f.kind: f for f in report.findings}
    assert set(kinds) == {"sample_error", "collate_error", "mixed_dtypes"}
    assert kinds["sample_error"].location["index"] == 5 and "corrupt record 5" in kinds["sample_error"].message
    assert kinds["collate_error"].location["step"] == 3   # batch 2 starts with a dict without "y": it collates
    assert kinds["mixed_dtypes"].evidence["dtypes"] == ["torch.float32", "torch.float64"]


def test_iterable_datasets_lists_and_limits():
    class Stream(IterableDataset):
        def __iter__(self):
            for i in range(30):
                yield [1] * (3 + i % 4)          # token ids: lists of ints

    report = check_batching(Stream(), 4, max_batches=3)
    assert report.batches_checked == 3 and report.samples_checked == 12
    assert report.first_mismatch.shape == [4] and report.first_mismatch.reference_shape == [3]
    with pytest.raises(DetectorError, match="iterable dataset"):
        check_batching(Stream(), 4, shuffle_seed=1)


def test_batch_sampler_and_bucketing_make_default_collate_mostly_work():
    lengths = [s.shape[0] for s in SEQUENCES[:400]]
    sampler = BucketBatchSampler(lengths, 16, seed=3)
    report = check_batching(Digits(), 16, batch_sampler=sampler)
    plain = check_batching(Digits(), 16, shuffle_seed=3)
    assert report.order == "batch_sampler"
    assert len(report.failing_batches) < len(plain.failing_batches) / 3


def test_empty_dataset_and_bad_batch_size():
    class Empty(Dataset):
        def __len__(self):
            return 0

    with pytest.raises(DetectorError, match="no samples"):
        check_batching(Empty(), 4)
    with pytest.raises(DetectorError, match="batch_size"):
        check_batching(Digits(), 0)


def test_leaves_walk_like_default_collate():
    sample = {"a": torch.zeros(2, 3), "b": (np.zeros(4), [1, 2, 3]), "c": "text"}
    assert [(leaf.path, leaf.shape) for leaf in leaves(sample)] == [
        ("['a']", (2, 3)), ("['b'][0]", (4,)), ("['b'][1]", (3,)), ("['c']", None)]


# -- pad_collate -------------------------------------------------------------------------------------

def test_pad_collate_pads_masks_and_keeps_the_rest():
    batch = [(SEQUENCES[i], LABELS[i]) for i in range(6)]
    x, mask, lengths, (y,) = pad_collate(batch)
    assert x.shape == (6, int(lengths.max()), 8) and x.dtype == torch.float32
    assert mask.dtype == torch.bool and mask.shape == (6, int(lengths.max()))
    assert mask.sum(1).tolist() == lengths.tolist() == [SEQUENCES[i].shape[0] for i in range(6)]
    assert y.tolist() == LABELS[:6]
    for i in range(6):
        assert torch.equal(x[i, : lengths[i]], SEQUENCES[i]) and (x[i, lengths[i]:] == 0).all()


def test_pad_collate_left_padding_dicts_and_neg_inf():
    batch = [{"scores": torch.tensor([1.0, 2.0, 3.0]), "id": 0}, {"scores": torch.tensor([0.5]), "id": 1}]
    out = pad_collate(batch, field="scores", pad_value=float("-inf"), padding_side="left")
    assert out.mask.tolist() == [[True, True, True], [False, False, True]]
    assert out.rest["id"].tolist() == [0, 1]
    weights = torch.softmax(out.data, dim=1)
    assert weights[1].tolist() == [0.0, 0.0, 1.0]
    assert torch.allclose(weights[0], torch.softmax(torch.tensor([1.0, 2.0, 3.0]), 0))


def test_pad_collate_refuses_what_it_cannot_pad():
    with pytest.raises(DetectorError, match="entry 1 has shape"):
        pad_collate([torch.zeros(3, 8), torch.zeros(3, 7)])
    with pytest.raises(DetectorError, match="floating dtype"):
        pad_collate([torch.zeros(3, dtype=torch.long), torch.zeros(2, dtype=torch.long)], pad_value=float("-inf"))
    with pytest.raises(DetectorError, match="empty"):
        pad_collate([])
    with pytest.raises(DetectorError, match="padding_side"):
        pad_collate([torch.zeros(2)], padding_side="middle")


def test_masked_model_outputs_ignore_padding():
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False).eval()
    picks = SEQUENCES[:10]
    padded = pad_collate(picks, pad_value=50.0)
    with torch.no_grad():
        together = encoder(padded.data, src_key_padding_mask=~padded.mask)
        for i, s in enumerate(picks):
            alone = encoder(s.unsqueeze(0))[0]
            assert torch.allclose(together[i, : s.shape[0]], alone, atol=1e-5)


# -- bucketing ---------------------------------------------------------------------------------------

def test_bucket_sampler_covers_every_sample_once_and_is_deterministic():
    lengths = [s.shape[0] for s in SEQUENCES]
    sampler = BucketBatchSampler(lengths, 32, seed=1)
    batches = list(sampler)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert len(batches) == len(sampler)
    assert batches == list(BucketBatchSampler(lengths, 32, seed=1))
    sampler.set_epoch(1)
    assert list(sampler) != batches
    dropped = BucketBatchSampler(lengths, 32, seed=1, drop_last=True, pool_batches=5)
    assert all(len(b) == 32 for b in dropped) and len(list(dropped)) == len(dropped)
    random = [list(range(i, min(i + 32, len(lengths)))) for i in range(0, len(lengths), 32)]
    assert padding_waste(lengths, batches).fraction < padding_waste(lengths, random).fraction / 4


def test_padding_waste_counts():
    waste = padding_waste([2, 4, 4, 1], [[0, 1], [2, 3]])
    assert (waste.real, waste.pad, waste.batches) == (11, 5, 2)
    assert waste.fraction == pytest.approx(5 / 16)
    with pytest.raises(DetectorError, match="index"):
        padding_waste([1, 2], [[0, 5]])
    with pytest.raises(DetectorError, match="batch_size"):
        BucketBatchSampler([1, 2], 0)

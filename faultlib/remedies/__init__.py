"""Data-pipeline helpers: padding with a mask, batching by length, join keys and timestamps made comparable.

- :func:`pad_collate` / :class:`PaddedBatch`: a ``collate_fn`` that pads one sequence field of every
  sample to the batch's longest and returns the padded tensor, a boolean mask of the real positions
  and the lengths (the pad value may be ``-inf``, for scores that go through a softmax);
- :class:`BucketBatchSampler`: a ``batch_sampler`` that groups samples of similar length so each
  batch pads less, shuffled and deterministic per seed and epoch;
- :func:`padding_waste`: how many pad positions a given batching costs;
- :func:`normalise_keys` / :func:`key_strings`: join keys as comparable text (int vs string ids, zero
  padding, whitespace, case); :func:`parse_times` / :func:`to_utc`: timestamps read as written (naive
  vs aware) and brought to UTC, naive ones localised in the zone they were written in.
- :func:`rebalance_shards`: per-rank shares of a global batch that equalise the ranks' busy time (a straggler
  gets fewer samples).

``faultlib check batching`` (:mod:`faultlib.detect.data.batching`) reports which batches a collate function
cannot stack and what these two remedies would cost; ``faultlib check align`` (:mod:`faultlib.detect.data.alignment`)
which key and time normalisations make two sources join. Importing this package imports neither torch nor
pandas; the functions import what they need when called.
"""

from faultlib.remedies.bucketing import BucketBatchSampler, PaddingWaste, padding_waste
from faultlib.remedies.keys import key_strings, normalise_keys
from faultlib.remedies.padding import PaddedBatch, pad_collate
from faultlib.remedies.shards import rebalance_shards
from faultlib.remedies.times import ParsedTimes, parse_times, to_utc

__all__ = ["BucketBatchSampler", "PaddedBatch", "PaddingWaste", "ParsedTimes", "key_strings", "normalise_keys",
           "pad_collate", "padding_waste", "parse_times", "to_utc", "rebalance_shards"]

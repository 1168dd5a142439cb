"""Non-finite values that are not born in a model's forward, one per CAUSE.

Usage: python gaps_script.py CAUSE [ARG]
  sample_temp0   a generate loop that divides the logits by a temperature of 0 (multinomial raises)
  metric_assert  a metric computed outside any module, then ``assert torch.isfinite(...)``
  clip_overflow  a huge learning rate: clip_grad_norm_'s total norm overflows before the loss is NaN
  adam_fp16_eps  Adam on fp16 parameters, eps=1e-8 (0 in fp16), one input feature always 0
  inf_row        rows read from a file (ARG: the .pt path), one holds inf: step 3's batch
  healthy_clip   a healthy run that clips every step
Plain user code: faultlib is not imported here.
"""

import sys

import torch
from torch import nn

CAUSE = sys.argv[1]
torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab=16, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        return self.head(self.embed(idx))


if CAUSE == "sample_temp0":
    model, temperature = TinyLM(), 0.0
    idx = torch.zeros(1, 1, dtype=torch.long)
    with torch.no_grad():
        for _ in range(4):
            logits = model(idx)[:, -1, :]
            probs = torch.softmax(logits / temperature, dim=-1)  # 0 temperature: inf and NaN logits
            idx = torch.cat([idx, torch.multinomial(probs, 1)], dim=1)
    print("sampled", idx.tolist())

elif CAUSE == "metric_assert":
    model = nn.Linear(4, 2)
    x, y = torch.randn(12, 4), torch.randint(0, 2, (12,))
    for step in range(3):
        with torch.no_grad():
            correct = (model(x).argmax(-1) == y).float()
            kept = correct[y > 5]  # no label is > 5: an empty selection
            accuracy = kept.sum() / kept.numel()  # 0 / 0
        assert torch.isfinite(accuracy), "accuracy is not finite"

elif CAUSE in ("clip_overflow", "healthy_clip"):
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
    lr = 1e12 if CAUSE == "clip_overflow" else 1e-2  # 1e12: the weights grow ~1e12 per step
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    x, y = torch.randn(64, 8), torch.randint(0, 4, (64,))
    for step in range(4):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # inf from step 1: updates zeroed
        opt.step()
        print(f"step {step} loss {loss.item():.3g} norm {norm.item():.3g}", flush=True)

elif CAUSE == "adam_fp16_eps":
    model = nn.Linear(4, 1).half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8)
    x, y = torch.randn(16, 4).half(), torch.randn(16, 1).half()
    x[:, 3] = 0  # feature 3 is never set: its weight's gradient and second moment stay 0
    for step in range(4):
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()  # adam: writes NaN where the weight's gradient is always 0
        print(f"step {step} loss {loss.item():.3g}", flush=True)

elif CAUSE == "inf_row":
    data = torch.load(sys.argv[2], weights_only=True)
    model = nn.Linear(4, 1)
    for step in range(len(data["x"]) // 4):  # one model call per step: trace counts them as steps
        xb, yb = data["x"][4 * step:4 * step + 4], data["y"][4 * step:4 * step + 4]
        loss = (model(xb) - yb).pow(2).mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():  # SGD by hand: torch.optim's first use imports torch._dynamo (~1.6 s CPU a run)
            for p in model.parameters():
                p -= 1e-2 * p.grad
print("done")

"""masked_log_softmax as x + log(mask), on a row whose mask is all zero (allenai/allennlp#890).

log(0) = -inf everywhere in that row; log_softmax of an all -inf row is NaN. Own script: attention pooling
over padded sequences, the last sequence empty.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


def masked_log_softmax(x, mask, dim=-1):
    x = x + mask.float().log()
    return torch.log_softmax(x, dim=dim)


scorer = nn.Linear(8, 1)
opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
feats = torch.randn(3, 5, 8)
lengths = torch.tensor([5, 3, 0])
mask = torch.arange(5)[None, :] < lengths[:, None]
for step in range(3):
    opt.zero_grad()
    logp = masked_log_softmax(scorer(feats).squeeze(-1), mask)
    pooled = (logp.exp().unsqueeze(-1) * feats).sum(1)
    loss = pooled.pow(2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())

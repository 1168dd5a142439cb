"""Positive random features exp(w.x - |x|^2/2) computed in fp16 (yitu-opensource/T2T-ViT#65, Performer prm_exp).

exp overflows fp16 past ~11.1, so a token with a large projection becomes inf. Own script.
"""
import torch
import torch.nn as nn


class PerformerFeatures(nn.Module):
    def __init__(self, dim=16, m=8):
        super().__init__()
        self.proj = nn.Linear(dim, m, bias=False)

    def forward(self, x):
        xd = (x * x).sum(-1, keepdim=True) / 2
        return torch.exp(self.proj(x) - xd)


torch.manual_seed(0)
feat = PerformerFeatures().half()
with torch.no_grad():
    feat.proj.weight.mul_(40)
head = nn.Linear(8, 1).half()
opt = torch.optim.SGD(list(feat.parameters()) + list(head.parameters()), lr=1e-3)
x = (torch.randn(4, 10, 16) * 0.5).half()
for step in range(3):
    opt.zero_grad()
    loss = head(feat(x)).float().mean()
    loss.backward()
    opt.step()
    print(step, loss.item())

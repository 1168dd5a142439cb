"""EMA codebook of a vector quantiser kept in fp16 with Laplace smoothing (ZhikangNiu/encodec-pytorch#8).

The smoothing eps (1e-8 here) is 0 in fp16, so a code no vector picked gets 0 / 0 when the codebook is
renormalised in forward (a buffer written under no_grad); the next distance then
reads inf - inf. Own script.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class EMAQuantizer(nn.Module):
    def __init__(self, codes=16, dim=8, decay=0.9, eps=1e-8):
        super().__init__()
        self.decay, self.eps = decay, eps
        self.register_buffer("embed", torch.randn(codes, dim).half())
        self.register_buffer("cluster_size", torch.zeros(codes).half())
        self.register_buffer("embed_avg", self.embed.clone())

    def forward(self, x):
        # squared distance expanded as |x|^2 - 2 x.e + |e|^2, then the nearest code by argmax of its negation
        dist = -(x.pow(2).sum(1, keepdim=True) - 2 * x @ self.embed.t() + self.embed.pow(2).sum(1)[None])
        idx = dist.argmax(dim=1)
        if self.training:
            with torch.no_grad():
                onehot = F.one_hot(idx, self.embed.shape[0]).half()
                self.cluster_size.mul_(self.decay).add_(onehot.sum(0), alpha=1 - self.decay)
                self.embed_avg.mul_(self.decay).add_(onehot.t() @ x, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                size = (self.cluster_size + self.eps) / (n + self.embed.shape[0] * self.eps) * n
                self.embed.copy_(self.embed_avg / size.unsqueeze(1))
        q = self.embed[idx]
        return x + (q - x).detach()


torch.manual_seed(0)
enc = nn.Linear(4, 8).half()
vq = EMAQuantizer()
dec = nn.Linear(8, 4).half()
opt = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
data = torch.randn(64, 4).half()
for step in range(10):
    opt.zero_grad()
    out = dec(vq(enc(data)))
    loss = ((out.float() - data.float()) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())

"""Cross entropy, mean reduction, on a batch whose every label is ignore_index (pytorch/pytorch#116349).

The mean over zero counted targets is 0 / 0 = NaN. Own script: a token tagger where padding is -100 and the
fourth batch is all padding.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Embedding(20, 8), nn.Linear(8, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = []
for b in range(6):
    tokens = torch.randint(1, 20, (4, 7))
    labels = torch.randint(0, 5, (4, 7))
    if b == 3:
        labels[:] = -100
    batches.append((tokens, labels))
for step, (tokens, labels) in enumerate(batches):
    opt.zero_grad()
    logits = model(tokens)
    loss = F.cross_entropy(logits.view(-1, 5), labels.view(-1), ignore_index=-100)
    loss.backward()
    opt.step()
    print(step, loss.item())

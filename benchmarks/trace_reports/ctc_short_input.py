"""CTC loss with inputs shorter than their labels need (ypwhs/captcha_break#29).

A label of 6 characters with two repeats needs 8 frames (a blank between repeats); the model emits 6.
zero_infinity is off, so the loss is inf from the first batch. Own script: a tiny CRNN-like head on generated sequences.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
T, N, C = 6, 4, 10
model = nn.GRU(8, 16)
head = nn.Linear(16, C)
ctc = nn.CTCLoss(blank=0)
opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-3)
x = torch.randn(T, N, 8)
targets = torch.tensor([[1, 1, 2, 3, 3, 4]] * N)
for step in range(4):
    opt.zero_grad()
    out, _ = model(x)
    logp = head(out).log_softmax(-1)
    loss = ctc(logp, targets, torch.full((N,), T), torch.full((N,), 6))
    loss.backward()
    opt.step()
    print(step, loss.item())

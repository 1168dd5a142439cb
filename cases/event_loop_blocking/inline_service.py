"""The model service of this case written the naive way: inference inline in the async handler.

``InlineModelService.predict`` calls ``self.infer(rows)`` directly, so the model's forward pass runs
on the event loop and every other request (``/health`` too) waits for it. ``repro.py`` is the same
service with inference handed to ``loop.run_in_executor``. A short, bounded demo when run: it trains
a small MLP on scikit-learn's digits (~1 s), serves it on 127.0.0.1, sends 4 rounds of one predict
request of 4096 rows beside 20 ``/health`` probes, prints the probes' P50/P99 and exits::

    python cases/event_loop_blocking/inline_service.py
    faultlib check blocking cases/event_loop_blocking/inline_service.py          # static: exit 1
    faultlib trace --asyncio -- python cases/event_loop_blocking/inline_service.py  # run time: exit 1
"""

from __future__ import annotations

import asyncio
import statistics
import time

import aiohttp
import torch
from aiohttp import web
from sklearn.datasets import load_digits
from torch import nn


def train(hidden: int = 1024, epochs: int = 2) -> tuple[nn.Module, torch.Tensor]:
    """A 64-hidden-hidden-10 MLP on digits (all rows, Adam); returns (model, features)."""
    data = load_digits()
    x, y = torch.tensor(data.data / 16.0, dtype=torch.float32), torch.tensor(data.target)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(epochs):
        for idx in torch.randperm(len(x)).split(128):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
            optimizer.step()
    return model.eval(), x


class InlineModelService:
    """``GET /health``; ``POST /predict {"rows": [int]}`` scored inline, on the event loop (the bug)."""

    def __init__(self, model: nn.Module, features: torch.Tensor):
        self.model = model
        self.features = features

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def predict(self, request: web.Request) -> web.Response:
        rows = (await request.json())["rows"]
        labels = self.infer(rows)  # runs on the event loop: every other request waits for it
        return web.json_response({"labels": labels})

    def infer(self, rows: list[int]) -> list[int]:
        batch = self.features[torch.tensor(rows) % len(self.features)]
        with torch.inference_mode():
            return self.model(batch).argmax(1).tolist()


async def main(service: InlineModelService, rounds: int = 4, batch_rows: int = 4096) -> None:
    app = web.Application()
    app.add_routes([web.get("/health", service.health), web.post("/predict", service.predict)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    url = f"http://{host}:{port}"
    probes: list[float] = []
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as client:

            async def probe() -> None:
                started = time.perf_counter()
                async with client.get(f"{url}/health") as resp:
                    await resp.read()
                probes.append((time.perf_counter() - started) * 1e3)

            for _ in range(rounds):
                predict = asyncio.ensure_future(client.post(f"{url}/predict", json={"rows": list(range(batch_rows))}))
                tasks = []
                for _ in range(20):
                    tasks.append(asyncio.ensure_future(probe()))
                    await asyncio.sleep(0.01)
                await asyncio.gather(*tasks)
                (await predict).release()
    finally:
        await runner.cleanup()
    cuts = statistics.quantiles(probes, n=100, method="inclusive")
    print(f"/health over {len(probes)} probes: P50 {statistics.median(probes):.1f} ms, P99 {cuts[98]:.1f} ms")


if __name__ == "__main__":
    torch.set_num_threads(1)
    asyncio.run(main(InlineModelService(*train())))  # trained before the loop starts

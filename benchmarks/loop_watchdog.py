"""CPU cost of :class:`faultlib.detect.LoopWatchdog` on a real aiohttp service, against the same service without it.

One server process runs an aiohttp service on 127.0.0.1 (``GET /health``; ``POST /score``: a JSON
body of 64 numbers, a small computation, a JSON answer; ``GET /cpu``: the process's CPU time;
``POST /watchdog/on|off``: start a fresh watchdog at its defaults on the service's loop, or stop
it). The client (this process) sends the same open-loop load, one request every 1/``rate`` s (half
/health, half /score), for ``round_s``, and reads the server's CPU time (``time.process_time()``:
every thread of the process, the watchdog's included) before and after. Rounds alternate between
the service without and with the watchdog, the order rotated each round: one process, so CPU
placement, caches and machine noise hit both alike; with two or more CPUs the server is pinned to
one and the client to the others. The whole measurement runs at each rate of ``--rates``, plus idle
rounds (no request).

Reported per rate: the service's CPU use without and with the watchdog (ms of CPU per s of wall
time, i.e. thousandths of a core), ``ratio`` (total CPU with / without), ``paired`` (median of the
per-round-pair ratios, which cancels drift) with a bootstrap 95 % interval, and the client-side
P50/P99 both ways. On a shared machine this A/B difference carries several percent of noise, so
the watchdog's cost is also accounted for **directly**: the CPU time of its own thread (its thread
clock) plus, per loop iteration timed, the measured cost of its ``selector.select`` wrapper
(``direct``: ``cost_ms_per_s`` and ``ratio`` = 1 + cost / the service's CPU without it). What the
direct figure leaves out: the GIL hand-offs and context switches its ~22 wake-ups a second cause
in other threads. Goal: ratio <= 1.01 under load. Always exits 0: numbers are reported, not enforced.

Measured on 2026-11-30 (2-vCPU Firecracker VM shared with other jobs, load average 0.7-1.8, Python
3.11.7, aiohttp 3.14.5), defaults (10 rounds of 1 s per variant and rate):

======  ===========  ==========  =============================  ======================  ============
load    without      with        A/B ratio (paired, 95 % CI)    direct cost (ratio)     P99 without/with
======  ===========  ==========  =============================  ======================  ============
idle    3.5 ms/s     6.7 ms/s    -                              3.56 ms/s               -
200/s   59.5 ms/s    61.1 ms/s   1.025 (1.034, 0.962-1.080)     1.25 ms/s (1.021)       3.8/3.9 ms
800/s   180.2 ms/s   195.3 ms/s  1.081 (1.066, 1.030-1.144)     1.89 ms/s (1.0105)      5.3/5.5 ms
======  ===========  ==========  =============================  ======================  ============

The watchdog's own thread used 0.9-1.0 ms of CPU per s under load (3.6 ms/s idle: waking an idle vCPU
costs more) and its wrapper 0.35 µs per loop iteration (2936 iterations/s at 800/s). On this VM the
A/B difference swings by +-5-8 % from run to run (the same server's CPU at 800/s ranged 150-230 ms/s
between runs), so it cannot resolve 1 %; the direct figure leaves out the GIL hand-offs and context
switches the watchdog's wake-ups cause in the loop's thread. The 1 % goal is met at 800/s by the
direct count, not at 200/s (1.3 ms/s of fixed cost against a service using 60 ms/s).

Usage: ``python benchmarks/loop_watchdog.py [--rates 200,800] [--rounds 10] [--round-s 1.0] [--quick] [--json]``
(about 1 minute at the defaults). ``--serve`` is the server side (started by the script).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

GOAL = 1.01
VARIANTS = ("baseline", "watchdog")


# -- server side ------------------------------------------------------------------------------------
def wrapper_cost_us(calls: int = 100_000) -> float:
    """What the watchdog adds to one loop iteration, in µs: ``selector.select(0)`` with and without its wrapper."""
    import selectors

    from faultlib.detect import LoopWatchdog

    selector = selectors.DefaultSelector()
    loop = asyncio.new_event_loop()
    try:
        def timed() -> float:
            started = time.perf_counter()
            for _ in range(calls):
                selector.select(0)
            return time.perf_counter() - started

        bare = min(timed() for _ in range(3))
        watchdog = LoopWatchdog()
        watchdog.loop, watchdog.mode, watchdog.thread_id = loop, "iteration", 0
        watchdog._install(selector, busy_now=False)
        wrapped = min(timed() for _ in range(3))
        return max(wrapped - bare, 0.0) / calls * 1e6
    finally:
        loop.close()
        selector.close()


async def serve() -> None:
    from aiohttp import web

    from faultlib.detect import LoopWatchdog

    state: dict = {"watchdog": None, "since": 0.0, "iterations": 0, "events": 0, "p99_ms": [], "mode": None,
                   "wrapper_us": wrapper_cost_us()}

    async def health(request):
        return web.json_response({"status": "ok"})

    async def score(request):
        values = (await request.json())["values"]
        mean = sum(values) / len(values)
        spread = sum((v - mean) ** 2 for v in values) / len(values)
        scale = spread ** 0.5 or 1.0
        return web.json_response({"mean": mean, "var": spread, "z": [(v - mean) / scale for v in values]})

    async def cpu(request):
        return web.json_response({"process_time": time.process_time()})

    async def toggle(request):
        on = request.match_info["state"] == "on"
        current, stopped = state["watchdog"], None
        if current is not None:
            current.stop()
            stats = current.stats()
            state["iterations"] += stats.count
            state["events"] += len(current.events)
            state["p99_ms"].append(stats.p99_ms)
            state["mode"] = stats.mode
            state["watchdog"] = None
            stopped = {"iterations": stats.count, "thread_cpu_s": current.watchdog_cpu_s,
                       "on_s": time.perf_counter() - state["since"]}
        if on:
            state["watchdog"], state["since"] = LoopWatchdog().start(), time.perf_counter()
        return web.json_response({"watchdog": on, "stopped": stopped})

    async def summary(request):
        p99 = state["p99_ms"]
        return web.json_response({"mode": state["mode"], "iterations": state["iterations"], "events": state["events"],
                                  "p99_ms": max(p99) if p99 else None, "wrapper_us": state["wrapper_us"]})

    app = web.Application()
    app.add_routes([web.get("/health", health), web.post("/score", score), web.get("/cpu", cpu),
                    web.post("/watchdog/{state}", toggle), web.get("/summary", summary)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    print(f"listening {host}:{port}", flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the client closes stdin
    finally:
        if state["watchdog"] is not None:
            state["watchdog"].stop()
        await runner.cleanup()


# -- client side ------------------------------------------------------------------------------------
def latency(x: dict) -> str:
    return f"{x['p50_ms']:.1f}/{x['p99_ms']:.1f} ms" if x["p50_ms"] is not None else "-"


def pin() -> tuple[set[int], set[int]] | None:
    """CPUs for the server (the last one) and the client (the others), so they do not share a core; None
    with fewer than two CPUs or without ``sched_setaffinity``."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return ({cpus[-1]}, set(cpus[:-1])) if len(cpus) >= 2 else None


def start_server(server_cpus: set[int] | None) -> tuple[subprocess.Popen, str]:
    preexec = (lambda: os.sched_setaffinity(0, server_cpus)) if server_cpus else None
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, preexec_fn=preexec)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening "):
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, f"http://{line.removeprefix('listening ')}"


async def cpu_time(client, url: str) -> float:
    async with client.get(f"{url}/cpu") as resp:
        return (await resp.json())["process_time"]


async def one_round(client, url: str, rate: float, round_s: float) -> tuple[float, float, list[float]]:
    """Send ``rate * round_s`` requests open loop; returns (server CPU s, wall s, latencies ms)."""
    body = {"values": [float(i % 17) for i in range(64)]}
    latencies: list[float] = []

    async def request(k: int, intended: float) -> None:
        if k % 2:
            async with client.post(f"{url}/score", json=body) as resp:
                await resp.read()
        else:
            async with client.get(f"{url}/health") as resp:
                await resp.read()
        latencies.append((time.perf_counter() - intended) * 1e3)

    before, started = await cpu_time(client, url), time.perf_counter()
    tasks = []
    for k in range(int(rate * round_s)):
        intended = started + k / rate
        await asyncio.sleep(max(0.0, intended - time.perf_counter()))
        tasks.append(asyncio.ensure_future(request(k, intended)))
    if not tasks:
        await asyncio.sleep(round_s)
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - started
    return await cpu_time(client, url) - before, wall, latencies


def bootstrap_median_ci(values, reps=2000, seed=0):
    rng = np.random.default_rng(seed)
    v = np.asarray(values, float)
    medians = np.median(v[rng.integers(0, len(v), (reps, len(v)))], axis=1)
    return tuple(float(x) for x in np.percentile(medians, [2.5, 97.5]))


async def measure(url: str, rates: list[float], rounds: int, round_s: float) -> tuple[dict, dict]:
    import aiohttp

    results = {}
    connector = aiohttp.TCPConnector(limit=256)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as client:

        stopped: list[dict] = []

        async def switch(variant: str) -> None:
            async with client.post(f"{url}/watchdog/{'on' if variant == 'watchdog' else 'off'}") as resp:
                answer = await resp.json()
            if answer["stopped"]:
                stopped.append(answer["stopped"])

        await one_round(client, url, 100, 0.5)  # warm-up: connections, first-call costs
        for rate in [0.0, *rates]:
            data = {v: {"cpu": [], "wall": [], "lat": []} for v in VARIANTS}
            stopped.clear()
            for r in range(rounds):
                for variant in (VARIANTS if r % 2 == 0 else VARIANTS[::-1]):
                    await switch(variant)
                    cpu, wall, lat = await one_round(client, url, rate, round_s)
                    data[variant]["cpu"].append(cpu)
                    data[variant]["wall"].append(wall)
                    data[variant]["lat"] += lat
            await switch("baseline")
            on_s = sum(s["on_s"] for s in stopped)
            direct = {"thread_cpu_ms_per_s": 1e3 * sum(s["thread_cpu_s"] or 0.0 for s in stopped) / on_s,
                      "iterations_per_s": sum(s["iterations"] for s in stopped) / on_s}
            base, wd = data["baseline"], data["watchdog"]
            entry = {v: {"cpu_ms_per_s": round(1e3 * sum(data[v]["cpu"]) / sum(data[v]["wall"]), 3),
                         "p50_ms": round(float(np.percentile(data[v]["lat"], 50)), 3) if data[v]["lat"] else None,
                         "p99_ms": round(float(np.percentile(data[v]["lat"], 99)), 3) if data[v]["lat"] else None}
                     for v in VARIANTS}
            entry["watchdog_cost_ms_per_s"] = round(entry["watchdog"]["cpu_ms_per_s"]
                                                    - entry["baseline"]["cpu_ms_per_s"], 3)
            entry["direct"] = {k: round(v, 3) for k, v in direct.items()}
            if rate:
                pairs = [w / b for w, b in zip(wd["cpu"], base["cpu"], strict=True) if b > 0]
                lo, hi = bootstrap_median_ci(pairs)
                entry.update(ratio=round(sum(wd["cpu"]) / sum(base["cpu"]), 4),
                             paired=round(statistics.median(pairs), 4),
                             paired_ci95=[round(lo, 4), round(hi, 4)])
            results["idle" if not rate else f"{rate:g}/s"] = entry
        async with client.get(f"{url}/summary") as resp:
            watchdog = await resp.json()
    for entry in results.values():  # direct accounting: the watchdog thread's CPU + the wrapper's per iteration
        d = entry["direct"]
        d["cost_ms_per_s"] = round(d["thread_cpu_ms_per_s"] + d["iterations_per_s"] * watchdog["wrapper_us"] / 1e3, 3)
        if "ratio" in entry:
            d["ratio"] = round(1 + d["cost_ms_per_s"] / entry["baseline"]["cpu_ms_per_s"], 4)
    return results, watchdog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rates", default="200,800", help="request rates to measure, per second (default 200,800)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds per variant and rate (default 10)")
    parser.add_argument("--round-s", type=float, default=1.0, help="length of one round in s (default 1.0)")
    parser.add_argument("--quick", action="store_true", help="smoke run: rate 200, 2 rounds of 0.5 s")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
        return
    rates = [float(r) for r in args.rates.split(",") if r.strip()]
    if args.quick:
        rates, args.rounds, args.round_s = [200.0], 2, 0.5
    cpus = pin()
    proc, url = start_server(cpus[0] if cpus else None)
    if cpus:
        os.sched_setaffinity(0, cpus[1])
    started = time.perf_counter()
    try:
        results, watchdog = asyncio.run(measure(url, rates, args.rounds, args.round_s))
    finally:
        proc.communicate(input="", timeout=30)
    loaded = [v for k, v in results.items() if k != "idle"]
    goal = {"ratio_at_most": GOAL, "ok": all(v["ratio"] <= GOAL for v in loaded),
            "direct_ok": all(v["direct"]["ratio"] <= GOAL for v in loaded)}
    meta = {"rounds": args.rounds, "round_s": args.round_s, "rates": rates, "cpus": os.cpu_count(),
            "server_cpus": sorted(cpus[0]) if cpus else None,
            "load_average": os.getloadavg(), "seconds": round(time.perf_counter() - started, 1)}
    if args.json:
        print(json.dumps({"results": results, "goal": goal, "watchdog": watchdog, "meta": meta}, indent=2))
        return
    print(f"{'load':>8} {'without ms/s':>13} {'with ms/s':>10} {'A/B cost':>9} {'ratio':>7} {'paired (95% CI)':>24} "
          f"{'direct cost':>11} {'direct ratio':>12} {'P50/P99 without':>17} {'P50/P99 with':>17}")
    for name, v in results.items():
        b, w, d = v["baseline"], v["watchdog"], v["direct"]
        ratio = f"{v['ratio']:.4f}" if "ratio" in v else "-"
        paired = f"{v['paired']:.4f} ({v['paired_ci95'][0]:.3f}-{v['paired_ci95'][1]:.3f})" if "paired" in v else "-"
        print(f"{name:>8} {b['cpu_ms_per_s']:>13.2f} {w['cpu_ms_per_s']:>10.2f} {v['watchdog_cost_ms_per_s']:>+9.2f} "
              f"{ratio:>7} {paired:>24} {d['cost_ms_per_s']:>11.3f} {d.get('ratio', float('nan')):>12.4f} "
              f"{latency(b):>17} {latency(w):>17}")
    print(f"watchdog ({watchdog['mode']} mode): {watchdog['iterations']} loop iterations timed "
          f"({watchdog['wrapper_us']:.3f} µs each), iteration P99 up to {watchdog['p99_ms'] or 0:.2f} ms, "
          f"{watchdog['events']} stall(s) past the threshold")
    print(f"goal: ratio <= {GOAL} under load: A/B {'met' if goal['ok'] else 'NOT met'}, direct "
          f"{'met' if goal['direct_ok'] else 'NOT met'} "
          f"({meta['seconds']} s, load average {meta['load_average'][0]:.2f} on {meta['cpus']} cores)")


if __name__ == "__main__":
    main()

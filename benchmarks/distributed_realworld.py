"""The distributed detectors on real DDP faults injected into a public script (measured, never copied).

The script: ``distributed/ddp-tutorial-series/multigpu_torchrun.py`` of pytorch/examples (measured at 77f55b9;
pass a local checkout of the repository). Each fault is a bug users report (labels, sources and verdicts:
``benchmarks/labels/distributed_realworld.json``); for each one the script is copied to a temp directory, made
to run on gloo and the CPU (its ``nccl``, ``cuda:LOCAL_RANK`` and ``device_ids`` lines), given the detector a user
would add (:class:`FlightRecorder` with DDP's buckets through its hook, :class:`WorkerWatch`,
:class:`StragglerMonitor`) and the fault, then run under ``torchrun --standalone --nproc-per-node 2`` (or
``faultlib trace -- torchrun ...``). Prints per fault: torchrun's exit code and wall time, and what
``faultlib check collectives`` / ``trace`` / the monitors said. The patched copies are deleted.

Usage: ``python benchmarks/distributed_realworld.py EXAMPLES_CHECKOUT [FAULT ...] [--json]`` (about 3 min for all
on 2 idle cores; gloo's timeout is set to 60 s, which the broadcast fault waits out). Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SCRIPT = "distributed/ddp-tutorial-series"
RANK = 'int(os.environ["RANK"])'
#: (a line of the script, what it becomes): gloo on the CPU, and the flight recorder when FR_DUMP is set
CPU = [
    ('torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))', 'pass'),
    ('init_process_group(backend="nccl")',
     'init_process_group(backend="gloo", timeout=__import__("datetime").timedelta(seconds=60))\n'
     '    if os.environ.get("FR_DUMP"):\n'
     '        import faultlib.detect as _fd; globals()["FR"] = _fd.FlightRecorder(os.environ["FR_DUMP"], '
     'watchdog_s=3.0).install()'),
    ('self.model = model.to(self.gpu_id)', 'self.model = model'),
    ('self.model = DDP(self.model, device_ids=[self.gpu_id])',
     'self.model = DDP(self.model)\n        if "FR" in globals(): self.model.register_comm_hook(None, FR.ddp_comm_hook())'),
    ('source = source.to(self.gpu_id)', 'pass'), ('targets = targets.to(self.gpu_id)', 'pass'),
    ('pin_memory=True', 'pin_memory=False'),
]
AFTER_BATCH = '            self._run_batch(source, targets)\n'
WATCH = [('    return DataLoader(\n        dataset,', '    global WW\n    WW = __import__("faultlib.detect", fromlist=["x"])'
          '.WorkerWatch(dataset)\n    return DataLoader(\n        WW.dataset, num_workers=2,'),
         ('for source, targets in self.train_data:', 'for source, targets in WW.iterate(self.train_data, epoch=epoch):')]
MONITOR = [('        for source, targets in self.train_data:\n            pass\n            pass\n' + AFTER_BATCH, """\
        global MON
        if "MON" not in globals(): MON = __import__("faultlib.detect", fromlist=["x"]).StragglerMonitor(flight_recorder=FR); self.k = 0
        it = iter(self.train_data)
        while True:
            MON.begin_step(self.k); self.k += 1
            with MON.phase("data"):
                b = next(it, None)
            if b is None: break
            with MON.phase("compute"):
                self._run_batch(*b)
            v = MON.end_step()
            if v and not getattr(self, "told", 0): print("STRAGGLER at step", self.k - 1, v.to_finding().message, flush=True); self.told = 1
""")]
GET = '        return self.data[index]'
#: fault -> (mode, script edits, datautils edit)
FAULTS = {
    "healthy": ("fr", [], None),
    "healthy_trace": ("trace", [], None),
    "uneven_inputs": ("fr", [('train_set = MyTrainDataset(2048)', f'train_set = MyTrainDataset(1024 + 96 * {RANK})'),
                             ('sampler=DistributedSampler(dataset)', 'sampler=DistributedSampler(dataset, num_replicas=1, rank=0)')], None),
    "rank0_barrier": ("fr", [('torch.save(snapshot, self.snapshot_path)',
                              'torch.save(snapshot, self.snapshot_path)\n        torch.distributed.barrier()')], None),
    "allgather_shape": ("fr", [(AFTER_BATCH, AFTER_BATCH + f'        idx = list(range(1025))[{RANK}::2]\n'
                                '        preds = self.model.module(torch.stack([self.train_data.dataset[i][0] for i in idx])).detach()\n'
                                '        out = [torch.zeros_like(preds) for _ in range(2)]\n        torch.distributed.all_gather(out, preds)\n')], None),
    "allreduce_dtype": ("fr", [('        loss.backward()\n', '        loss.backward()\n'
                                f'        t = torch.tensor([loss.item()], dtype=torch.float64 if {RANK} else torch.float32)\n'
                                '        torch.distributed.all_reduce(t)\n')], None),
    "broadcast_src": ("fr", [(AFTER_BATCH, AFTER_BATCH + '        flag = torch.zeros(1)\n'
                              '        torch.distributed.broadcast(flag, src=self.gpu_id)\n')], None),
    "unused_params": ("fr", [('model = torch.nn.Linear(20, 1)  # load your model',
                              'model = torch.nn.ModuleDict({"head": torch.nn.Linear(20, 1), "aux": torch.nn.Linear(20, 1)})\n'
                              '    model.forward = lambda x: model["head"](x)')], None),
    "rank_raises": ("fr", [('        output = self.model(source)\n', f'        self.n = getattr(self, "n", 0) + 1\n'
                            f'        if {RANK} == 1 and self.n == 40: raise ValueError("corrupt record in batch")\n'
                            '        output = self.model(source)\n')], None),
    "rank_raises_trace": ("trace", [('        output = self.model(source)\n', f'        self.n = getattr(self, "n", 0) + 1\n'
                                     f'        if {RANK} == 1 and self.n == 40: raise ValueError("corrupt record in batch")\n'
                                     '        output = self.model(source)\n')], None),
    "nan_rank": ("trace", [], (GET, '        x, y = self.data[index]\n        return (x * float("nan"), y) if index == 1501 else (x, y)')),
    "worker_raise": ("fr", WATCH, (GET, '        if index == 777: raise KeyError(f"label missing for record {index}")\n' + GET)),
    "worker_kill": ("fr", WATCH, (GET, '        if index == 777: os.kill(os.getpid(), 9)\n' + GET)),
    "straggler": ("fr", MONITOR, (GET, '        self.n = getattr(self, "n", 0) + 1\n'
                                  '        if os.environ["RANK"] == "1" and self.n > 320: time.sleep(0.0004)\n' + GET)),
    "straggler_healthy": ("fr", MONITOR, None),
}


def _patch(path: str, edits: list[tuple[str, str]], prefix: str = "") -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for old, new in edits:
        if old not in text:
            raise SystemExit(f"{path}: the line {old!r} is not there: not the measured commit (77f55b9)?")
        text = text.replace(old, new, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(prefix + text)


def _watchdog_dumps(dump_dir: str | None) -> list[dict]:
    docs = []
    for name in sorted(os.listdir(dump_dir)) if dump_dir and os.path.isdir(dump_dir) else []:
        if name.startswith("rank") and name.endswith(".json"):
            try:
                with open(os.path.join(dump_dir, name), encoding="utf-8") as f:
                    doc = json.load(f)
            except (OSError, ValueError):  # being replaced
                continue
            if doc.get("reason") == "watchdog":
                docs.append(doc)
    return docs


def _wait(proc: subprocess.Popen, dump_dir: str | None, start: float, limit_s: float = 300) -> dict:
    """Wait for the world; when every rank's watchdog has dumped (a hang), note how long after the pending
    collective began, then end the world (the backend would wait out its timeout)."""
    while proc.poll() is None and time.monotonic() - start < limit_s:
        docs = _watchdog_dumps(dump_dir)
        if docs and len(docs) == docs[0].get("world_size"):
            pending = [e["start_ns"] for d in docs for e in d["entries"] if e["state"] == "started"]
            detect_s = max(d["dumped_at_ns"] for d in docs) - min(pending) if pending else None
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return {"hang_named_after_s": round(detect_s / 1e9, 2) if detect_s else None}
        time.sleep(0.2)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return {}


def run(checkout: str, fault: str) -> dict:
    mode, edits, data = FAULTS[fault]
    with tempfile.TemporaryDirectory(prefix="faultlib-ddp-") as tmp:
        shutil.copytree(os.path.join(checkout, SCRIPT), tmp, dirs_exist_ok=True)
        _patch(os.path.join(tmp, "multigpu_torchrun.py"), CPU + edits)
        if data:
            _patch(os.path.join(tmp, "datautils.py"), [data], "import os, time\n")
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                "--max-restarts", "0", "--monitor-interval", "0.5", "multigpu_torchrun.py", "2", "1"]
        if mode == "fr":
            env["FR_DUMP"] = os.path.join(tmp, "dumps")
        else:
            argv = [sys.executable, "-m", "faultlib", "trace", "--", *argv]
        start = time.monotonic()
        log = os.path.join(tmp, "world.log")
        with open(log, "w") as sink:
            proc = subprocess.Popen(argv, cwd=tmp, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
            detect = _wait(proc, env.get("FR_DUMP"), start)
        out = {"fault": fault, "mode": mode, "exit_code": proc.returncode, "seconds": round(time.monotonic() - start, 1),
               **detect}
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        out["faultlib_says"] = [line.strip()[:300] for line in text.splitlines()
                                if line.startswith("STRAGGLER") or "faultlib.worker_fault" in line
                                or "first non-finite" in line or "received it through" in line or line.startswith("error:")][:3]
        if mode == "fr" and os.path.isdir(env["FR_DUMP"]):
            check = subprocess.run([sys.executable, "-m", "faultlib", "check", "collectives", env["FR_DUMP"], "--json"],
                                   capture_output=True, text=True, timeout=120)
            doc = json.loads(check.stdout) if check.stdout.strip() else {}
            out["check_collectives"] = [f"{f['kind']}: {f['message'][:300]}" for f in doc.get("findings", [])]
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", help="a local checkout of pytorch/examples (measured at 77f55b9)")
    parser.add_argument("faults", nargs="*", help=f"default: all of {', '.join(FAULTS)}")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for fault in args.faults or list(FAULTS):
        results.append(run(args.checkout, fault))
        if not args.json:
            r = results[-1]
            hang = f", hang named {r['hang_named_after_s']} s after it began (world ended)" if "hang_named_after_s" in r else ""
            print(f"{fault} ({r['mode']}): exit {r['exit_code']} in {r['seconds']} s{hang}", flush=True)
            for line in r["faultlib_says"] + r.get("check_collectives", []):
                print(f"  {line}", flush=True)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()

"""Leave-families-out ablation of ``check blocking``'s inference of synchronous clients (issue 17).

Each held-out wave brings SDKs the vocabulary did not list; :mod:`faultlib.detect.serving.blocking.inferred` infers
such clients from evidence in the code. To measure it honestly on SDKs it was not written for, this script removes
named families from the vocabulary (``--drop`` package names; by default :data:`LONG_TAIL`, the single-SDK families
added one wave at a time in ``libraries/``) and analyses every service of the labelled corpus twice, copied once:
with the full vocabulary and with the families dropped, the inference on; each run without the inference is the same
run's findings less those that carry ``evidence.inferred`` (the inference only judges calls no other rule judged, and
changes nothing else the analysis does; ``--check-plain`` runs them apart too and says where they differ). Printed:

* per dropped family: its true positives (labelled ``tp``/``fn`` lines found with the full vocabulary, no inference,
  whose finding's ``calls`` names the package, and no longer found once it is dropped), and how many of them the
  inference finds alone (ablated recall before: 0 by construction; after: found / lost);
* overall precision and recall of the four runs on the whole corpus;
* every alarm the inference adds (dropped + inference vs dropped, and full + inference vs full), with its label's
  verdict or ``unlabelled``: each must be judged by reading the code and labelled in ``blocking.jsonl``.

All families are dropped together (one pass); a family whose true positives depend on another dropped family's
types is counted under the package its finding names. Usage: ``python benchmarks/blocking_ablation.py CORPUS_ROOT
[--only NAME ...] [--drop PKG ...] [--shard I/N] [--json OUT]``; ``--merge OUT.json ...`` prints the tables of
shards run apart (each with ``--shard I/N --json OUT``).. Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import static_realworld_blocking as bench  # noqa: E402  (the corpus, labels and scoring of the main benchmark)

from faultlib.readers.files import safe_relative  # noqa: E402
from faultlib.readers.jsondoc import load_json_file  # noqa: E402

LONG_TAIL = ("aria2p", "instaloader", "mattermostdriver", "qbittorrentapi", "atlassian", "github", "gitlab", "jira",
             "cassandra", "hvac", "lancedb", "neo4j", "supabase", "weaviate", "zeep", "ccxt", "falconpy", "zenpy",
             "kafka", "karton", "paho", "phue", "pychromecast", "serial", "discord_webhook", "firebase_admin",
             "mastodon", "praw", "pusher", "pymsteams", "pywebpush", "telebot", "yagmail", "clickhouse_connect",
             "clickhouse_driver", "hachoir", "torrentool", "cherry_picker", "tldextract", "nbformat", "email_validator",
             "youtubesearchpython", "sqlalchemy_utils", "ray", "minio", "paramiko", "spotipy", "tweepy", "sendgrid",
             "replicate", "serpapi", "wikipedia", "yfinance", "gspread", "pymilvus", "pinecone", "qdrant_client",
             "wolframalpha", "whois", "duckduckgo_search", "tavily", "ollama", "stripe", "gradio_client", "chromadb",
             "elevenlabs", "deep_translator", "googletrans", "newspaper", "youtube_transcript_api", "fastembed",
             "pinecone_text", "trafaret_config", "confuse", "environs", "pwdlib", "mem0", "dashscope")
"""Single-SDK families of the vocabulary, each added for the wave that met it (``git log`` of ``libraries/``)."""

CONFIGS = ("full", "full+inf", "drop", "drop+inf")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus_root", type=Path, nargs="?")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--drop", nargs="*", default=list(LONG_TAIL))
    parser.add_argument("--check-plain", action="store_true",
                        help="also run without the inference and say where it differs from the derived run")
    parser.add_argument("--shard", default="1/1", help="I/N: only every N-th service from the I-th (1-based)")
    parser.add_argument("--json", type=Path, help="write the per-service results here")
    parser.add_argument("--merge", nargs="+", type=Path, help="print the tables of these shards' JSON files")
    args = parser.parse_args(argv)
    if args.merge:
        report(*merge(args.merge))
        return 0
    from faultlib.detect.serving.blocking import vocab

    full = vocab.vocabulary()
    dropped = bench.vocabulary_without(full, args.drop)
    setups = {"full+inf": full, "drop+inf": dropped}
    bench.FOLLOW.update({"follow_installed": True, "site_dirs": None})
    labels = bench.load_labels(bench.installed_versions(None))
    corpus = load_json_file(bench.CORPUS)
    totals = {c: {"tp": 0, "fp": 0, "positives": 0} for c in CONFIGS}
    families: dict[str, dict[str, list]] = {}
    added: list[dict] = []
    rows = []
    start = time.perf_counter()
    shard, shards = (int(x) for x in args.shard.split("/"))
    for number, entry in enumerate(corpus):
        if (args.only and entry["name"] not in args.only) or number % shards != shard - 1:
            continue
        checkout = args.corpus_root / safe_relative(entry.get("checkout", entry["name"]), what="corpus checkout")
        if not (checkout / entry["scan"]).exists():
            continue
        own = bench.service_labels(entry, labels)
        results = {}
        with tempfile.TemporaryDirectory() as tmp:
            root = bench.copy_entry(entry, checkout, Path(tmp))
            for config, table in setups.items():
                vocab.vocabulary = lambda table=table: table
                found, meta = bench.run_tool(root, entry["scan"])
                results[config] = (found, meta["kinds"])
                results[config.removesuffix("+inf")] = (meta["plain"], meta["kinds"])
                if args.check_plain:  # the run without the inference, apart: the same findings?
                    from faultlib.detect.serving.blocking import inferred

                    site, inferred.site = inferred.site, lambda index, target, call, func: None
                    alone = bench.run_tool(root, entry["scan"])[0]
                    inferred.site = site
                    if alone != meta["plain"]:
                        print(f"{entry['name']} {config}: without the inference {sorted(alone ^ meta['plain'])} "
                              "differ", file=sys.stderr)
        vocab.vocabulary = lambda: full
        positive = {k for k, r in own.items() if r["verdict"] in ("tp", "fn")}
        for config, (found, _) in results.items():
            s = bench.score(found, own)
            for k in ("tp", "fp", "positives"):
                totals[config][k] += s[k]
        base, base_kinds = results["full"]
        lost = (base & positive) - results["drop"][0]
        for key in sorted(lost):
            calls = base_kinds[key].partition(" ")[2]
            family = next((p for p in args.drop if calls == p or calls.startswith(f"{p}.")), "(other)")
            verdict = "found" if key in results["drop+inf"][0] else "missed"
            families.setdefault(family, {"found": [], "missed": []})[verdict].append(
                (entry["name"], *key, base_kinds[key]))
        for plain, more in (("drop", "drop+inf"), ("full", "full+inf")):
            for key in sorted(results[more][0] - results[plain][0]):
                added.append({"run": more, "service": entry["name"], "repository": entry["repository"],
                              "commit": entry["commit"], "path": key[0], "line": key[1],
                              "calls": results[more][1][key], "label": own.get(key, {}).get("verdict", "unlabelled")})
        rows.append({"service": entry["name"], **{c: len(r[0]) for c, r in results.items()}})
        print(f"{entry['name']}: " + ", ".join(f"{c} {len(r[0])}" for c, r in results.items()),
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps({"totals": totals, "families": families, "added": added, "rows": rows},
                                        indent=1))
    report(totals, families, added)
    return 0


def merge(paths: list[Path]) -> tuple[dict, dict, list]:
    """The totals, families and added alarms of the shards written to ``paths``, summed."""
    totals = {c: {"tp": 0, "fp": 0, "positives": 0} for c in CONFIGS}
    families: dict[str, dict[str, list]] = {}
    added: list[dict] = []
    for path in paths:
        part = json.loads(path.read_text())
        for config, t in part["totals"].items():
            for k in ("tp", "fp", "positives"):
                totals[config][k] += t[k]
        for family, v in part["families"].items():
            for verdict in ("found", "missed"):
                families.setdefault(family, {"found": [], "missed": []})[verdict] += v[verdict]
        added += part["added"]
    return totals, families, added


def report(totals: dict, families: dict, added: list) -> None:
    """Print the tables (see the module docstring)."""
    for config, t in totals.items():
        p = t["tp"] / (t["tp"] + t["fp"]) if t["tp"] + t["fp"] else None
        r = t["tp"] / t["positives"] if t["positives"] else None
        t.update(precision=p, recall=r)
        print(f"{config:<9} precision {bench._fmt(p)}  recall {bench._fmt(r)}  (tp {t['tp']}, fp {t['fp']}, "
              f"blockers {t['positives']})")
    print("\nper dropped family: its true positives lost when dropped, found by the inference alone")
    all_found = all_lost = 0
    for family, v in sorted(families.items(), key=lambda kv: -len(kv[1]["found"]) - len(kv[1]["missed"])):
        n, k = len(v["found"]) + len(v["missed"]), len(v["found"])
        all_found, all_lost = all_found + k, all_lost + n
        print(f"  {family:<22} {k:>3}/{n:<3} ablated recall before 0.00 after {k / n:.2f}")
    if all_lost:
        print(f"  {'all':<22} {all_found:>3}/{all_lost:<3} ablated recall before 0.00 after {all_found / all_lost:.2f}")
    print("\nalarms the inference adds:")
    for a in added:
        print(f"  [{a['run']}] {a['label']:<10} {a['service']}: {a['path']}:{a['line']} {a['calls'][:150]}")
    for family, v in sorted(families.items()):
        for service, path, line, calls in v["missed"]:
            print(f"missed [{family}] {service}: {path}:{line} {calls[:120]}")


if __name__ == "__main__":
    sys.exit(main())

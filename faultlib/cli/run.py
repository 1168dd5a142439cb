"""``faultlib run CASE_DIR``: control run, faulted run, assertion suite; the evidence archived."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from faultlib.cli.params import SEED, TIMEOUT_S, world_workload_option
from faultlib.cli.root import CASE_DIR
from faultlib.console import emit_json, state, stderr, stdout
from faultlib.errors import RunNotArchived


def _print_run_objects(case, backend, *, seed: int | None, timeout: float | None, control: bool,
                       as_json: bool) -> int:
    """``run --dry-run``: the Kubernetes objects of a run as YAML documents on stdout; no cluster needed."""
    from faultlib.backends.kube_manifests import to_yaml
    from faultlib.runner import new_run_id

    if backend.name != "kubernetes":
        raise click.UsageError("--dry-run prints the Kubernetes objects of a run: use it with --backend kubernetes")
    if as_json:
        raise click.UsageError("--dry-run prints YAML documents: leave out --json")
    objects = backend.render(case, run_id=new_run_id(), seed=seed, timeout_s=timeout, control=control)
    if backend.crd_dir is None and any(o["apiVersion"].startswith("chaos-mesh.org/") for o in objects):
        stderr.print("note: the Chaos Mesh objects were not validated: pass --crd-dir DIR (Chaos Mesh's "
                     "config/crd/bases) to validate them against the CRD schemas", markup=False, highlight=False)
    sys.stdout.write(to_yaml(objects))
    return 0


@click.command("run")
@click.argument("case_dir", type=CASE_DIR)
@click.option("--backend", type=click.Choice(["local", "compose", "kubernetes"]), default="local", show_default=True,
              help="Where the phases run.")
@click.option("--archive", metavar="URI", default=None,
              help="file://DIR or s3://BUCKET/PREFIX (default file://.faultlib/runs).")
@click.option("--no-control", is_flag=True, help="Skip the control run (and its false-positive check).")
@click.option("--seed", type=SEED, default=None, help="Override repro.seed (0 to 2**32-1).")
@click.option("--timeout", type=TIMEOUT_S, default=None, metavar="SECONDS",
              help="Per-phase timeout in seconds, finite, at most 86400 (default repro.timeout_s).")
@click.option("--prometheus", is_flag=True,
              help="Evaluate the case's PromQL with a real Prometheus over the run's metrics (promql.json; "
                   "needs promtool and prometheus: apt-get install -y --no-install-recommends prometheus; "
                   "exit 3 before the run when they are missing).")
@click.option("--json", "as_json", is_flag=True, help="Print the run record as one JSON object on stdout (progress stays on stderr).")
@click.option("--dry-run", is_flag=True,
              help="kubernetes only: print the run's objects (archive Secret, ConfigMap, volume claim, topology "
                   "Deployments and Services, Jobs, Chaos Mesh objects) as YAML and exit.")
@click.option("--image", metavar="IMAGE", default=None,
              help="compose, kubernetes: the repro image (default faultlib/trainer:0.1).")
@click.option("--namespace", metavar="NS", default=None, help="kubernetes only: namespace of the run's objects, "
              "a DNS label (default 'default').")
@click.option("--crd-dir", type=click.Path(path_type=Path), default=None,
              help="kubernetes only: Chaos Mesh CRD manifests to validate the chaos objects against "
                   "(default: the API server's dry run).")
@click.option("--storage-class", metavar="CLASS", default=None,
              help="kubernetes only: StorageClass of the run's volume (default: the cluster's default class).")
@click.option("--volume-size", metavar="SIZE", default=None,
              help="kubernetes only: size of the run's volume, a Kubernetes quantity (default 1Gi).")
@world_workload_option
def run(case_dir: Path, backend: str, archive: str | None, no_control: bool, seed: int | None,
        timeout: float | None, prometheus: bool, as_json: bool, dry_run: bool, image: str | None,
        namespace: str | None, crd_dir: Path | None, storage_class: str | None, volume_size: str | None,
        world_workload: str | None) -> int:
    """Run a case: control run, faulted run, assertion suite; archive the evidence.

    Exit code 0 when the verdict is passed, 1 when it is failed or error, 3 when it passed but the
    archive could not be reached (the evidence then waits in the local spool: faultlib archive flush URI).
    """
    from faultlib.archive import open_archive
    from faultlib.backends import get_backend
    from faultlib.cases import load_case
    from faultlib.cli.progress import RichProgress, print_summary
    from faultlib.record import Verdict
    from faultlib.runner import Runner

    state["json"] = as_json
    state["writes_evidence"] = True  # an interrupted run keeps what it wrote (said on Ctrl-C or SIGTERM)
    case = load_case(case_dir)
    if world_workload and case.world is None:  # was ignored without a word
        raise click.UsageError(f"--world-workload applies to a distributed case (repro.world in case.yaml); "
                               f"{case.id} runs one process")
    if prometheus and not dry_run:
        from faultlib.observability.prometheus import require_binaries

        require_binaries()  # exit 3 before the run, not a finding after it
    runner_backend = get_backend(backend, image=image, namespace=namespace, crd_dir=crd_dir,
                                 storage_class=storage_class, volume_size=volume_size, archive=archive,
                                 world_workload=world_workload)
    if dry_run:
        return _print_run_objects(case, runner_backend, seed=seed, timeout=timeout, control=not no_control,
                                  as_json=as_json)
    store = open_archive(archive)
    listener = RichProgress(stderr)  # progress on stderr, also with --json (stdout holds only the record)
    not_archived = None
    try:
        record = Runner(store, backend=runner_backend, listener=listener).run(
            case, control=not no_control, seed=seed, timeout_s=timeout, prometheus=prometheus)
    except RunNotArchived as exc:  # the run is complete in the spool: report it, then say how to flush it
        record, not_archived = exc.record, exc
    if as_json:
        emit_json(record.to_json())
    else:
        print_summary(stdout, record, str(not_archived.run_dir) if not_archived else record.archive_uri)
    verdict_code = 0 if record.verdict is Verdict.PASSED else 1
    if not_archived:
        stderr.print(f"error: {not_archived}", markup=False, highlight=False, soft_wrap=True)
        return verdict_code or not_archived.exit_code
    return verdict_code

"""The files under ci/, checked offline against what reads them: the workflow against GitHub's schema
(check-jsonschema's vendored copy), the Dockerfile with a parser, the Job against the Kubernetes OpenAPI
schema (kubernetes-validate, strict); and the commands they run against faultlib's own CLI."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

from faultlib.cli.app import app
from tests.conftest import REPO

CI = REPO / "ci"
WORKFLOW = CI / "nightly.yml"
GITHUB_COPY = REPO / ".github" / "workflows" / "nightly.yml"
DOCKERFILE = CI / "Dockerfile"
JOB = CI / "regress-job.yaml"


def _regress_args(command: str, values: dict[str, str]) -> list[str]:
    """The arguments after ``faultlib regress`` in a shell command, with ``$VAR``/``${VAR}``/``$(VAR)`` filled in."""
    command = re.sub(r"\$\{(\w+):\+[^}]*\}", "", command)  # ${X:+...} with X empty
    for name, value in values.items():
        command = command.replace(f"${{{name}}}", value).replace(f"$({name})", value).replace(f"${name}", value)
    argv = shlex.split(command.replace("\\\n", " "))
    return argv[argv.index("regress") + 1:]


def _parses_as_regress(args: list[str]) -> dict:
    """Parse ``args`` with the real ``faultlib regress`` command (click), without running it."""
    ctx = app.get_command(click.Context(app), "regress").make_context("regress", list(args), resilient_parsing=False)
    return ctx.params


# -- the workflow --------------------------------------------------------------------------------------------

def test_workflow_copy_for_github_is_identical():
    assert GITHUB_COPY.read_bytes() == WORKFLOW.read_bytes(), \
        "edit ci/nightly.yml, then: cp ci/nightly.yml .github/workflows/nightly.yml"


def test_workflow_validates_against_the_github_actions_schema():
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(exe).exists():
        pytest.skip("check-jsonschema is not installed: pip install -e '.[dev]'")
    proc = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW), str(GITHUB_COPY)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflow_runs_nightly_and_on_demand_with_a_shard_matrix():
    flow = yaml.safe_load(WORKFLOW.read_text())
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as True
    assert triggers["schedule"][0]["cron"] and "workflow_dispatch" in triggers
    job = flow["jobs"]["regress"]
    shards = job["strategy"]["matrix"]["shard"]
    count = int(flow["env"]["SHARDS"])
    assert shards == list(range(count)), "matrix.shard must be 0..SHARDS-1"
    assert job["strategy"]["fail-fast"] is False, "one failing shard must not cancel the others"
    steps = job["steps"]
    install = next(s["run"] for s in steps if "pip install" in s.get("run", ""))
    assert "torch==${TORCH_VERSION}" in install and "-e '.[dev]'" in install
    assert flow["env"]["TORCH_VERSION"] == "2.13.0" and flow["env"]["TORCH_INDEX_URL"].endswith("/whl/cpu")
    for name in ("FAULTLIB_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        assert job["env"][name] == f"${{{{ secrets.{name} }}}}"
    choose = next(s["run"] for s in steps if "ARCHIVE=" in s.get("run", ""))
    assert "s3://" in choose and "file://" in choose and '-n "$AWS_SECRET_ACCESS_KEY"' in choose
    regress_step = next(s for s in steps if "faultlib regress" in s.get("run", ""))
    assert regress_step["env"]["SHARD"] == "${{ matrix.shard }}"
    params = _parses_as_regress(_regress_args(regress_step["run"], {
        "SHARD": "1", "SHARDS": str(count), "ARCHIVE": "file://runs", "FAULT_CLASS": ""}))
    assert str(params["shard"]) == f"1/{count}" and params["junit_path"] and params["report_path"]
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and all(s["if"].startswith("always()") for s in uploads), "artifacts also when a case failed"
    assert uploads[0]["with"]["path"] == "out/"


def test_workflow_merges_the_shards_junit_in_a_final_job():
    flow = yaml.safe_load(WORKFLOW.read_text())
    summary = flow["jobs"]["summary"]
    assert summary["needs"] == "regress" and summary["if"] == "always()"
    download = next(s for s in summary["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["pattern"] == "regress-shard-*" and download["with"]["merge-multiple"] is True
    merge = next(s["run"] for s in summary["steps"] if "faultlib.regress.junit" in s.get("run", ""))
    assert merge.startswith("python -m faultlib.regress.junit merge --out ")
    regress_step = next(s for s in flow["jobs"]["regress"]["steps"] if "faultlib regress" in s.get("run", ""))
    assert "out/junit-${SHARD}.xml" in regress_step["run"] and "shards/junit-*.xml" in merge


# -- the Dockerfile ------------------------------------------------------------------------------------------

def _dockerfile():
    parse = pytest.importorskip("dockerfile_parse", reason="dockerfile-parse is not installed: pip install -e '.[dev]'")
    return parse.DockerfileParser(path=str(DOCKERFILE))


def test_dockerfile_base_image_is_pinned_by_digest_and_says_how_to_refresh():
    parser = _dockerfile()
    froms = [i["value"] for i in parser.structure if i["instruction"] == "FROM"]
    assert froms and all(re.fullmatch(r"[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}( AS \w+)?", f) for f in froms), froms
    assert parser.baseimage.startswith("python:3.11-slim@sha256:")
    assert not any(":latest" in f for f in froms)
    text = DOCKERFILE.read_text()
    assert "imagetools inspect python:3.11-slim" in text, "the comment says how to refresh the digest"


def test_dockerfile_runs_as_a_non_root_user_without_secrets_or_remote_adds():
    parser = _dockerfile()
    instructions = [(i["instruction"], i["value"]) for i in parser.structure]
    users = [v for k, v in instructions if k == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), "the image ends as a non-root user"
    assert not [v for k, v in instructions if k == "ADD"], "COPY only: no ADD (of URLs or archives)"
    for kind, value in instructions:
        if kind in ("ENV", "ARG"):
            names = re.findall(r"(\w+)=", value) or [value.split()[0]]
            assert not [n for n in names if re.search(r"SECRET|PASSWORD|TOKEN|ACCESS_KEY", n, re.IGNORECASE)], value
    runs = " ".join(v for k, v in instructions if k == "RUN")
    assert "--index-url \"${TORCH_INDEX_URL}\"" in runs and "torch==${TORCH_VERSION}" in runs
    assert parser.args["TORCH_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    assert "'.[torch,serving,data,onnx," in runs and "--constraint constraints.txt" in runs and "pip check" in runs
    copies = [v for k, v in instructions if k == "COPY"]
    assert "cases ./cases" in copies and "faultlib ./faultlib" in copies


def test_dockerfile_installs_every_extra_a_case_needs():
    from faultlib.cases import discover

    text = DOCKERFILE.read_text()
    extras = re.search(r"'\.\[([\w,]+)\]'", text).group(1).split(",")
    pyproject = (REPO / "pyproject.toml").read_text()
    for extra in extras:
        assert re.search(rf"^{extra} = \[", pyproject, re.MULTILINE), f"extra {extra} is not in pyproject.toml"
    assert "requires'].get('packages')" in text, "every case's requires.packages is installed too"
    assert discover(REPO / "cases"), "the image copies the catalog"


def test_dockerignore_keeps_the_context_small():
    ignore = (CI / "Dockerfile.dockerignore").read_text().split()
    assert ignore[ignore.index("**")] == "**" and "!faultlib/**" in ignore and "!cases/**" in ignore
    assert "!ci/constraints.txt" in ignore
    pins = [line for line in (CI / "constraints.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-]+==[\w.+!-]+", p) for p in pins), "one name==version a line"
    assert any(p.startswith("torch==2.13.0") for p in pins) and not any(p.lower().startswith("faultlib") for p in pins)


# -- the indexed Job ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["1.31.0", "1.33.0", "1.37.0"])
def test_job_validates_against_the_kubernetes_openapi_schema(version):
    validate = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed")
    data = yaml.safe_load(JOB.read_text())
    validate.validate(data, version, strict=True)


def test_job_runs_one_shard_per_index():
    job = yaml.safe_load(JOB.read_text())
    spec = job["spec"]
    assert job["kind"] == "Job" and job["apiVersion"] == "batch/v1" and spec["completionMode"] == "Indexed"
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    argv = [*container["command"], *container["args"]]
    shard = argv[argv.index("--shard") + 1]
    assert shard == f"$(JOB_COMPLETION_INDEX)/{spec['completions']}" and spec["parallelism"] == spec["completions"]
    env = {e["name"]: e for e in container["env"]}
    assert env["JOB_COMPLETION_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"] == \
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    params = _parses_as_regress(_regress_args(" ".join(shlex.quote(a) for a in argv), {
        "JOB_COMPLETION_INDEX": "2", "FAULTLIB_ARCHIVE": env["FAULTLIB_ARCHIVE"]["value"]}))
    assert str(params["shard"]) == f"2/{spec['completions']}" and params["archive"].startswith("s3://")
    for name in ("FAULTLIB_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        assert "secretKeyRef" in env[name]["valueFrom"] and "value" not in env[name], f"{name} from a Secret only"
    assert pod["restartPolicy"] == "Never" and pod["securityContext"]["runAsNonRoot"] is True
    assert pod["automountServiceAccountToken"] is False
    from faultlib.backends.kube_names import DEFAULT_IMAGE

    assert container["image"] == DEFAULT_IMAGE and f"-t {DEFAULT_IMAGE}" in DOCKERFILE.read_text()
    rule = spec["podFailurePolicy"]["rules"][0]
    assert rule["action"] == "FailIndex" and rule["onExitCodes"]["values"] == [1, 2], "a failed catalog is not retried"


def test_ci_readme_covers_every_file():
    text = (CI / "README.md").read_text()
    for name in ("nightly.yml", "Dockerfile", "regress-job.yaml", "constraints.txt", ".github/workflows/nightly.yml",
                 "python -m faultlib.regress.junit merge", "faultlib regress cases --shard 0/4"):
        assert name in text, name


def test_parse_helper_rejects_what_the_cli_rejects():
    with pytest.raises(click.BadParameter):
        _parses_as_regress(["cases", "--shard", "4/4"])

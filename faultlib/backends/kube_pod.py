"""The pod side of a Kubernetes run, the command of every Job's container::

    python -m faultlib.backends.kube_pod --state-dir /faultlib/state [--archive s3://BUCKET/PREFIX] \\
        -- python /case/repro.py

In order, it

1. moves the archive's endpoint and keys (from the run's Secret, through ``secretKeyRef``) out of
   its environment block (:func:`faultlib.archive.credentials.secure_process`): the repro, its
   child, never gets them, and cannot read them from ``/proc``;
2. numbers the attempt. After a failure (a pod killed by PodChaos, a local ``process_kill`` kept
   with ``keep_local``) the Job starts a *new* pod (``restartPolicy: Never``), which cannot tell how
   many went before it: its ``restartCount`` is 0, the downward API has no retry number, and a
   non-indexed Job has no ``JOB_COMPLETION_INDEX``. The pods of a phase share the run's volume, so
   the entry point claims the first free number N as the file ``<state dir>/attempts/<phase>/N``
   (``O_CREAT | O_EXCL``: atomic, even if a pod still terminates while the next one starts) and
   gives it to the repro as ``FAULTLIB_ATTEMPT``. The count survives every death of a pod, which a
   number kept in memory, in the Job spec or in the pod would not;
3. runs the repro in its own session (process group): a ``process_kill`` shim kills the repro's
   group, not this process; SIGTERM and SIGINT (the Job's deadline, the pod's deletion) are passed
   on to the group;
4. uploads the run directory to the ``s3://`` archive, whatever the repro's exit
   (:func:`faultlib.backends.kube_evidence.upload_run_dir`); a failed upload is reported on stderr
   and never changes the exit code;
5. exits with the repro's exit code, 128 + N after a death by signal N (as a shell reports it),
   which the Job's ``podFailurePolicy`` and the backend read.

Its output goes to the pod's log: one ``# faultlib phase=NAME attempt=N`` line first, then the
repro's stdout and stderr.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

ENV_PHASE = "FAULTLIB_PHASE"
ENV_ATTEMPT = "FAULTLIB_ATTEMPT"
ENV_RUN_DIR = "FAULTLIB_RUN_DIR"
ENV_CASE_ID = "FAULTLIB_CASE_ID"
ENV_RUN_ID = "FAULTLIB_RUN_ID"
EXIT_NOT_STARTED = 127   # the repro could not be started (as a shell reports a command not found)


def claim_attempt(state_dir: Path, phase: str) -> int:
    """Claim the next attempt number of ``phase`` on the shared volume (1 for the first pod).

    Raises:
        OSError: the state directory cannot be written.
    """
    directory = state_dir / "attempts" / phase
    directory.mkdir(parents=True, exist_ok=True)
    number = 1
    while True:
        try:
            fd = os.open(directory / str(number), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            number += 1
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{os.environ.get('HOSTNAME', '')}\n")
        return number


def exit_status(returncode: int) -> int:
    """A ``subprocess`` return code as a process exit status: -N (killed by signal N) is 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


def run_repro(argv: list[str], env: dict[str, str]) -> int:
    """Run ``argv`` as the leader of a new process group, passing SIGTERM/SIGINT on; its exit status."""
    try:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        print(f"# faultlib: cannot start {argv[0]}: {exc}", file=sys.stderr, flush=True)
        return EXIT_NOT_STARTED

    def forward(signum, _frame) -> None:
        try:
            os.killpg(proc.pid, signum)
        except ProcessLookupError:
            pass

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        returncode = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    try:  # the leader is gone: take what it left in its group with it
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return exit_status(returncode)


def upload(archive: str, run_dir: Path) -> None:
    """Upload the run directory; report on stderr, never raise (the repro's exit code matters more)."""
    from faultlib.backends.kube_evidence import upload_run_dir
    from faultlib.errors import FaultlibError

    try:
        sent, unchanged = upload_run_dir(run_dir, archive, os.environ[ENV_CASE_ID], os.environ[ENV_RUN_ID])
    except (FaultlibError, KeyError, OSError) as exc:
        print(f"# faultlib: evidence not uploaded to the archive: {type(exc).__name__}: {exc}", file=sys.stderr,
              flush=True)
        return
    print(f"# faultlib: evidence uploaded to the archive: {sent} file(s) sent, {unchanged} unchanged", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring); returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m faultlib.backends.kube_pod", description=__doc__.splitlines()[0])
    parser.add_argument("--state-dir", type=Path, required=True, help="bookkeeping directory on the run's volume")
    parser.add_argument("--archive", default=None, help="s3://BUCKET/PREFIX to upload the run directory into")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the repro's argv")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the repro's command after --")

    from faultlib.archive.credentials import without_secrets

    phase = os.environ.get(ENV_PHASE, "phase")
    try:
        attempt = claim_attempt(args.state_dir, phase)
    except OSError as exc:  # the run's volume is not writable: the repro could not keep its evidence either
        print(f"# faultlib: cannot count the attempts of phase {phase} in {args.state_dir}: {exc}", file=sys.stderr,
              flush=True)
        return 1
    print(f"# faultlib phase={phase} attempt={attempt}", flush=True)
    code = run_repro(command, {**without_secrets(os.environ), ENV_ATTEMPT: str(attempt)})
    print(f"# faultlib: phase {phase} attempt {attempt} exit code {code}", flush=True)
    if args.archive:
        upload(args.archive, Path(os.environ.get(ENV_RUN_DIR, ".")))
    return code


if __name__ == "__main__":
    from faultlib.archive.credentials import secure_process

    secure_process()  # first: may re-execute this process once, without the keys in its environment
    sys.exit(main())

"""Interactive child processes over a pseudo-terminal: pexpect's ``spawn`` and its relatives.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; found by
held-out wave 69: an MCP shell server waits for its bash prompt with ``shell.expect(...)`` in the tool handler).
pexpect talks to a child through a pty in the calling thread: ``expect`` (and ``expect_exact``, ``expect_list``)
reads the child's output with ``select`` until a pattern matches, EOF, or ``timeout`` seconds (30 by default), and
``read``/``readline`` wait for the child's output the same way; ``wait`` waits for the child to exit;
``pexpect.run`` starts a command and waits for all of its output; ``REPLWrapper.run_command`` sends a line and
expects the prompt. ``send``/``sendline`` only write to the pty and are left out (their ``delaybeforesend`` pause is
50 ms by default), and so is ``pexpect.spawn(...)`` itself, which forks the child without waiting, as
``subprocess.Popen`` is. The asyncio form -- ``expect(..., async_=True)``, awaited -- is never a finding.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

S = "blocking_subprocess"
API = "https://pexpect.readthedocs.io/en/stable/api/pexpect.html"
EXPECT = (API + "#pexpect.spawn.expect (\"This seeks through the stream until a pattern is matched ... the default "
          "timeout is 30 seconds\"; read/readline read the child's output the same way, wait \"waits until the child "
          "exits. This is a blocking call\")")
RUN = API + "#pexpect.run (\"runs the given command; waits for it to finish; then returns all output as a string\")"
REPLWRAP = ("https://pexpect.readthedocs.io/en/stable/api/replwrap.html#pexpect.replwrap.REPLWrapper.run_command "
            "(sends the command and expects the prompt, timeout 30 s by default)")

SPAWNS = ("pexpect.spawn", "pexpect.pty_spawn.spawn", "pexpect.spawnu", "pexpect.popen_spawn.PopenSpawn",
          "pexpect.fdpexpect.fdspawn", "pexpect.spawnbase.SpawnBase")
WAITS = ("expect", "expect_exact", "expect_list", "expect_loop", "read", "readline", "readlines", "read_nonblocking",
         "wait", "interact")

PTY_CHILDREN = Vocabulary(
    calls={"pexpect.run": (S, RUN), "pexpect.runu": (S, RUN)},
    families=(
        Family(SPAWNS, {m: S for m in WAITS}, EXPECT),
        Family(("pexpect.replwrap.REPLWrapper",), {"run_command": S}, REPLWRAP),
    ),
    returns={s: s for s in SPAWNS},
)

"""Where the ranks of a test's torch.distributed world meet, without a port picked before it is bound.

The usual test recipe (bind a socket to port 0, read the port, close it, hand it to the ranks) leaves a window:
rank 0 binds the port seconds later, after importing torch, and meanwhile the other xdist worker's world or any
outgoing connection on the machine may be given the same port (the kernel hands out a free port again once it is
released). Rank 0 then fails with EADDRINUSE, or worse, the ranks of two worlds meet at one store. Here the
process that binds the port picks it: :func:`agent_store` hosts the TCP store in the test process on port 0, the
way torchrun's agent hosts it for its ranks (``TORCHELASTIC_USE_AGENT_STORE``: every rank connects, none binds);
a one-rank world in the test process needs no port at all (:func:`one_rank_store`); torchrun is given
``--standalone`` (its agent binds port 0 itself).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator

HOST = "127.0.0.1"


@contextlib.contextmanager
def agent_store(timeout_s: float = 300) -> Iterator[dict[str, str]]:
    """Host a TCP store on a port the OS picks as it binds; yields the environment each rank process needs
    (``MASTER_ADDR``, ``MASTER_PORT``, ``TORCHELASTIC_USE_AGENT_STORE``) with ``init_process_group``'s default
    ``env://``. The store lives until the block ends: end it after the ranks (they may still read it)."""
    from torch.distributed import TCPStore

    store = TCPStore(HOST, 0, None, True, timeout=datetime.timedelta(seconds=timeout_s), wait_for_workers=False)
    try:
        yield {"MASTER_ADDR": HOST, "MASTER_PORT": str(store.port), "TORCHELASTIC_USE_AGENT_STORE": "True"}
    finally:
        del store


def one_rank_store():
    """A store for ``init_process_group(..., store=one_rank_store(), rank=0, world_size=1)`` in the test process:
    in memory, no port."""
    from torch.distributed import HashStore

    return HashStore()

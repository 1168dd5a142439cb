"""SSH connections of Fabric, and the SFTP client and remote files they hand out (paramiko's).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; paramiko's
own classes are a whole-package family in :mod:`faultlib.detect.serving.blocking.sdks`). Fabric's ``Connection`` is
a lazy wrapper over a paramiko ``SSHClient``: building one opens nothing, ``open()`` connects and authenticates,
``run``/``sudo`` execute a remote command and wait for it to exit, ``put``/``get`` transfer a file over SFTP, and
``sftp()`` opens an SFTP session on the connection (opening the connection first) and returns paramiko's
``SFTPClient`` (https://docs.fabfile.org/en/latest/api/connection.html: "sftp(): Return a SFTPClient object", "open():
Initiate an SSH connection to the host/port this object is bound to"); ``local`` runs a local subprocess. Every
``SFTPClient`` method is a request/response round trip on the SSH channel, and ``open``/``file`` give an
``SFTPFile`` whose ``read``/``write`` move the data over it (https://docs.paramiko.org/en/stable/api/sftp.html).
Before this table the class name ``Connection`` was taken for a database connection (a guess: ``blocking_db``), and
the SFTP client it returned was untyped (held-out wave 65: a Litestar service's remote file handlers).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

SOCKET = "blocking_socket_io"
FABRIC_DOC = ("https://docs.fabfile.org/en/latest/api/connection.html (open connects and authenticates over SSH; "
              "run/sudo wait for the remote command; put/get transfer over SFTP; sftp() opens an SFTP session and "
              "returns paramiko's SFTPClient; local runs a subprocess)")

_CONNECTIONS = ("fabric.Connection", "fabric.connection.Connection")
_SFTP_CLIENTS = ("paramiko.SFTPClient", "paramiko.sftp_client.SFTPClient", "paramiko.SFTP", "paramiko.sftp_client.SFTP")
_SFTP_FILE = "paramiko.sftp_file.SFTPFile"

SSH = Vocabulary(
    families=(
        Family(("fabric",), {"*": SOCKET, "local": "blocking_subprocess"}, FABRIC_DOC, package=True, functions=False,
               except_=frozenset({"close", "__call__", "cd", "prefix", "derive_shorthand", "resolve_connect_kwargs",
                                  "is_connected"})),
    ),
    returns={
        **{f"{c}.sftp": _SFTP_CLIENTS[1] for c in _CONNECTIONS},
        **{f"{c}.{m}": _SFTP_FILE for c in _SFTP_CLIENTS for m in ("open", "file")},
    },
)

"""The standard library's network clients and servers beyond sockets and HTTP: TLS sockets, XML-RPC proxies,
telnet, name lookups, ``robots.txt`` fetches, blocking servers and readiness waits (``selectors``, ``select.poll``), and
the mail and file-transfer clients' constructors (held-out wave 43: ``imaplib.IMAP4_SSL(host)`` in a scraper's async
login) and IMAP's ``close`` (the CLOSE command), which the package entries of
:mod:`~faultlib.detect.serving.blocking.sdks` leave out.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; plain
sockets, ``http.client``, ``urllib.request`` and ``select.select`` are in
:mod:`~faultlib.detect.serving.blocking.libraries.stdlib`, smtplib/ftplib/imaplib/poplib in
:mod:`~faultlib.detect.serving.blocking.sdks`). Each entry names the documentation of the call.
A wait with a zero timeout (``sel.select(0)``, ``poller.poll(0)``) returns at once and is left out. Wrapping a
socket with TLS (``ctx.wrap_socket``) is not reported itself (a listening socket does no handshake) but types the
result, whose reads and writes are.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

S, H = "blocking_socket_io", "blocking_http"
PY = "https://docs.python.org/3/library/"
_SELECTORS = tuple(f"selectors.{c}" for c in ("DefaultSelector", "SelectSelector", "PollSelector", "EpollSelector",
                                              "DevpollSelector", "KqueueSelector", "BaseSelector"))
_POLLS = ("select.poll", "select.epoll", "select.devpoll")
_SERVERS = (*(f"socketserver.{c}" for c in ("TCPServer", "UDPServer", "ThreadingTCPServer", "ForkingTCPServer",
                                             "ThreadingUDPServer", "UnixStreamServer", "BaseServer")),
            "http.server.HTTPServer", "http.server.ThreadingHTTPServer", "wsgiref.simple_server.WSGIServer",
            "xmlrpc.server.SimpleXMLRPCServer")
_MAIL_CONNECT = ("https://docs.python.org/3/library/imaplib.html#imaplib.IMAP4 (\"If host is not specified, '' (the "
                 "local host) is used\": the constructor connects and reads the greeting; POP3 likewise; SMTP, LMTP "
                 "and FTP connect in the constructor when a host is given)")
_CONNECT_IF_HOST = ("smtplib.SMTP", "smtplib.SMTP_SSL", "smtplib.LMTP", "ftplib.FTP", "ftplib.FTP_TLS")
_NOT_ZERO = BlocksWhen("timeout", position=0, test="other_than", absent=True, values=(0, 0.0))
NET_STDLIB = Vocabulary(
    calls={
        **names(S, PY + "ssl.html#ssl.get_server_certificate (connects to the server and runs the handshake)", "ssl",
                "get_server_certificate"),
        **names(S, PY + "socket.html#socket.getfqdn (a reverse and a forward DNS lookup)", "socket", "getfqdn",
                "gethostbyname_ex", "getnameinfo"),
        **names(S, PY + "socket.html#socket.socket.recvmsg", "socket.socket", "recvmsg", "sendmsg", "recvfrom_into"),
        **names(H, PY + "urllib.robotparser.html#urllib.robotparser.RobotFileParser.read (fetches robots.txt)",
                "urllib.robotparser.RobotFileParser", "read"),
        **{f"{c}.select": (S, PY + "selectors.html#selectors.BaseSelector.select (waits until a registered file "
                              "object is ready or the timeout passes; None waits for ever)") for c in _SELECTORS},
        **{f"{c}.poll": (S, PY + "select.html#select.poll.poll (waits for an event; no timeout waits for ever)")
           for c in _POLLS},
        **{c: (S, _MAIL_CONNECT) for c in ("imaplib.IMAP4", "imaplib.IMAP4_SSL", "poplib.POP3", "poplib.POP3_SSL",
                                           *_CONNECT_IF_HOST)},
        "imaplib.IMAP4_stream": ("blocking_subprocess", PY + "imaplib.html#imaplib.IMAP4_stream (runs the command "
                                 "and talks IMAP over its pipes)"),
        **{f"imaplib.{c}.close": (S, PY + "imaplib.html#imaplib.IMAP4.close (sends CLOSE and waits for the reply)")
           for c in ("IMAP4", "IMAP4_SSL", "IMAP4_stream")},
        **names("blocking_sleep", PY + "signal.html#signal.pause (sleeps until a signal arrives)", "signal", "pause",
                "sigwait", "sigwaitinfo"),
    },
    when={**{c: BlocksWhen("host", position=0, test="true") for c in _CONNECT_IF_HOST},
          **{f"{c}.select": _NOT_ZERO for c in _SELECTORS}, **{f"{c}.poll": _NOT_ZERO for c in _POLLS}},
    families=(
        Family(("ssl.SSLSocket",), {m: S for m in ("connect", "accept", "recv", "recv_into", "recvfrom", "send",
                                                    "sendall", "sendfile", "read", "write", "do_handshake", "unwrap")},
               PY + "ssl.html#ssl-sockets (an SSLSocket's I/O methods block as a socket's do, and run the TLS "
               "handshake too)"),
        Family(("xmlrpc.client.ServerProxy", "xmlrpc.client.Server"), {"*": H}, PY + "xmlrpc.client.html#xmlrpc."
               "client.ServerProxy (every method called on the proxy is a synchronous HTTP request to the server)",
               resources=True),
        Family(("telnetlib",), {"*": S}, PY.replace("/3/", "/3.12/") + "telnetlib.html#telnet-objects (open, read_* "
               "and write wait on the connection; removed in Python 3.13)", package=True, functions=False,
               except_=frozenset({"set_debuglevel", "set_option_negotiation_callback", "close", "fileno",
                                  "get_socket", "msg"})),
        Family(_SERVERS, {"serve_forever": S, "handle_request": S}, PY + "socketserver.html#socketserver.BaseServer."
               "serve_forever (handles requests until shutdown(): the calling thread never returns)"),
    ),
    returns={"ssl.create_default_context": "ssl.SSLContext", "ssl.SSLContext.wrap_socket": "ssl.SSLSocket",
             "ssl.wrap_socket": "ssl.SSLSocket",
             "wsgiref.simple_server.make_server": "wsgiref.simple_server.WSGIServer",
             **{p: p for p in _POLLS}},
)

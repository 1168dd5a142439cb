"""check blocking: the flow kinds of held-out wave 31 (UDP sends, streams made off the loop and iterated on it,
the repository imported under its own name, framework callbacks run on the loop, names bound by an ImportError
shim, LlamaIndex handles). Each blocker is found at its line; each look-alike stays silent. Every example is
written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_udp_send_on_a_socket_kept_on_self_is_silent_and_a_tcp_send_blocks(tmp_path):
    found = flagged(tmp_path, """
        import socket

        class Beacon:
            def open(self):
                self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)

            async def announce(self, payload, peer):
                self.udp.sendto(payload, peer)
                self.udp.send(payload)
                self.tcp.sendall(payload)
                self.tcp.send(payload)

            async def listen(self):
                return self.udp.recvfrom(2048)

        async def ping(host):
            probe = socket.socket(socket.AF_INET, type=socket.SOCK_DGRAM)
            probe.sendto(b"hi", (host, 9))
    """)
    assert found == {("blocking_socket_io", "self.tcp.sendall(payload)"),
                     ("blocking_socket_io", "self.tcp.send(payload)"),
                     ("blocking_socket_io", "return self.udp.recvfrom(2048)")}

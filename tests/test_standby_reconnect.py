"""A primary cut off from the broker while running: two real daemons on one real Mosquitto,
the primary reaching it through a TCP relay the test cuts. The broker sees the primary's
connection close and publishes its Last Will; the standby says what comes meanwhile; the
broker keeps those alerts and the standby's reports for the primary's session. Reconnected,
the primary holds until its marker is back and says none of them again."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

from support import AlsaSink, Listener, free_port, wait_until
from test_standby import PRIMARY, REPORTS, STANDBY, alert, gateway, outcomes


class Relay:
    """127.0.0.1:`port` relayed to the broker's port, byte for byte, until `cut`: every
    connection closed, and each new one closed as it comes, until `restore`."""

    def __init__(self, to: int) -> None:
        self.to, self.port = to, free_port()
        self._open: list[socket.socket] = []
        self._cut = threading.Event()
        server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def restore(self) -> None:
        self._cut.clear()

    def cut(self) -> None:
        self._cut.set()
        for s in self._open:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self._open.clear()

    def _accept(self, server: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                near, _ = server.accept()
                if self._cut.is_set():  # as a network that drops it: closed before a word
                    near.close()
                    continue
                far = socket.create_connection(("127.0.0.1", self.to))
                self._open += [near, far]
                for a, b in ((near, far), (far, near)):
                    threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def test_a_primary_cut_off_while_its_standby_spoke_says_none_of_it_again_once_back(
    broker, alsa_sink, make_daemon, tmp_path
):
    relay = Relay(broker.port)
    standby_sink = AlsaSink(tmp_path / "alsa-standby")
    heard = Listener(broker.port, *REPORTS, "cosyedge/status", "standby/status")
    primary = make_daemon(gateway(relay.port, tmp_path / "p", PRIMARY))
    make_daemon(gateway(broker.port, tmp_path / "s", STANDBY, 1.0), env=standby_sink.env)
    alert(broker.port, "r-1")
    wait_until(lambda: "r-1" in outcomes(heard, "cosyedge/report", "spoken"), 60, "r-1 said")
    relay.cut()  # the primary's network: the broker closes its session, its Will goes out
    heard.wait_for("standby/status", lambda s: s[-1]["state"] == "degraded", 30, "a takeover")
    ids = [f"r-{i}" for i in range(2, 5)]
    for ident in ids:
        alert(broker.port, ident)
    for ident in ids:
        wait_until(lambda i=ident: i in outcomes(heard, "standby/report", "spoken"), 60, ident)
    files = len(alsa_sink.files())
    relay.restore()  # back: the broker hands over the alerts and the standby's reports
    primary.wait_for_log(r"handback: what the broker kept is in after", 60)
    for ident in ids:
        wait_until(lambda i=ident: i in outcomes(heard, "cosyedge/report", "covered"), 30, ident)
    time.sleep(1.0)  # a copy said would have been reported by now
    said = outcomes(heard, "cosyedge/report", "spoken")
    assert sorted(said) == ["r-1"], said
    assert len(alsa_sink.files()) == files, "the primary said something again"
    assert "handback: reconnected; holding" in primary.log()
    heard.close()
    relay.cut()

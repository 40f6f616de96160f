"""HTTP servers on 127.0.0.1 that keep a connection alive without ever finishing the response.

Each reads the request, then plays one misbehaviour for up to :data:`PLAY_SECONDS` (or until
stopped): silence, a status line sent a byte at a time, headers that never end, a body that
trickles one byte at a time, a chunked body that never ends. A client whose timeout bounds
each read, not the request, waits the whole time; one with a deadline gives up in time.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: how long one misbehaviour goes on when nobody hangs up: far longer than any deadline in the tests
PLAY_SECONDS = 60.0

# A connection and a stop flag; sends bytes for as long as the play lasts.
Play = Callable[[socket.socket, "Ticker"], None]


@dataclass
class Ticker:
    """Paces a play: ``tick()`` waits ``interval`` and says whether to go on."""

    interval: float
    stop: threading.Event
    until: float

    def tick(self) -> bool:
        return not self.stop.wait(self.interval) and time.monotonic() < self.until


def _forever(pattern: bytes) -> Iterator[bytes]:
    while True:
        yield from (pattern[i : i + 1] for i in range(len(pattern)))


def silent(conn: socket.socket, ticker: Ticker) -> None:
    while ticker.tick():
        pass


def slow_status(conn: socket.socket, ticker: Ticker) -> None:
    for byte in _forever(b"HTTP/1.1 200 OK\r\n"[:-2]):  # a status line whose end never comes
        conn.sendall(byte)
        if not ticker.tick():
            return


def slow_headers(conn: socket.socket, ticker: Ticker, step: int = 1) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nX-Padding: ")
    stream = _forever(b"abcdefghij")
    while ticker.tick():
        conn.sendall(b"".join(next(stream) for _ in range(step)))


def trickle_body(conn: socket.socket, ticker: Ticker, step: int = 1, status: int = 200) -> None:
    conn.sendall(f"HTTP/1.1 {status} OK\r\nContent-Type: audio/wav\r\nContent-Length: 10000000\r\n\r\n".encode())
    conn.sendall(b"RIFF")
    while ticker.tick():
        conn.sendall(b"\0" * step)


def endless_chunked(conn: socket.socket, ticker: Ticker, step: int = 64) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nTransfer-Encoding: chunked\r\n\r\n")
    while ticker.tick():
        conn.sendall(f"{step:x}\r\n".encode() + b"\0" * step + b"\r\n")


PLAYS: dict[str, Play] = {
    "silent": silent,
    "slow_status": slow_status,
    "slow_headers": slow_headers,
    "trickle_body": trickle_body,
    "trickle_error_body": lambda conn, ticker: trickle_body(conn, ticker, status=500),
    "endless_chunked": endless_chunked,
}


class MisbehavingServer:
    """Plays ``play`` (paced by ``interval`` seconds) on every connection; ``play_for`` picks one by request path."""

    def __init__(self, play: Play | None = None, interval: float = 0.1) -> None:
        self.play = play
        self.interval = interval
        self.connections = 0
        self._stop = threading.Event()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._sock.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> MisbehavingServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def play_for(self, path: str) -> Play:
        """The play for a request: ``self.play``, else ``/<play>/<interval>/<step>`` from the path."""
        if self.play is not None:
            return self.play
        name, interval, step = path.strip("/").split("/")[:3]
        base = PLAYS[name]

        def chosen(conn: socket.socket, ticker: Ticker) -> None:
            ticker.interval = float(interval)
            if name in ("slow_headers", "trickle_body", "endless_chunked"):
                base(conn, ticker, int(step))  # type: ignore[call-arg]
            else:
                base(conn, ticker)

        return chosen

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            request = b""
            conn.settimeout(5)
            try:
                while b"\r\n\r\n" not in request:
                    data = conn.recv(65536)
                    if not data:
                        return
                    request += data
                path = request.split(b" ", 2)[1].decode("latin-1")
                ticker = Ticker(self.interval, self._stop, time.monotonic() + PLAY_SECONDS)
                self.play_for(path)(conn, ticker)
            except OSError:  # the client hung up: what a deadline does
                return

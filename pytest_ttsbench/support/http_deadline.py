"""A total deadline for one HTTP request: connect, TLS handshake, headers and body together.

httpx's timeouts bound each socket operation, not the request: a server that sends its headers
and then one byte every half second never lets one read wait long enough to time out, and held
an item for 45 s with ``timeout_s: 3``. So every socket operation the shared client makes gets
at most the time left until the request's deadline, and once the deadline has passed the next
operation fails at once. A trickle, slow headers or a chunked body that never ends are the same
case: the connection stays alive but the request does not finish in time.

The deadline lives in a thread-local (:func:`deadline`): httpx's sync client does all of a
request's I/O in the thread that sent it, so concurrent requests in other threads keep theirs.
"""

from __future__ import annotations

import contextlib
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx


@dataclass
class Deadline:
    """When the request must be over (``time.monotonic()``), and whether the last operation was cut to it."""

    at: float
    hit: bool = False  # the last socket operation was given the time left, not its own timeout

    @property
    def passed(self) -> bool:
        return self.hit or time.monotonic() >= self.at


_current = threading.local()


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[Deadline]:
    """Every socket operation of the client in this thread ends within ``seconds`` from now."""
    previous = getattr(_current, "deadline", None)
    _current.deadline = found = Deadline(time.monotonic() + seconds)
    try:
        yield found
    finally:
        _current.deadline = previous


def _bounded(timeout: float | None, exc: type[Exception]) -> float | None:
    """``timeout`` cut to the time left before this thread's deadline; ``exc`` once none is left."""
    found: Deadline | None = getattr(_current, "deadline", None)
    if found is None:
        return timeout
    left = found.at - time.monotonic()
    if left <= 0:
        found.hit = True
        raise exc("the request's deadline has passed")
    # Should this operation time out, the deadline is why only when it was given the time left.
    found.hit = timeout is None or left < timeout
    return left if found.hit else timeout


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, _bounded(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's network backend with every connect, read and write cut to the deadline."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install_deadlines(client: httpx.Client) -> None:
    """Put the deadline under every transport of ``client`` (its own and the proxies' from the environment).

    httpx offers no public way to give its default transport a network backend, so the
    connection pools' backends are wrapped in place. Should a new httpx lay its transports out
    differently, this raises instead of leaving requests without a deadline.
    """
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if not isinstance(backend, httpcore.NetworkBackend):
            raise RuntimeError(f"cannot give {type(transport).__name__} a request deadline (httpx {httpx.__version__})")
        if not isinstance(backend, _DeadlineBackend):
            pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]

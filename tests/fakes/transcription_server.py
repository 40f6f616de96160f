"""A real OpenAI-format transcription server on 127.0.0.1: ``POST /v1/audio/transcriptions``.

It speaks the wire format of OpenAI's API as faster-whisper-server, speaches and vLLM copy it: a
``multipart/form-data`` body with the clip in ``file`` and the fields ``model``, ``language`` and
``response_format``; the answer ``{"text": ...}``, or ``{"error": {"message", "type"}}`` with
HTTP 400. What it hears is up to ``hear``: a faster-whisper route (:func:`whisper_hearing`, the
plugin's own decoding, so a run against this server is judged as a local-Whisper run is) or any
function of the clip. It counts the requests it has in flight; with ``hold_until_in_flight`` it
keeps every request waiting until that many are in flight at once (or ``hold_timeout_s`` passes),
so a test sees how many a client sends together without timing anything.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pytest_ttsbench.audio.decoding import DecodedAudio, decode_audio

PATH = "/v1/audio/transcriptions"

Hearing = Callable[[DecodedAudio, str], str]


class ServerFault(Exception):
    """Raised by a ``hear`` function: the server answers ``status`` with an OpenAI-shaped error."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def whisper_hearing(model: str = "tiny.en", beam_size: int = 5) -> Hearing:
    """Transcripts by the plugin's faster-whisper route, one clip at a time (one model, as one
    faster-whisper-server worker decodes)."""
    from pytest_ttsbench.asr.whisper import WhisperRoute

    route = WhisperRoute(model=model, beam_size=beam_size)
    lock = threading.Lock()

    def hear(audio: DecodedAudio, language: str) -> str:
        with lock:
            return route.transcribe(audio, language).text

    return hear


def parse_form(content_type: str, body: bytes) -> tuple[dict[str, str], bytes | None]:
    """A multipart/form-data body's text fields and the bytes of its ``file`` part (None: no file)."""
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    if not message.is_multipart():
        return {}, None
    fields: dict[str, str] = {}
    upload = None
    for part in message.iter_parts():
        name = str(part.get_param("name", header="content-disposition"))
        payload = part.get_payload(decode=True)
        if name == "file":
            upload = payload
        else:
            fields[name] = payload.decode("utf-8")
    return fields, upload


class TranscriptionServer:
    """A threaded HTTP server on 127.0.0.1 (an ephemeral port unless given); ``url`` is its base_url, ``…/v1``."""

    def __init__(
        self, hear: Hearing, *, hold_until_in_flight: int | None = None, hold_timeout_s: float = 60.0, port: int = 0
    ) -> None:
        self.hear = hear
        self.hold_until_in_flight = hold_until_in_flight
        self.hold_timeout_s = hold_timeout_s
        self.in_flight = 0
        self.most_in_flight = 0
        self.requests: list[dict[str, str]] = []  # each request's form fields, in arrival order
        self._state = threading.Condition()
        self._released = hold_until_in_flight is None
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> TranscriptionServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._state:
            self._released = True
            self._state.notify_all()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _arrive(self) -> None:
        with self._state:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            if self.hold_until_in_flight is not None and self.in_flight >= self.hold_until_in_flight:
                self._released = True  # once reached, every request goes through at once
                self._state.notify_all()
            self._state.wait_for(lambda: self._released, timeout=self.hold_timeout_s)

    def _leave(self) -> None:
        with self._state:
            self.in_flight -= 1

    def answer(self, content_type: str, body: bytes) -> tuple[int, dict[str, Any]]:
        fields, upload = parse_form(content_type, body)
        with self._state:
            self.requests.append(fields)
        if upload is None:
            return 400, {"error": {"message": "no 'file' part in the form", "type": "invalid_request_error"}}
        if fields.get("response_format", "json") != "json":
            message = f"Unsupported response_format: {fields['response_format']}"
            return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        audio = decode_audio(upload)
        try:
            return 200, {"text": self.hear(audio, fields.get("language") or "en")}
        except ServerFault as fault:
            return fault.status, {"error": {"message": str(fault), "type": "server_error"}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the client's connection pool expects

            def do_GET(self) -> None:  # faster-whisper-server's health check
                status, reply = (200, {"status": "ok"}) if self.path == "/health" else (404, {"error": "not found"})
                self._reply(status, reply)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path != PATH:
                    status, reply = 404, {"error": {"message": f"no route {self.path}", "type": "not_found"}}
                else:
                    server._arrive()
                    try:
                        status, reply = server.answer(self.headers.get("Content-Type", ""), body)
                    finally:
                        server._leave()
                self._reply(status, reply)

            def _reply(self, status: int, reply: dict[str, Any]) -> None:
                data = json.dumps(reply).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:  # quiet test output
                pass

        return Handler

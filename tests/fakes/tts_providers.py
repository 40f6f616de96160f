"""Local HTTP servers that speak each TTS provider's documented wire format, with fault injection.

Each fake binds 127.0.0.1 on an ephemeral port, checks what the provider checks (auth header,
content type, required fields, enums), answers with real audio in the requested format and the
provider's Content-Type, streams with chunked transfer where the service does, and words its
errors in the provider's exact JSON shape (see shared/docs/provider-apis.md).

Faults are queued per server and consumed one per request, so a test writes
``fake.enqueue(Fault("rate_limit", retry_after="1"))`` and the next request gets a 429 while
the one after it succeeds. Every request is recorded (path, query, headers, body, parsed body,
and for Azure the text found inside the SSML ``<voice>``) for the tests to inspect.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import re
import threading
import time
import wave
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

# --- audio -----------------------------------------------------------------------------------

TONE_SECONDS = 0.6


def tone(rate: int, seconds: float = TONE_SECONDS) -> np.ndarray:
    """A 440 Hz tone with a little noise, as int16 samples: audible, non-silent, deterministic."""
    t = np.arange(int(rate * seconds)) / rate
    noise = np.random.default_rng(7).normal(0, 0.01, t.size)
    return (np.clip(0.3 * np.sin(2 * np.pi * 440 * t) + noise, -1, 1) * 32767).astype("<i2")


def pcm_bytes(rate: int, seconds: float = TONE_SECONDS) -> bytes:
    return tone(rate, seconds).tobytes()


def wav_bytes(rate: int, seconds: float = TONE_SECONDS, *, placeholder_sizes: bool = False) -> bytes:
    """A 16-bit mono WAV; ``placeholder_sizes`` writes the 0xFFFFFFFF-style sizes of a streaming writer."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(tone(rate, seconds).tobytes())
    data = bytearray(buffer.getvalue())
    if placeholder_sizes:
        data[4:8] = (0xFFFFFFFF - 219).to_bytes(4, "little")
        data[40:44] = (0xFFFFFFFF - 255).to_bytes(4, "little")
    return bytes(data)


def encoded_bytes(codec: str, container: str, rate: int, seconds: float = TONE_SECONDS) -> bytes:
    """The tone encoded with PyAV (``libmp3lame``/``mp3``, ``flac``/``flac``, ``libopus``/``ogg``)."""
    import av

    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format=container) as out:
        stream = out.add_stream(codec, rate=rate)
        stream.layout = "mono"
        samples = tone(rate, seconds).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = rate
        for packet in stream.encode(frame):
            out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return buffer.getvalue()


def mp3_bytes(rate: int) -> bytes:
    return encoded_bytes("libmp3lame", "mp3", rate)


# --- server machinery ------------------------------------------------------------------------


@dataclass
class Fault:
    """One injected misbehaviour, used by the next request.

    kinds: ``rate_limit`` (the provider's throttling reply; ``retry_after`` sets Retry-After),
    ``server_error`` (the provider's 500/503), ``error`` (``status`` with ``message`` in the
    provider's shape; ``{key}`` in the message is replaced by the credential received),
    ``hang`` (no answer for ``seconds``), ``stall`` (headers and a little body, then silence),
    ``truncate`` (Content-Length of the full body, half of it sent, connection closed),
    ``html`` (200 with an HTML page), ``json200`` (200 with the provider's error JSON),
    ``raw`` (exactly ``status``, ``headers`` and ``body``).
    """

    kind: str
    retry_after: str | None = None
    status: int | None = None
    message: str | None = None
    seconds: float = 5.0
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Recorded:
    """One request as the fake saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes
    at: float
    parsed: Any = None
    ssml_text: str | None = None
    ssml: ET.Element | None = None
    raw_query: str = ""  # the query as sent, byte for byte (a signed URL's signature covers it)


@dataclass
class Reply:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    chunked: bool = False
    chunk_size: int = 4096


def json_reply(status: int, document: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, json.dumps(document).encode(), {"Content-Type": "application/json", **(headers or {})})


HTML_PAGE = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway - Corporate Proxy</title></head>"
    b"<body><h1>Gateway error</h1><p>The upstream speech service could not be reached.</p></body></html>"
)


class FakeProvider:
    """A threaded HTTP server bound to 127.0.0.1 on an ephemeral port; subclasses speak one API."""

    name = "fake"

    def __init__(self, key: str = "test-key-correct") -> None:
        self.key = key
        self.faults: deque[Fault] = deque()
        # Faults chosen by the request body: {substring: [faults used one by one]}; for runs where
        # the order of requests is not the test's to choose (a pytest run over a case file).
        self.text_faults: dict[str, list[Fault]] = {}
        self.requests: list[Recorded] = []
        self.first_byte_delay_s = 0.0  # before the status line: the provider "thinking"
        self.chunk_delay_s = 0.0  # between chunks of a chunked reply: audio "being generated"
        # A chunked reply may open with only its first ``lead_bytes`` (a bare WAV header, half a
        # sample) and pause ``lead_pause_s`` before the rest: a first byte that is not yet audio.
        self.lead_bytes = 0
        self.lead_pause_s = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    # lifecycle
    def start(self) -> FakeProvider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def enqueue(self, *faults: Fault) -> None:
        self.faults.extend(faults)

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    def _text_fault(self, req: Recorded) -> Fault | None:
        text = req.body.decode("utf-8", errors="replace")
        for needle, faults in self.text_faults.items():
            if needle in text and faults:
                return faults.pop(0)
        return None

    # to override
    def received_key(self, req: Recorded) -> str | None:
        raise NotImplementedError

    def handle(self, req: Recorded) -> Reply:
        raise NotImplementedError

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        raise NotImplementedError

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = self.error(429, "Rate limit reached for requests", "rate_limit_exceeded")
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def server_error(self) -> Reply:
        return self.error(500, "The server had an error while processing your request.", "server_error")

    def parse(self, req: Recorded) -> None:
        """Fill ``req.parsed`` (and friends) before the fault queue is consulted."""
        if req.headers.get("content-type", "").startswith("application/json"):
            try:
                req.parsed = json.loads(req.body)
            except ValueError:
                req.parsed = None

    # dispatch
    def _fault_reply(self, fault: Fault, req: Recorded) -> Reply:
        if fault.kind == "rate_limit":
            return self.rate_limit(fault.retry_after)
        if fault.kind == "server_error":
            return self.server_error()
        if fault.kind in ("error", "json200"):
            message = (fault.message or "bad request").replace("{key}", self.received_key(req) or "")
            reply = self.error(fault.status or 400, message)
            if fault.kind == "json200":
                reply.status = 200
            return reply
        if fault.kind == "html":
            return Reply(200, HTML_PAGE, {"Content-Type": "text/html; charset=utf-8"})
        if fault.kind == "raw":
            return Reply(fault.status or 200, fault.body, dict(fault.headers))
        reply = self.handle(req)
        reply.chunked = False
        return reply  # hang / stall / truncate are played by the handler on this reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                pass

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                split = urlsplit(self.path)
                req = Recorded(
                    method=self.command,
                    path=split.path,
                    query=parse_qs(split.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    at=time.monotonic(),
                    raw_query=split.query,
                )
                fake.parse(req)
                with fake._lock:
                    fake.requests.append(req)
                    fault = fake.faults.popleft() if fake.faults else fake._text_fault(req)
                try:
                    if fault is not None and fault.kind == "hang":
                        fake._stop.wait(fault.seconds)
                        self.close_connection = True
                        return
                    reply = fake._fault_reply(fault, req) if fault else fake.handle(req)
                    if fault is not None and fault.kind in ("stall", "truncate"):
                        self._play(fault, reply)
                    else:
                        self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def _play(self, fault: Fault, reply: Reply) -> None:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body[: max(1, len(reply.body) // 2)])
                self.wfile.flush()
                if fault.kind == "stall":
                    fake._stop.wait(fault.seconds)
                self.close_connection = True

            def _send(self, reply: Reply) -> None:
                if fake.first_byte_delay_s:
                    time.sleep(fake.first_byte_delay_s)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    lead = min(fake.lead_bytes, len(reply.body))
                    starts = ([0] if lead else []) + list(range(lead, len(reply.body), reply.chunk_size))
                    for start in starts:
                        end = lead if (lead and start == 0) else start + reply.chunk_size
                        piece = reply.body[start:end]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                        if lead and start == 0 and fake.lead_pause_s:
                            time.sleep(fake.lead_pause_s)
                        elif fake.chunk_delay_s:
                            time.sleep(fake.chunk_delay_s)
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                self.wfile.flush()

        return Handler


def _bearer(req: Recorded) -> str | None:
    auth = req.headers.get("authorization", "")
    return auth[len("Bearer ") :] if auth.startswith("Bearer ") else None


# --- OpenAI ----------------------------------------------------------------------------------

OPENAI_FORMATS = {
    "wav": "audio/wav",
    "pcm": "audio/pcm",
    "mp3": "audio/mpeg",
    "flac": "audio/flac",
    "opus": "audio/opus",
    "aac": "audio/aac",
}
OPENAI_RATE = 24_000


class FakeOpenAI(FakeProvider):
    """``POST /v1/audio/speech`` (the engine's base_url is ``url + "/v1"``)."""

    name = "openai"
    request_counter = 0

    def __init__(self, key: str | None = "test-key-correct", speak: Callable[[str], bytes] | None = None) -> None:
        super().__init__(key or "")
        self.require_key = key is not None
        self.speak = speak  # text → WAV bytes of real speech, for end-to-end runs through ASR

    def received_key(self, req: Recorded) -> str | None:
        return _bearer(req)

    def error(self, status: int, message: str, code: str | None = None, param: str | None = None) -> Reply:
        kind = "invalid_request_error" if status < 500 else "server_error"
        if status == 429:
            kind = "requests"
        return json_reply(
            status,
            {"error": {"message": message, "type": kind, "param": param, "code": code}},
            {"x-request-id": self._request_id()},
        )

    def _request_id(self) -> str:
        FakeOpenAI.request_counter += 1
        return f"req_{FakeOpenAI.request_counter:06d}"

    def handle(self, req: Recorded) -> Reply:
        if req.path != "/v1/audio/speech" or req.method != "POST":
            return self.error(404, f"Invalid URL ({req.method} {req.path})")
        if self.require_key:
            sent = _bearer(req)
            if sent != self.key:
                return self.error(401, f"Incorrect API key provided: {sent}.", "invalid_api_key")
        body = req.parsed
        if not isinstance(body, dict):
            return self.error(400, "We could not parse the JSON body of your request.")
        for name in ("model", "input", "voice"):
            if name not in body:
                return self.error(400, f"Missing required parameter: '{name}'.", param=name)
        if len(body["input"]) > 4096:
            return self.error(400, "String should have at most 4096 characters", param="input")
        speed = body.get("speed", 1.0)
        if not 0.25 <= speed <= 4.0:
            return self.error(400, "Speed must be between 0.25 and 4.0", param="speed")
        fmt = body.get("response_format", "mp3")
        if fmt not in OPENAI_FORMATS:
            return self.error(400, f"Invalid value: '{fmt}'.", param="response_format")
        audio = {
            "wav": lambda: self.speak(body["input"]) if self.speak else wav_bytes(OPENAI_RATE),
            "pcm": lambda: pcm_bytes(OPENAI_RATE),
            "mp3": lambda: mp3_bytes(OPENAI_RATE),
            "flac": lambda: encoded_bytes("flac", "flac", OPENAI_RATE),
            "opus": lambda: encoded_bytes("libopus", "ogg", 48_000),
            "aac": lambda: encoded_bytes("aac", "adts", OPENAI_RATE),
        }[fmt]()
        headers = {"Content-Type": OPENAI_FORMATS[fmt], "x-request-id": self._request_id()}
        return Reply(200, audio, headers, chunked=True)


# --- Azure -----------------------------------------------------------------------------------

SSML_NS = "{http://www.w3.org/2001/10/synthesis}"
AZURE_VOICES = ("en-US-JennyNeural", "zh-CN-XiaoxiaoNeural", "th-TH-PremwadeeNeural")
AZURE_FORMATS = {
    "riff-24khz-16bit-mono-pcm": ("audio/x-wav", lambda: wav_bytes(24_000)),
    "riff-16khz-16bit-mono-pcm": ("audio/x-wav", lambda: wav_bytes(16_000)),
    "raw-24khz-16bit-mono-pcm": ("audio/basic", lambda: pcm_bytes(24_000)),
    "raw-16khz-16bit-mono-pcm": ("audio/basic", lambda: pcm_bytes(16_000)),
    "audio-24khz-48kbitrate-mono-mp3": ("audio/mpeg", lambda: mp3_bytes(24_000)),
}


class FakeAzure(FakeProvider):
    """``POST /cognitiveservices/v1`` (SSML) and ``GET /cognitiveservices/voices/list``."""

    name = "azure"

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("ocp-apim-subscription-key") or _bearer(req)

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        if status == 400 and message == "":
            return Reply(400)  # Azure's usual bad-request answer: no body at all
        return json_reply(status, {"error": {"code": str(status), "message": message}})

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = Reply(429, b"Too many requests", {"Content-Type": "text/plain"})
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def server_error(self) -> Reply:
        return Reply(503, b"", {})

    def parse(self, req: Recorded) -> None:
        if req.headers.get("content-type", "").startswith("application/ssml+xml"):
            try:
                root = ET.fromstring(req.body)
            except ET.ParseError:
                return
            req.ssml = root
            voice = root.find(f"{SSML_NS}voice")
            if voice is not None:
                req.ssml_text = "".join(voice.itertext())

    def handle(self, req: Recorded) -> Reply:
        if self.received_key(req) != self.key:
            return self.error(
                401,
                "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a "
                "valid key for an active subscription and use a correct regional API endpoint for your resource.",
            )
        if req.method == "GET" and req.path == "/cognitiveservices/voices/list":
            voices = [{"ShortName": v, "Locale": v.rsplit("-", 1)[0], "SampleRateHertz": "24000"} for v in AZURE_VOICES]
            return json_reply(200, voices)
        if req.method != "POST" or req.path != "/cognitiveservices/v1":
            return Reply(404)
        if not req.headers.get("content-type", "").startswith("application/ssml+xml"):
            return Reply(415)
        fmt = req.headers.get("x-microsoft-outputformat")
        if fmt not in AZURE_FORMATS:
            return Reply(400)
        root = req.ssml
        if root is None or root.tag != f"{SSML_NS}speak":
            return Reply(400, b"Data at the root level is invalid. Line 1, position 1.", {"Content-Type": "text/plain"})
        if not root.get("{http://www.w3.org/XML/1998/namespace}lang"):
            return Reply(400)
        voice = root.find(f"{SSML_NS}voice")
        if voice is None or voice.get("name") not in AZURE_VOICES:
            return Reply(400)
        content_type, make = AZURE_FORMATS[fmt]
        return Reply(200, make(), {"Content-Type": content_type, "X-RequestId": "azure-req-1"}, chunked=True)


# --- Google ----------------------------------------------------------------------------------

GOOGLE_ENCODINGS = ("LINEAR16", "MP3", "OGG_OPUS", "MULAW", "ALAW", "M4A", "PCM")
GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}  # fmt: skip


class FakeGoogle(FakeProvider):
    """``POST /v1/text:synthesize``: JSON in, base64 ``audioContent`` out."""

    name = "google"

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("x-goog-api-key") or (req.query.get("key") or [None])[0] or _bearer(req)

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        error: dict[str, Any] = {"code": status, "message": message, "status": GOOGLE_STATUS.get(status, "UNKNOWN")}
        if code:
            error["details"] = [
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "googleapis.com"}
            ]
        return json_reply(status, {"error": error})

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = self.error(429, "Quota exceeded for quota metric 'Requests' of service 'texttospeech.googleapis.com'.")
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def server_error(self) -> Reply:
        return self.error(503, "The service is currently unavailable.")

    def handle(self, req: Recorded) -> Reply:
        if req.method != "POST" or req.path != "/v1/text:synthesize":
            return self.error(404, "Method not found.")
        if self.received_key(req) != self.key:
            return self.error(400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID")
        body = req.parsed
        if not isinstance(body, dict):
            return self.error(400, "Invalid JSON payload received.")
        source = body.get("input") or {}
        given = [k for k in ("text", "ssml") if k in source]
        if len(given) != 1:
            return self.error(400, "Either `input.text` or `input.ssml` must be set, and not both.")
        if len(source[given[0]].encode("utf-8")) > 5000:
            return self.error(400, "Either `input.text` or `input.ssml` is longer than the limit of 5000 bytes.")
        if not (body.get("voice") or {}).get("languageCode"):
            return self.error(400, "Voice language code is required.")
        config = body.get("audioConfig") or {}
        encoding = config.get("audioEncoding")
        if encoding not in GOOGLE_ENCODINGS:
            return self.error(400, f"Invalid value at 'audio_config.audio_encoding' ({encoding!r})")
        rate = config.get("speakingRate", 0)
        if rate != 0 and not 0.25 <= rate <= 4.0:
            return self.error(400, "speaking_rate must be between 0.25 and 4.0")
        sample_rate = int(config.get("sampleRateHertz") or 24_000)
        audio = {"LINEAR16": wav_bytes, "PCM": pcm_bytes, "MP3": mp3_bytes}.get(encoding)
        if audio is None:
            return self.error(400, f"{encoding} is not implemented by this fake")
        document = {"audioContent": base64.b64encode(audio(sample_rate)).decode()}
        return json_reply(200, document)


# --- ElevenLabs ------------------------------------------------------------------------------

ELEVEN_VOICES = ("21m00Tcm4TlvDq8ikWAM", "EXAVITQu4vr4xnJFGHTj")
_RATES = "(8000|16000|22050|24000|32000|44100|48000)"
_ELEVEN_FORMAT = re.compile(
    rf"^(mp3_(22050_32|24000_48|44100_(32|64|96|128|192))|pcm_{_RATES}|wav_{_RATES}"
    r"|ulaw_8000|alaw_8000|opus_48000_(32|64|96|128|192))$"
)


class FakeElevenLabs(FakeProvider):
    """``POST /v1/text-to-speech/{voice_id}`` and ``…/stream``."""

    name = "elevenlabs"

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("xi-api-key")

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        return json_reply(status, {"detail": {"status": code or "invalid_request", "message": message}})

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = self.error(429, "The system is experiencing heavy traffic, please try again.", "system_busy")
        reply.headers.update({"current-concurrent-requests": "5", "maximum-concurrent-requests": "5"})
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def handle(self, req: Recorded) -> Reply:
        match = re.fullmatch(r"/v1/text-to-speech/([^/]+)(/stream)?", req.path)
        if req.method != "POST" or not match:
            return json_reply(404, {"detail": "Not Found"})
        if self.received_key(req) != self.key:
            return self.error(401, "Invalid API key", "invalid_api_key")
        body = req.parsed
        if not isinstance(body, dict) or "text" not in body:
            return json_reply(422, {"detail": [{"loc": ["body", "text"], "msg": "Field required", "type": "missing"}]})
        if match.group(1) not in ELEVEN_VOICES:
            return self.error(404, f"A voice with the voice_id {match.group(1)} was not found.", "voice_not_found")
        if body.get("apply_text_normalization", "auto") not in ("auto", "on", "off"):
            return json_reply(422, {"detail": [{"loc": ["body", "apply_text_normalization"], "msg": "bad value"}]})
        fmt = (req.query.get("output_format") or ["mp3_44100_128"])[0]
        if not _ELEVEN_FORMAT.match(fmt):
            return json_reply(422, {"detail": [{"loc": ["query", "output_format"], "msg": "Input should be..."}]})
        kind, rate = fmt.split("_")[0], int(fmt.split("_")[1])
        audio = {"pcm": pcm_bytes, "wav": wav_bytes, "mp3": mp3_bytes}[kind](rate)
        headers = {"Content-Type": "audio/mpeg", "request-id": "el-req-1", "character-cost": str(len(body["text"]))}
        stream = bool(match.group(2))
        return Reply(200, audio, headers, chunked=stream, chunk_size=2048 if stream else 4096)


# --- Fish Audio ------------------------------------------------------------------------------

FISH_RATES = {"wav": (8000, 16000, 24000, 32000, 44100), "pcm": (8000, 16000, 24000, 32000, 44100),
              "mp3": (32000, 44100), "opus": (48000,)}  # fmt: skip


class FakeFish(FakeProvider):
    """``POST /v1/tts`` with JSON or MessagePack bodies."""

    name = "fish"

    def received_key(self, req: Recorded) -> str | None:
        return _bearer(req)

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        return json_reply(status, {"status": status, "message": message})

    def server_error(self) -> Reply:
        return self.error(503, "Service Unavailable: high load")

    def parse(self, req: Recorded) -> None:
        content_type = req.headers.get("content-type", "")
        if content_type.startswith("application/msgpack"):
            import msgpack

            try:
                req.parsed = msgpack.unpackb(req.body, raw=False)
            except Exception:
                req.parsed = None
        else:
            super().parse(req)

    def handle(self, req: Recorded) -> Reply:
        if req.method != "POST" or req.path != "/v1/tts":
            return self.error(404, "Not Found")
        if _bearer(req) != self.key:
            return self.error(401, "Invalid Token")
        content_type = req.headers.get("content-type", "").split(";")[0]
        if content_type not in ("application/json", "application/msgpack"):
            return Reply(415, b"Unsupported Media Type", {"Content-Type": "text/plain"})
        body = req.parsed
        if not isinstance(body, dict) or not isinstance(body.get("text"), str):
            return Reply(400, b"Invalid request body", {"Content-Type": "text/plain"})
        refs = body.get("references") or []
        if refs and content_type == "application/json":
            return self.error(400, "references need raw audio bytes: send application/msgpack")
        for ref in refs:
            if not isinstance(ref.get("audio"), bytes) or not isinstance(ref.get("text"), str):
                return self.error(400, "each reference needs audio bytes and text")
        fmt = body.get("format", "mp3")
        if fmt not in FISH_RATES:
            return self.error(400, f"Unsupported format {fmt}")
        rate = body.get("sample_rate") or (48_000 if fmt == "opus" else 44_100)
        if rate not in FISH_RATES[fmt]:
            return self.error(400, f"Unsupported sample rate {rate} for {fmt}")
        if body.get("latency", "normal") not in ("low", "normal", "balanced"):
            return self.error(400, "latency must be low, normal or balanced")
        if not isinstance(body.get("normalize", True), bool):
            return self.error(400, "normalize must be a boolean")
        # The model header is optional; Fish falls back to s2.1-pro (nothing here depends on it).
        audio = {
            "wav": lambda: wav_bytes(rate, placeholder_sizes=True),
            "pcm": lambda: pcm_bytes(rate),
            "mp3": lambda: mp3_bytes(rate),
            "opus": lambda: encoded_bytes("libopus", "ogg", rate),
        }[fmt]()
        content_types = {"wav": "audio/wav", "pcm": "audio/pcm", "mp3": "audio/mpeg", "opus": "audio/ogg"}
        return Reply(200, audio, {"Content-Type": content_types[fmt]}, chunked=True, chunk_size=3000)


# --- Amazon Polly ----------------------------------------------------------------------------

POLLY_VOICES = ("Joanna", "Matthew", "Zhiyu")


class FakePolly(FakeProvider):
    """``POST /v1/speech`` (rest-json), SigV4 checked in full against the fake's own credentials."""

    name = "polly"

    def __init__(self, key: str = "fake-secret-access-key", key_id: str = "AKIDFAKEEXAMPLE", region: str = "eu-west-1"):
        super().__init__(key)
        self.key_id = key_id
        self.region = region

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("authorization")

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        code = code or ("ServiceFailureException" if status >= 500 else "ValidationException")
        return json_reply(status, {"message": message}, {"x-amzn-ErrorType": f"{code}:http://internal.amazon.com/"})

    def rate_limit(self, retry_after: str | None) -> Reply:
        return self.error(400, "Rate exceeded", "ThrottlingException")  # Polly throttles with 400

    def server_error(self) -> Reply:
        return self.error(500, "Service failure", "ServiceFailureException")

    def _signature_problem(self, req: Recorded) -> str | None:
        auth = req.headers.get("authorization", "")
        match = re.fullmatch(
            r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/polly/aws4_request, "
            r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})",
            auth,
        )
        if not match or "x-amz-date" not in req.headers:
            return "missing or malformed SigV4 authorization"
        key_id, _date, region, signed, signature = match.groups()
        if key_id != self.key_id or region != self.region:
            return f"The security token included in the request is invalid ({key_id}, {region})"
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        headers = {name: req.headers[name] for name in signed.split(";") if name in req.headers}
        url = f"http://{req.headers['host']}{req.path}"
        check = AWSRequest(method=req.method, url=url, data=req.body, headers=headers)
        check.context["timestamp"] = req.headers["x-amz-date"]
        auth4 = SigV4Auth(Credentials(self.key_id, self.key), "polly", self.region)
        expected = auth4.signature(auth4.string_to_sign(check, auth4.canonical_request(check)), check)
        if not hmac.compare_digest(expected, signature):
            return "The request signature we calculated does not match the signature you provided."
        return None

    def handle(self, req: Recorded) -> Reply:
        if req.method != "POST" or req.path != "/v1/speech":
            return self.error(404, "Not found", "UnknownOperationException")
        problem = self._signature_problem(req)
        if problem:
            return self.error(403, problem, "InvalidSignatureException")
        body = req.parsed
        if not isinstance(body, dict):
            return self.error(400, "Could not parse request body", "SerializationException")
        for name in ("Text", "OutputFormat", "VoiceId"):
            if name not in body:
                return self.error(400, f"1 validation error detected: {name} must not be null", "ValidationException")
        if body["VoiceId"] not in POLLY_VOICES:
            return self.error(400, f"Value '{body['VoiceId']}' at 'voiceId' failed to satisfy constraint")
        if len(body["Text"]) > 3000:
            return self.error(400, "Maximum text length has been exceeded", "TextLengthExceededException")
        fmt = body["OutputFormat"]
        rate = body.get("SampleRate", "16000" if fmt == "pcm" else "22050")
        if fmt == "pcm" and rate not in ("8000", "16000"):
            return self.error(400, "Invalid sample rate for pcm", "InvalidSampleRateException")
        if fmt == "pcm":
            audio, content_type = pcm_bytes(int(rate)), "audio/pcm"
        elif fmt == "mp3":
            audio, content_type = mp3_bytes(int(rate)), "audio/mpeg"
        else:
            return self.error(400, f"{fmt} is not implemented by this fake")
        headers = {
            "Content-Type": content_type,
            "x-amzn-RequestCharacters": str(len(body["Text"])),
            "x-amzn-RequestId": "polly-req-" + hashlib.sha1(req.body).hexdigest()[:8],
        }
        return Reply(200, audio, headers, chunked=True)


FAKES: dict[str, type[FakeProvider]] = {
    "openai": FakeOpenAI,
    "azure": FakeAzure,
    "google": FakeGoogle,
    "elevenlabs": FakeElevenLabs,
    "fish": FakeFish,
    "polly": FakePolly,
}

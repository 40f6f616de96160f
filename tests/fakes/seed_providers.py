"""Fake servers for the seed benchmarks' providers: MiniMax, Volcengine, DashScope, MiMo, Gemini, vLLM-Omni.

Built on :class:`tts_providers.FakeProvider` (same fault queue, request log and chunked sender)
and speaking each provider's wire format as ``shared/docs/provider-apis.md`` sections 8–13
describe it, including the habit of MiniMax, Volcengine and DashScope of answering errors with
HTTP 200 and the error inside the JSON. Details marked unconfirmed there (Volcengine's error
codes, MiMo's error shape) are played the plausible way and asserted nowhere as fact.

Given ``speak`` (text → WAV bytes, e.g. eSpeak NG), a fake answers with that speech, at the rate
the request asked for (resampled only when it differs), so a run through real ASR hears the item;
without it, the test tone.
"""

from __future__ import annotations

import base64
import io
import json
import re
import time
import uuid
import wave
from collections.abc import Callable
from typing import Any

import numpy as np
from tts_providers import (
    FAKES,
    FakeGoogle,
    FakeOpenAI,
    FakeProvider,
    Recorded,
    Reply,
    _bearer,
    json_reply,
    mp3_bytes,
    tone,
)

from pytest_ttsbench.audio.wav import pcm16_wav

Speaker = Callable[[str], bytes]


def speech_pcm(speak: Speaker | None, text: str, rate: int) -> bytes:
    """s16le mono PCM at ``rate``: ``speak(text)`` when given (resampled if needed), else the test tone."""
    if speak is None:
        return tone(rate).tobytes()
    with wave.open(io.BytesIO(speak(text)), "rb") as clip:
        source_rate, frames = clip.getframerate(), clip.readframes(clip.getnframes())
    if source_rate == rate:
        return frames
    from pytest_ttsbench.audio.decoding import resample

    samples = np.frombuffer(frames, "<i2").astype(np.float32) / 32768.0
    out = resample(samples, source_rate, rate)
    return (np.clip(out, -1, 1) * 32767).astype("<i2").tobytes()


def speech_wav(speak: Speaker | None, text: str, rate: int) -> bytes:
    return pcm16_wav(speech_pcm(speak, text, rate), rate)


def native_rate(speak: Speaker | None, default: int) -> int:
    """The speaker's own rate (so its audio goes out untouched), else ``default``."""
    if speak is None:
        return default
    with wave.open(io.BytesIO(speak("a")), "rb") as clip:
        return clip.getframerate()


def _next_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# --- MiniMax T2A v2 ---------------------------------------------------------------------------

MINIMAX_VOICES = ("male-qn-qingse", "female-shaonv", "English_Graceful_Lady")
MINIMAX_RATES = (8000, 16000, 22050, 24000, 32000, 44100)


class FakeMiniMax(FakeProvider):
    """``POST /v1/t2a_v2``: JSON in, hex audio in JSON out; errors in ``base_resp`` with HTTP 200."""

    name = "minimax"

    def __init__(self, key: str = "test-key-correct", speak: Speaker | None = None) -> None:
        super().__init__(key)
        self.speak = speak

    def received_key(self, req: Recorded) -> str | None:
        return _bearer(req)

    def base_resp(self, status: int, code: int, message: str) -> Reply:
        trace = _next_id("trace")
        document = {"data": None, "trace_id": trace, "base_resp": {"status_code": code, "status_msg": message}}
        return json_reply(status, document, {"Trace-Id": trace})

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        number = 1004 if status in (401, 403) else 1000 if status >= 500 else 2013
        return self.base_resp(status, number, message)

    def rate_limit(self, retry_after: str | None) -> Reply:
        return self.base_resp(200, 1002, "rate limit exceeded(RPM)")  # MiniMax throttles with HTTP 200

    def server_error(self) -> Reply:
        return self.base_resp(503, 1000, "unknown error")

    def handle(self, req: Recorded) -> Reply:
        if req.method != "POST" or req.path != "/v1/t2a_v2":
            return json_reply(404, {"message": "404 page not found"})
        if _bearer(req) != self.key:
            return self.base_resp(
                200,
                1004,
                "login fail: Please carry the API secret key in the 'Authorization' field of the request header",
            )
        body = req.parsed
        if not isinstance(body, dict) or not isinstance(body.get("text"), str) or not body.get("model"):
            return self.base_resp(200, 2013, "invalid params, text and model are required")
        voice = (body.get("voice_setting") or {}).get("voice_id")
        if voice not in MINIMAX_VOICES:
            return self.base_resp(200, 2013, f"invalid params, voice_id {voice} does not exist")
        speed = (body.get("voice_setting") or {}).get("speed", 1.0)
        if not 0.5 <= speed <= 2.0:
            return self.base_resp(200, 2013, "invalid params, speed should be in [0.5, 2]")
        setting = body.get("audio_setting") or {}
        rate, fmt = setting.get("sample_rate", 32000), setting.get("format", "mp3")
        if rate not in MINIMAX_RATES or fmt not in ("mp3", "wav", "pcm", "flac"):
            return self.base_resp(200, 2013, f"invalid params, audio_setting {setting}")
        if fmt == "wav" and body.get("stream"):
            return self.base_resp(200, 2013, "invalid params, wav is only supported in non-streaming mode")
        audio = {
            "wav": lambda: speech_wav(self.speak, body["text"], rate),
            "pcm": lambda: speech_pcm(self.speak, body["text"], rate),
            "mp3": lambda: mp3_bytes(rate),
        }.get(fmt, lambda: b"")()
        trace = _next_id("trace")
        document = {
            "data": {"audio": audio.hex(), "status": 2, "ced": ""},
            "extra_info": {
                "audio_length": int(len(audio) / 2 / rate * 1000),
                "audio_sample_rate": rate,
                "audio_size": len(audio),
                "audio_format": fmt,
                "audio_channel": 1,
                "usage_characters": len(body["text"]),
            },
            "trace_id": trace,
            "base_resp": {"status_code": 0, "status_msg": "success"},
        }
        return json_reply(200, document, {"Trace-Id": trace})


# --- Volcengine v3 unidirectional ---------------------------------------------------------------

VOLC_SPEAKERS = ("zh_female_cancan_mars_bigtts", "en_male_adam_mars_bigtts")
VOLC_RATES = (8000, 16000, 22050, 24000, 32000, 44100, 48000)
VOLC_OK = 20_000_000


class FakeVolcengine(FakeProvider):
    """``POST /api/v3/tts/unidirectional``: a chunked stream of newline-separated JSON objects.

    ``mid_stream_error`` (code, message) ends the stream with that object after the first audio
    chunks; ``drop_final`` ends it without the final ``20000000`` object.
    """

    name = "volcengine"

    def __init__(
        self,
        key: str = "test-key-correct",
        speak: Speaker | None = None,
        app_id: str | None = None,
        access_key: str | None = None,
    ) -> None:
        super().__init__(key)
        self.speak = speak
        self.app_id = app_id
        self.access_key = access_key
        self.mid_stream_error: tuple[int, str] | None = None
        self.drop_final = False
        self.chunk_seconds = 0.1

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("x-api-key") or req.headers.get("x-api-access-key")

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        number = int(code) if code and code.isdigit() else (55000000 if status >= 500 else 45000000)
        return json_reply(status, {"code": number, "message": message, "data": None}, {"X-Tt-Logid": _next_id("log")})

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = self.error(429, "quota exceeded for types: concurrency", "45000292")  # code unconfirmed
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def _authorized(self, req: Recorded) -> bool:
        if req.headers.get("x-api-key") is not None:
            return req.headers["x-api-key"] == self.key
        return bool(
            self.app_id
            and req.headers.get("x-api-app-id") == self.app_id
            and req.headers.get("x-api-access-key") == self.access_key
        )

    def handle(self, req: Recorded) -> Reply:
        if req.method != "POST" or req.path != "/api/v3/tts/unidirectional":
            return self.error(404, "not found")
        if not req.headers.get("x-api-resource-id"):
            return self.error(400, "missing X-Api-Resource-Id header")
        if not self._authorized(req):
            return self.error(401, "load grant: requested grant not found (invalid X-Api-Key or access key)")
        body = req.parsed
        params = body.get("req_params") if isinstance(body, dict) else None
        if not isinstance(params, dict) or not isinstance(params.get("text"), str):
            return self.error(200, "req_params.text is required")
        if params.get("speaker") not in VOLC_SPEAKERS:
            return self.error(200, f"speaker permission denied: {params.get('speaker')}")  # in-band, HTTP 200
        audio = params.get("audio_params") or {}
        fmt, rate = audio.get("format", "mp3"), audio.get("sample_rate", 24000)
        if fmt not in ("pcm", "wav") or rate not in VOLC_RATES:
            return self.error(200, f"unsupported audio_params {audio}")
        pcm = speech_pcm(self.speak, params["text"], rate)
        step = int(rate * self.chunk_seconds) * 2
        lines: list[dict[str, Any]] = [{"code": 0, "message": "", "data": None, "sentence": {"text": params["text"]}}]
        for index, start in enumerate(range(0, len(pcm), step)):
            piece = pcm[start : start + step]
            if fmt == "wav":
                piece = pcm16_wav(piece, rate)  # the documented trap: a header in every chunk
            lines.append({"code": 0, "message": "", "data": base64.b64encode(piece).decode()})
            if self.mid_stream_error and index == 1:
                code, message = self.mid_stream_error
                lines.append({"code": code, "message": message, "data": None})
                break
        else:
            if not self.drop_final:
                lines.append(
                    {"code": VOLC_OK, "message": "OK", "data": None, "usage": {"text_words": len(params["text"])}}
                )
        payload = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        headers = {"Content-Type": "application/json", "X-Tt-Logid": _next_id("log")}
        return Reply(200, payload, headers, chunked=True, chunk_size=1500)


# --- DashScope (CosyVoice, Qwen-TTS) and the object store it links to ------------------------------

COSY_VOICES = ("longxiaochun_v2", "longwan_v2")
QWEN_VOICES = ("Cherry", "Ethan", "Serena")
COSY_RATES = (8000, 16000, 22050, 24000, 44100, 48000)


class FakeObjectStore(FakeProvider):
    """Signed-URL downloads (``GET /dashscope-result/<name>?Expires=…&Signature=…``), OSS style.

    A request that also carries an ``Authorization`` header is refused, as signed URLs are: the
    adapter must not send its API key to the store. The signature covers the query as issued, so
    a query sent any other way (re-encoded, reordered, a repeated key dropped) is refused as a
    store refuses it: 403 SignatureDoesNotMatch.
    """

    name = "oss"

    def __init__(self) -> None:
        super().__init__("")
        self.objects: dict[str, tuple[bytes, str]] = {}
        self.signed: dict[str, str] = {}  # object → the query its URL was issued with

    def put(self, data: bytes, content_type: str, suffix: str) -> str:
        name = f"{uuid.uuid4().hex}.{suffix}"
        self.objects[name] = (data, content_type)
        expires = int(time.time()) + 86400
        # escapes as signers write them (a lower-case one too) and a key given twice
        query = (
            f"Expires={expires}&OSSAccessKeyId=LTAI5tFAKE&response-content-type=audio%2fwav"
            "&x-oss-tag=a&x-oss-tag=b&Signature=q%2B0%2Fz%3D"
        )
        self.signed[name] = query
        return f"{self.url}/dashscope-result/{name}?{query}"

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("authorization")

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        body = (
            "<?xml version='1.0' encoding='UTF-8'?>"
            f"<Error><Code>{code or 'AccessDenied'}</Code><Message>{message}</Message></Error>"
        )
        return Reply(status, body.encode(), {"Content-Type": "application/xml", "x-oss-request-id": _next_id("oss")})

    def handle(self, req: Recorded) -> Reply:
        if "authorization" in req.headers:
            return self.error(
                400,
                "Only one auth mechanism allowed; the Authorization header and a signed URL were both given.",
                "InvalidArgument",
            )
        match = re.fullmatch(r"/dashscope-result/([0-9a-f]+\.\w+)", req.path)
        if req.method != "GET" or not match or match.group(1) not in self.objects:
            return self.error(404, "The specified key does not exist.", "NoSuchKey")
        if "Signature" not in req.query:
            return self.error(403, "AccessDenied: anonymous access is forbidden for this operation")
        if req.raw_query != self.signed[match.group(1)]:
            return self.error(
                403,
                "The request signature we calculated does not match the signature you provided.",
                "SignatureDoesNotMatch",
            )
        data, content_type = self.objects[match.group(1)]
        return Reply(200, data, {"Content-Type": content_type, "x-oss-request-id": _next_id("oss")}, chunked=True)


class FakeDashScope(FakeProvider):
    """``/api/v1/services/audio/tts/SpeechSynthesizer`` and ``/api/v1/services/aigc/multimodal-generation/generation``.

    Both answer with a URL on :attr:`store`, a second server, as DashScope links to OSS.
    """

    name = "dashscope"

    def __init__(self, key: str = "test-key-correct", speak: Speaker | None = None) -> None:
        super().__init__(key)
        self.speak = speak
        self.store = FakeObjectStore()

    def start(self) -> FakeDashScope:
        self.store.start()
        super().start()
        return self

    def stop(self) -> None:
        super().stop()
        self.store.stop()

    def received_key(self, req: Recorded) -> str | None:
        return _bearer(req)

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        default = {400: "InvalidParameter", 401: "InvalidApiKey", 429: "Throttling.RateQuota"}
        document = {
            "request_id": str(uuid.uuid4()),
            "code": code or default.get(status, "InternalError"),
            "message": message,
        }
        return json_reply(status, document)

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = self.error(429, "Requests rate limit exceeded, please try again later.", "Throttling.RateQuota")
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def server_error(self) -> Reply:
        return self.error(500, "An internal error has occured, please try again later or contact service support.")

    def handle(self, req: Recorded) -> Reply:
        synthesizer = req.path == "/api/v1/services/audio/tts/SpeechSynthesizer"
        multimodal = req.path == "/api/v1/services/aigc/multimodal-generation/generation"
        if req.method != "POST" or not (synthesizer or multimodal):
            return self.error(404, "Not Found", "NotFound")
        if _bearer(req) != self.key:
            return self.error(401, "Invalid API-key provided.", "InvalidApiKey")
        body = req.parsed
        source = body.get("input") if isinstance(body, dict) else None
        if not isinstance(source, dict) or not isinstance(source.get("text"), str):
            return self.error(400, "Field required: input.text")
        model = str(body.get("model", ""))
        if multimodal != model.startswith("qwen"):
            return self.error(400, f"Model not exist: {model} on this endpoint", "InvalidParameter")
        voices = QWEN_VOICES if multimodal else COSY_VOICES
        if source.get("voice") not in voices:
            return self.error(400, f"Voice {source.get('voice')} is not supported by {model}")
        request_id = str(uuid.uuid4())
        if multimodal:
            rate = native_rate(self.speak, 24000)
            url = self.store.put(speech_wav(self.speak, source["text"], rate), "audio/wav", "wav")
            output: dict[str, Any] = {
                "finish_reason": "stop",
                "audio": {"url": url, "id": _next_id("audio"), "data": "", "expires_at": int(time.time()) + 86400},
            }
            return json_reply(
                200, {"output": output, "usage": {"characters": len(source["text"])}, "request_id": request_id}
            )
        fmt, rate = source.get("format", "mp3"), source.get("sample_rate", 22050)
        if fmt not in ("wav", "mp3", "pcm") or rate not in COSY_RATES:
            return self.error(400, f"Unsupported format {fmt} or sample_rate {rate}")
        audio = {
            "wav": lambda: (speech_wav(self.speak, source["text"], rate), "audio/wav"),
            "pcm": lambda: (speech_pcm(self.speak, source["text"], rate), "application/octet-stream"),
            "mp3": lambda: (mp3_bytes(rate), "audio/mpeg"),
        }[fmt]()
        url = self.store.put(audio[0], audio[1], fmt)
        output = {"audio": {"url": url, "expires_at": int(time.time()) + 86400}}
        return json_reply(
            200, {"output": output, "usage": {"characters": len(source["text"])}, "request_id": request_id}
        )


# --- MiMo text to speech over chat completions -----------------------------------------------------

MIMO_MODELS = ("mimo-v2.5-tts", "mimo-v2.5-tts-voiceclone")
MIMO_VOICES = ("mimo_default", "default_zh", "default_en")
_DATA_URL = re.compile(r"data:audio/(?:wav|x-wav|mpeg|mp3);base64,([A-Za-z0-9+/=]+)")


class FakeChatAudio(FakeProvider):
    """``POST /v1/chat/completions`` with an ``audio`` request, MiMo style: the text is the assistant message."""

    name = "chat-audio"

    def __init__(self, key: str = "test-key-correct", speak: Speaker | None = None) -> None:
        super().__init__(key)
        self.speak = speak

    def received_key(self, req: Recorded) -> str | None:
        return req.headers.get("api-key") or _bearer(req)

    def error(self, status: int, message: str, code: str | None = None) -> Reply:
        kind = "authentication_error" if status == 401 else "invalid_request_error" if status < 500 else "server_error"
        return json_reply(
            status, {"error": {"message": message, "type": kind, "param": None, "code": code or str(status)}}
        )

    def handle(self, req: Recorded) -> Reply:
        if req.method != "POST" or req.path != "/v1/chat/completions":
            return self.error(404, f"Invalid URL ({req.method} {req.path})")
        if self.received_key(req) != self.key:
            return self.error(401, "Invalid API Key", "invalid_api_key")
        body = req.parsed
        if not isinstance(body, dict) or body.get("model") not in MIMO_MODELS:
            return self.error(400, f"model {body.get('model') if isinstance(body, dict) else None!r} not found")
        spoken = [m.get("content") for m in body.get("messages") or [] if m.get("role") == "assistant"]
        if not spoken or not isinstance(spoken[-1], str):
            return self.error(400, "the text to synthesize must be the content of an assistant message")
        audio = body.get("audio") or {}
        fmt, voice = audio.get("format", "wav"), audio.get("voice")
        if fmt not in ("wav", "mp3", "pcm16"):
            return self.error(400, f"unsupported audio.format {fmt!r}")
        if body["model"].endswith("voiceclone"):
            match = _DATA_URL.fullmatch(str(voice))
            if not match or base64.b64decode(match.group(1))[:4] != b"RIFF":
                return self.error(400, "the voice clone model needs audio.voice as a data:audio/wav;base64 URL")
        elif voice not in MIMO_VOICES:
            return self.error(400, f"unknown voice {voice!r}")
        rate = native_rate(self.speak, 24000) if fmt == "wav" else 24000
        data = {
            "wav": lambda: speech_wav(self.speak, spoken[-1], rate),
            "pcm16": lambda: speech_pcm(self.speak, spoken[-1], 24000),
            "mp3": lambda: mp3_bytes(24000),
        }[fmt]()
        message = {
            "role": "assistant",
            "content": "",
            "audio": {
                "id": _next_id("audio"),
                "data": base64.b64encode(data).decode(),
                "expires_at": int(time.time()) + 3600,
                "transcript": "",
            },
        }
        document = {
            "id": _next_id("chatcmpl"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52},
        }
        return json_reply(200, document, {"x-request-id": _next_id("req")})


# --- Gemini speech generation ----------------------------------------------------------------------

GEMINI_VOICES = ("Kore", "Puck", "Charon", "Zephyr")
_STYLE = re.compile(r"^(?:Say|Speak|Read)\b[^:\n]{0,80}:\s*")


class FakeGemini(FakeGoogle):
    """``POST /v1beta/models/{model}:generateContent`` answering base64 PCM in ``inlineData``.

    Like the model, it speaks the text after a leading style instruction ("Say calmly: …").
    ``pcm_rate`` is the rate it generates and names in the MIME type.
    """

    name = "gemini"

    def __init__(self, key: str = "test-key-correct", speak: Speaker | None = None) -> None:
        super().__init__(key)
        self.speak = speak
        self.pcm_rate = 24_000

    def rate_limit(self, retry_after: str | None) -> Reply:
        reply = self.error(429, "You exceeded your current quota, please check your plan and billing details.")
        if retry_after is not None:
            reply.headers["Retry-After"] = retry_after
        return reply

    def handle(self, req: Recorded) -> Reply:
        match = re.fullmatch(r"/v1beta/models/([^/:]+):generateContent", req.path)
        if req.method != "POST" or not match:
            return self.error(404, "Method not found.")
        if self.received_key(req) != self.key:
            return self.error(400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID")
        if not match.group(1).endswith("-tts"):
            return self.error(400, "The requested combination of response modalities is not supported by the model.")
        body = req.parsed
        parts = ((body.get("contents") or [{}])[0].get("parts") if isinstance(body, dict) else None) or []
        text = "".join(p.get("text", "") for p in parts if isinstance(p, dict))
        if not text:
            return self.error(400, "* GenerateContentRequest.contents: contents is not specified")
        config = body.get("generationConfig") or {}
        if "AUDIO" not in (config.get("responseModalities") or []):
            return self.error(400, "This model only supports the AUDIO response modality.")
        voice = (((config.get("speechConfig") or {}).get("voiceConfig") or {}).get("prebuiltVoiceConfig") or {}).get(
            "voiceName"
        )
        if voice not in GEMINI_VOICES:
            return self.error(400, f"Voice name {voice} is not supported.")
        pcm = speech_pcm(self.speak, _STYLE.sub("", text, count=1), self.pcm_rate)
        inline = {"mimeType": f"audio/L16;codec=pcm;rate={self.pcm_rate}", "data": base64.b64encode(pcm).decode()}
        document = {
            "candidates": [
                {"content": {"parts": [{"inlineData": inline}], "role": "model"}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 120, "totalTokenCount": 129},
            "modelVersion": match.group(1),
            "responseId": _next_id("resp"),
        }
        return json_reply(200, document)


# --- vLLM-Omni /v1/audio/speech for clone models ---------------------------------------------------

TASK_TYPES = ("CustomVoice", "VoiceDesign", "Base")


class FakeVllmOmni(FakeOpenAI):
    """vLLM-Omni's ``/v1/audio/speech`` serving a clone model: ``ref_audio`` and ``ref_text`` required.

    ``voice`` is optional and unknown fields are accepted, as vLLM's request model allows; a
    request without a ``data:audio/wav`` reference or its transcript is refused with vLLM's 400.
    """

    name = "vllm-omni"

    def __init__(
        self, key: str | None = None, speak: Speaker | None = None, model: str = "Qwen/Qwen3-TTS-12Hz-0.6B-Base"
    ) -> None:
        super().__init__(key, speak)
        self.model = model

    def error(self, status: int, message: str, code: str | None = None, param: str | None = None) -> Reply:
        kind = {400: "BadRequestError", 404: "NotFoundError"}.get(status, "InternalServerError")
        return json_reply(status, {"error": {"message": message, "type": kind, "param": param, "code": status}})

    def handle(self, req: Recorded) -> Reply:
        if req.path != "/v1/audio/speech" or req.method != "POST":
            return self.error(404, f"Not Found: {req.path}")
        if self.require_key and _bearer(req) != self.key:
            return json_reply(401, {"error": "Unauthorized"})
        body = req.parsed
        if not isinstance(body, dict) or not isinstance(body.get("input"), str):
            return self.error(400, "input is required", param="input")
        if body.get("model") != self.model:
            return self.error(404, f"The model `{body.get('model')}` does not exist.")
        if body.get("task_type", "Base") not in TASK_TYPES:
            return self.error(400, f"task_type must be one of {TASK_TYPES}", param="task_type")
        ref_audio, ref_text = body.get("ref_audio"), body.get("ref_text")
        if not ref_audio or not ref_text:
            return self.error(400, "Base (voice clone) task requires 'ref_audio' and 'ref_text'", param="ref_audio")
        match = _DATA_URL.fullmatch(str(ref_audio))
        if not match or base64.b64decode(match.group(1))[:4] != b"RIFF":
            return self.error(400, "ref_audio must be an http(s) URL or a data:audio/wav;base64 URL", param="ref_audio")
        if body.get("response_format", "wav") != "wav":
            return self.error(400, "only wav is served by this fake", param="response_format")
        audio = speech_wav(self.speak, body["input"], native_rate(self.speak, 24000))
        return Reply(200, audio, {"Content-Type": "audio/wav", "x-request-id": self._request_id()}, chunked=True)


SEED_FAKES: dict[str, type[FakeProvider]] = {
    "minimax": FakeMiniMax,
    "volcengine": FakeVolcengine,
    "dashscope": FakeDashScope,
    "chat-audio": FakeChatAudio,
    "gemini": FakeGemini,
}
ALL_FAKES: dict[str, type[FakeProvider]] = {**FAKES, **SEED_FAKES}

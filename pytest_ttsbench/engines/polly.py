"""Amazon Polly SynthesizeSpeech (``POST /v1/speech``), signed with botocore's SigV4.

Profile fields::

    polly:
      type: polly
      region: eu-west-1                        # signing region; host polly.{region}.amazonaws.com
      voice: {en: Joanna, zh: Zhiyu}           # VoiceId
      engine: neural                           # optional: standard neural long-form generative
      output_format: pcm                       # pcm (16 kHz s16le, the default), mp3, ogg_vorbis
      sample_rate: "16000"                     # optional; pcm allows 8000 or 16000
      language_code: en-IN                     # optional, for bilingual voices
      access_key_id_env: AWS_ACCESS_KEY_ID     # these three name environment variables;
      api_key_env: AWS_SECRET_ACCESS_KEY       # the defaults are AWS's usual names
      session_token_env: AWS_SESSION_TOKEN     # optional
      base_url: http://127.0.0.1:9000          # optional endpoint override

Credentials come only from those variables, never from ``~/.aws`` or instance metadata, so
a run uses exactly what its configuration names. Polly throttles with HTTP 400 and
``x-amzn-ErrorType: ThrottlingException`` rather than 429; that is retried like a 429.
botocore is an optional extra: ``pip install 'pytest-ttsbench[polly]'``.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes
from pytest_ttsbench.engines.secrets import read_env_secret
from pytest_ttsbench.support.httpclient import ProviderPolicy

if TYPE_CHECKING:  # httpx loads with the first client (httpclient.py)
    import httpx

    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice", "engine", "language_code", "sample_rate")
EXPORT_FORMATS: tuple[str, ...] = ("pcm", "mp3", "ogg_vorbis")

DEFAULT_REGION = "us-east-1"
MEDIA_TYPES = {"pcm": "audio/pcm", "mp3": "audio/mpeg", "ogg_vorbis": "audio/ogg"}
PCM_RATES = ("8000", "16000")
ENGINES = ("standard", "neural", "long-form", "generative")
# Codes botocore's retry handler treats as throttling; Polly documents ThrottlingException.
THROTTLING_CODES = frozenset({"ThrottlingException", "Throttling", "TooManyRequestsException"})


def error_code(headers: httpx.Headers, body: bytes) -> str | None:
    """The AWS error code: ``x-amzn-ErrorType`` (before any ``:uri``), else the body's ``__type``/``code``."""
    header = headers.get("x-amzn-errortype")
    if header:
        return header.split(":", 1)[0].strip() or None
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if isinstance(document, dict):
        code = document.get("__type") or document.get("code") or document.get("Code")
        if isinstance(code, str):
            return code.rsplit("#", 1)[-1]
    return None


def _error_message(status: int, headers: httpx.Headers, body: bytes) -> str | None:
    code = error_code(headers, body)
    message = None
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    if isinstance(document, dict):
        found = document.get("message") or document.get("Message")
        message = found if isinstance(found, str) else None
    if code and message:
        return f"{code}: {message}"
    return code or message


def _is_throttled(status: int, headers: httpx.Headers, body: bytes) -> bool:
    return status == 400 and error_code(headers, body) in THROTTLING_CODES


POLICY = ProviderPolicy(
    name="polly",
    error_message=_error_message,
    is_throttled=_is_throttled,
    request_id_headers=("x-amzn-requestid", "x-amz-request-id"),
)


class PollyEngine(HttpEngine):
    """Speech from Amazon Polly; PCM comes back headerless at 16 kHz."""

    def __init__(self, profile: EngineProfile) -> None:
        try:
            from botocore.auth import SigV4Auth
            from botocore.awsrequest import AWSRequest
            from botocore.credentials import Credentials
        except ImportError:
            raise EngineUnavailable(
                "the polly engine signs requests with botocore: pip install 'pytest-ttsbench[polly]'"
            ) from None
        self._aws_request = AWSRequest
        region = profile.option("region", os.environ.get("AWS_REGION") or DEFAULT_REGION)
        if not isinstance(region, str) or not region:
            raise ConfigError(f"engine profile {profile.name!r}: region must be an AWS region name")
        self.region = region
        key_id = read_env_secret(
            str(profile.option("access_key_id_env", "AWS_ACCESS_KEY_ID")), profile.name, "AWS access key id"
        )
        secret = read_env_secret(profile.api_key_env or "AWS_SECRET_ACCESS_KEY", profile.name, "AWS secret access key")
        token_env = str(profile.option("session_token_env", "AWS_SESSION_TOKEN"))
        token = os.environ.get(token_env, "").strip() or None
        self._signer = SigV4Auth(Credentials(key_id, secret, token), "polly", region)
        super().__init__(
            profile,
            default_base_url=f"https://polly.{region}.amazonaws.com",
            policy=POLICY,
            secrets=(secret, token, key_id),
        )
        self.output_format = self.str_option("output_format", "pcm", tuple(MEDIA_TYPES)) or "pcm"
        rate = profile.option("sample_rate", "16000" if self.output_format == "pcm" else None)
        if rate is not None:
            rate = str(rate)
            if self.output_format == "pcm" and rate not in PCM_RATES:
                raise ConfigError(f"engine profile {self.name!r}: pcm sample_rate must be 8000 or 16000, got {rate}")
        self.sample_rate: str | None = rate
        self.engine = self.str_option("engine", None, ENGINES)
        self.language_code = self.str_option("language_code")

    def _sign(self, method: str, url: str, headers: dict[str, str], body: bytes) -> dict[str, str]:
        """SigV4 headers for this attempt (X-Amz-Date is part of the signature, so each retry re-signs)."""
        request = self._aws_request(method=method, url=url, data=body, headers=dict(headers))
        self._signer.add_auth(request)
        return {k: str(v) for k, v in request.headers.items()}

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.require_voice(request.language, request.voice)
        body: dict[str, Any] = {
            "Text": request.text,
            "TextType": "text",
            "OutputFormat": self.output_format,
            "VoiceId": voice,
        }
        if self.sample_rate:
            body["SampleRate"] = self.sample_rate
        if self.engine:
            body["Engine"] = self.engine
        if self.language_code:
            body["LanguageCode"] = self.language_code
        result = self.http.request(
            "POST",
            "/v1/speech",
            headers={"Content-Type": "application/json"},
            content=json_bytes(body),
            sign=self._sign,
        )
        pcm = self.output_format == "pcm"
        characters = result.headers.get("x-amzn-requestcharacters")
        return audio_synthesis(
            result,
            self.http,
            media_type=MEDIA_TYPES[self.output_format],
            pcm_sample_rate=int(self.sample_rate or 16000) if pcm else None,
            metadata={"voice": voice, "output_format": self.output_format, "request_characters": characters},
        )

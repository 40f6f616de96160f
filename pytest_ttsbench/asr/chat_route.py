"""An ASR route over chat completions: ``POST {base_url}/chat/completions`` with the clip in the message.

Audio language models served as chat models (MiMo ASR, Qwen3-ASR on vLLM, gpt-4o-audio) take
the clip inside a user message rather than as an upload::

    asr:
      routes:
        - type: chat
          name: mimo_v2_5_asr
          base_url: https://api.xiaomimimo.com/v1
          model: mimo-v2.5-asr
          api_key_env: MIMO_API_KEY
          prompt: "Transcribe the audio."          # optional text part after the audio; {language} = item's
          audio_part: input_audio_data_url          # input_audio (OpenAI), or audio_url (vLLM)
          extra_body: {asr_options: {language: zh}} # merged into the request body as is
          refusal_patterns: ["抱歉，我无法转写"]     # a reply matching one is a failed route
          strip_prefix: '\\s*language\\s+[^<\\n]{0,40}<asr_text>'   # the default

The body is ``{model, messages: [{role: user, content: [<audio part>, <text part>]}],
temperature: 0}`` plus ``extra_body``; the first choice's ``message.content`` is the reply. A
leading ``strip_prefix`` match is removed (by default ``language Chinese<asr_text>``); a reply
that matches one of ``refusal_patterns`` (regexes, searched) fails the route for that clip with
the reply quoted: a model's apology is not a transcript. Requests, retries, the key and its
redaction are the ``openai`` route's own (:class:`OpenAITranscriptionRoute`).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ttsbench.asr.base import Transcription
from pytest_ttsbench.asr.openai_route import DEFAULT_STRIP_PREFIX, ROUTE_KEYS, OpenAITranscriptionRoute
from pytest_ttsbench.asr.whisper import whisper_language
from pytest_ttsbench.audio.decoding import DecodedAudio, encode_wav
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.text import shorten

# How the clip sits in the message: OpenAI's input_audio (base64 and a format), input_audio
# holding a data: URL (Xiaomi MiMo's ASR API), or vLLM's audio_url (Qwen3-ASR).
AUDIO_PARTS = ("input_audio", "input_audio_data_url", "audio_url")
# The openai route's fields (connection, retries, key, prompt), less its form, plus the chat ones.
_KEYS = (ROUTE_KEYS - {"extra_form"}) | {"audio_part", "extra_body", "refusal_patterns"}


def audio_content(wav: bytes, audio_part: str) -> dict[str, Any]:
    """The clip as a message content part, in the ``audio_part`` shape (see :data:`AUDIO_PARTS`)."""
    encoded = base64.b64encode(wav).decode("ascii")
    if audio_part == "audio_url":
        return {"type": "audio_url", "audio_url": {"url": f"data:audio/wav;base64,{encoded}"}}
    if audio_part == "input_audio_data_url":
        return {"type": "input_audio", "input_audio": {"data": f"data:audio/wav;base64,{encoded}"}}
    return {"type": "input_audio", "input_audio": {"data": encoded, "format": "wav"}}


def reply_text(document: Any) -> str | None:
    """The first choice's message content: a string, or the text of its text parts."""
    try:
        content = document["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return "".join(t for t in texts if isinstance(t, str))
    return None


class ChatTranscriptionRoute(OpenAITranscriptionRoute):
    """A recognizer behind an OpenAI-compatible ``/chat/completions`` endpoint taking audio."""

    kind = "chat"
    path = "/chat/completions"

    def __init__(
        self,
        *,
        audio_part: str = "input_audio",
        extra_body: Mapping[str, Any] | None = None,
        refusal_patterns: Sequence[str] = (),
        strip_prefix: str | None = DEFAULT_STRIP_PREFIX,
        temperature: float | None = 0.0,
        **common: Any,
    ) -> None:
        super().__init__(strip_prefix=strip_prefix, temperature=temperature, **common)
        if audio_part not in AUDIO_PARTS:
            raise ValueError(f"chat route: audio_part must be one of {', '.join(AUDIO_PARTS)}, got {audio_part!r}")
        self.audio_part = audio_part
        if extra_body is not None and not isinstance(extra_body, Mapping):
            raise ValueError("chat route: extra_body must be a mapping (merged into the request body)")
        self.extra_body = dict(extra_body or {})
        if isinstance(refusal_patterns, str) or not all(isinstance(p, str) for p in refusal_patterns):
            raise ValueError("chat route: refusal_patterns must be a list of regular expressions")
        try:
            self.refusals = [re.compile(pattern) for pattern in refusal_patterns]
        except re.error as exc:
            raise ValueError(f"chat route: a refusal pattern is not a regular expression: {exc}") from None

    def _body(self, audio: DecodedAudio, language: str) -> dict[str, Any]:
        content: list[dict[str, Any]] = [audio_content(encode_wav(audio), self.audio_part)]
        if self.prompt:
            content.append({"type": "text", "text": self.prompt.replace("{language}", whisper_language(language))})
        body: dict[str, Any] = {"model": self.model, "messages": [{"role": "user", "content": content}]}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return {**body, **self.extra_body}

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription:
        headers = {**self._headers(), "Content-Type": "application/json"}
        body = dump_json(self._body(audio, language), ensure_ascii=False).encode("utf-8")
        document, result = self._post(headers, body)
        reply = reply_text(document)
        if reply is None:
            shown = shorten(self._redact(dump_json(document, ensure_ascii=False)), 200)
            raise self._http().error(f"answer has no choices[0].message.content: {shown}")
        text, _ = self._text(reply)
        for refusal in self.refusals:
            if refusal.search(text):
                raise self._http().error(
                    f"the model declined to transcribe (reply matches refusal pattern {refusal.pattern!r}): "
                    f"{shorten(text, 200)!r}"
                )
        return self._transcription(reply, result, None)  # no language is sent: the model says none


def chat_route(spec: Mapping[str, Any]) -> ChatTranscriptionRoute:
    """The route for ``{type: chat, base_url, model, prompt, audio_part, extra_body, refusal_patterns, ...}``."""
    unknown = set(spec) - _KEYS
    if unknown:
        raise ValueError(f"chat route: unknown field(s) {', '.join(sorted(unknown))}")
    if not spec.get("model"):
        raise ValueError("chat route: field 'model' is required (the served model's name)")
    return ChatTranscriptionRoute(**{k: v for k, v in spec.items() if k != "type" and v is not None})

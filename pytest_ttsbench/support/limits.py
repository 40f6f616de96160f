"""Size limits: how much text an item may hold and how many bytes any engine, program or server may return.

Without them one hostile or mistaken input takes the whole machine: a 1 MB ``text`` made eSpeak
use 9.6 GB before it was killed, and a program writing ``/dev/zero`` to its standard output grew
to 5.5 GB. Each limit is checked where the data arrives (at load for text, while reading for
bytes), and crossing it is an error that names the limit, never a silent cut.

A project changes the first three in its configuration (``limits:`` in ``ttsbench.yaml``); an
engine profile may set its own ``max_audio_bytes`` and ``max_clip_seconds``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: characters of text (after choosing the contract's variant) one item may send to an engine; the
#: cloud services cap one request at 4,000-5,000 characters
DEFAULT_MAX_TEXT_CHARS = 5_000
#: bytes of audio one synthesis may return (64 MiB is over 30 minutes of 16-bit 16 kHz mono)
DEFAULT_MAX_AUDIO_BYTES = 64 * 1024 * 1024
#: seconds of audio one clip may decode to: decoding stops there, whatever the container claims
#: (a 306 KB FLAC of 24 h of silence would otherwise decode to 5.5 GB of samples)
DEFAULT_MAX_CLIP_SECONDS = 600.0
#: bytes of standard error kept from a program (its end, where the error is)
MAX_STDERR_BYTES = 64 * 1024
#: bytes of standard output a recognizer program may print as its transcript
MAX_TRANSCRIPT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The project's limits (``limits:`` in the configuration)."""

    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    max_audio_bytes: int = DEFAULT_MAX_AUDIO_BYTES
    max_clip_seconds: float = DEFAULT_MAX_CLIP_SECONDS


LIMITS_SCHEMA = {
    "description": "size limits checked where the data arrives; crossing one is an error naming it",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "max_text_chars": {
            "type": "integer",
            "minimum": 1,
            "description": "characters of an item's text (default 5,000)",
        },
        "max_audio_bytes": {
            "type": "integer",
            "minimum": 1,
            "description": "bytes of audio one synthesis returns (default 64 MiB)",
        },
        "max_clip_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "seconds of audio one clip decodes to (default 600)",
        },
    },
}

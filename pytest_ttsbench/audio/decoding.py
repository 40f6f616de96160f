"""Audio decoding and the checks every clip must pass before it reaches ASR.

Everything an engine returns is decoded with PyAV (which faster-whisper already depends on)
into mono float32 samples at the ASR's rate. Headerless 16-bit PCM is wrapped first. Decoding
stops at ``max_seconds`` (:data:`~pytest_ttsbench.support.limits.DEFAULT_MAX_CLIP_SECONDS` unless told
otherwise), counted while the frames come out, so memory stays bounded whatever the container's
header claims: :func:`decode_audio` is the one decoder, and every caller gets the limit. The
checks catch failures that need no ASR at all: undecodable bodies, empty or silent clips, and
clips far too short for their text (an engine that deletes digits before synthesis).

It is also the one gate for what an engine sends (every adapter, ``command``, ``python``,
``replay``'s clips and clips read back from a folder reach ASR only through it): a clip whose
header is outside what any speech clip has (:data:`SAMPLE_RATES`, :data:`MAX_CHANNELS`, a sample
width PyAV knows) or whose samples are not all finite numbers raises :class:`AudioDecodeError`,
as does anything PyAV raises on a body it cannot read. So a malformed clip becomes its item's
``error`` row, never a traceback, and no NaN reaches a figure.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import numbers
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.limits import DEFAULT_MAX_CLIP_SECONDS
from pytest_ttsbench.support.package_versions import installed_version
from pytest_ttsbench.support.text import shorten

ASR_SAMPLE_RATE = 16_000
#: the sample rates a clip may declare (Hz): telephone speech at the low end, studio masters at the top
SAMPLE_RATES = range(4_000, 384_001)
#: the most channels a clip may have (7.1 audio); no TTS engine sends more
MAX_CHANNELS = 8


def sample_rate_problem(rate: object) -> str | None:
    """Why ``rate`` cannot be a clip's sample rate, or None when it can (an integer in :data:`SAMPLE_RATES`)."""
    if isinstance(rate, bool) or not isinstance(rate, numbers.Integral):
        return f"sample rate must be an integer number of Hz, got {type(rate).__name__} {shorten(repr(rate), 40)}"
    if int(rate) not in SAMPLE_RATES:
        return f"sample rate {rate} Hz is outside {SAMPLE_RATES.start:,}..{SAMPLE_RATES.stop - 1:,} Hz"
    return None


def _header_problem(rate: int, channels: int, has_format: bool) -> str | None:
    """What a decoded stream's header declares that no speech clip has, or None."""
    problem = sample_rate_problem(rate)
    if problem is not None:
        return problem
    if not 1 <= channels <= MAX_CHANNELS:
        return f"{channels} channels (a clip has 1 to {MAX_CHANNELS})"
    if not has_format:
        return "unknown sample width (the header names no sample format PyAV knows)"
    return None


def _non_finite_problem(samples: np.ndarray) -> str | None:
    import numpy as np

    bad = samples.size - int(np.count_nonzero(np.isfinite(samples)))
    return f"{bad:,} of {samples.size:,} samples are not finite numbers (NaN or infinite)" if bad else None


class AudioDecodeError(ValueError):
    """The bytes are not audio we can decode; the message says what they looked like."""


class ClipTooLong(AudioDecodeError):
    """The clip decodes to more than the limit; decoding stopped there."""

    def __init__(self, limit: float, claimed: float | None = None) -> None:
        claim = f" (its header claims {claimed:,.0f} s)" if claimed else ""
        super().__init__(
            f"the clip decodes to more than {limit:g} s of audio{claim}, the limit (max_clip_seconds); "
            "decoding stopped there"
        )
        self.limit = limit


@dataclass(frozen=True)
class DecodedAudio:
    """A clip as the ASR consumes it, plus what the original stream declared."""

    samples: np.ndarray  # mono float32 in [-1, 1] at ``sample_rate``
    sample_rate: int
    source_sample_rate: int
    source_channels: int
    source_format: str
    source_sample_width: int | None

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.sample_rate if self.sample_rate else 0.0

    def pcm16(self) -> bytes:
        """The samples as 16-bit little-endian PCM."""
        import numpy as np

        return (np.clip(self.samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def _describe_body(data: bytes) -> str:
    head = data[:200].lstrip()
    if head[:1] in (b"{", b"["):
        return "a JSON document"
    if head[:1] == b"<":
        return "an HTML/XML document"
    return f"{len(data)} bytes of unknown format"


def wav_shortfall(body: bytes) -> tuple[int, int] | None:
    """(declared, present) data bytes when a WAV header promises more audio than arrived.

    Streaming writers put placeholder sizes in the header (0, or near 0xFFFFFFFF as Fish
    documents); those say nothing about the length and are not checked.
    """
    if len(body) < 12 or body[:4] != b"RIFF" or body[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(body):
        chunk_id = body[pos : pos + 4]
        size = int.from_bytes(body[pos + 4 : pos + 8], "little")
        if chunk_id == b"data":
            if size == 0 or size >= 0x7FFF0000:
                return None
            present = len(body) - pos - 8
            return (size, present) if present < size else None
        pos += 8 + size + (size & 1)
    return None


def decode_pcm16(
    data: bytes, sample_rate: int, target_rate: int = ASR_SAMPLE_RATE, max_seconds: float = DEFAULT_MAX_CLIP_SECONDS
) -> DecodedAudio:
    """Decode headerless signed 16-bit little-endian mono PCM (ClipTooLong past ``max_seconds``)."""
    import numpy as np

    problem = sample_rate_problem(sample_rate)
    if problem is not None:
        raise AudioDecodeError(f"headerless PCM: {problem}")
    if len(data) / 2 / sample_rate > max_seconds:
        raise ClipTooLong(max_seconds)
    if len(data) % 2:
        data = data[:-1]
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
    return DecodedAudio(
        samples=resample(samples, sample_rate, target_rate),
        sample_rate=target_rate,
        source_sample_rate=sample_rate,
        source_channels=1,
        source_format="pcm_s16le",
        source_sample_width=2,
    )


def resample(samples: np.ndarray, source_rate: int, target_rate: int) -> np.ndarray:
    """Resample mono float32 samples with libswresample (through PyAV)."""
    import av
    import numpy as np

    if source_rate == target_rate or samples.size == 0:
        return samples.astype(np.float32, copy=False)
    frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1).astype(np.float32), format="flt", layout="mono")
    frame.sample_rate = source_rate
    resampler = av.AudioResampler(format="flt", layout="mono", rate=target_rate)
    chunks = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)


def decode_audio(
    data: bytes,
    pcm_sample_rate: int | None = None,
    target_rate: int = ASR_SAMPLE_RATE,
    max_seconds: float = DEFAULT_MAX_CLIP_SECONDS,
) -> DecodedAudio:
    """Decode any container PyAV reads (WAV, MP3, OGG, FLAC…) or headerless PCM to mono at ``target_rate``.

    Raises :class:`ClipTooLong` as soon as the frames decoded pass ``max_seconds``.
    """
    if not data:
        raise AudioDecodeError("empty body: the engine returned no audio bytes")
    if pcm_sample_rate is not None:
        return decode_pcm16(data, pcm_sample_rate, target_rate, max_seconds)
    import av
    import numpy as np

    try:
        with av.open(io.BytesIO(data), mode="r") as container:
            if not container.streams.audio:
                raise AudioDecodeError(f"no audio stream in the body ({_describe_body(data)})")
            stream = container.streams.audio[0]
            codec = stream.codec_context
            source_rate = codec.sample_rate or 0
            channels = codec.channels or 0
            sample_width = codec.format.bytes if codec.format is not None else None
            problem = _header_problem(source_rate, channels, codec.format is not None)
            if problem is not None:
                raise AudioDecodeError(f"malformed audio ({container.format.name}): {problem}")
            resampler = av.AudioResampler(format="flt", layout="mono", rate=target_rate)
            chunks: list[np.ndarray] = []
            decoded = 0.0  # seconds, at each frame's own rate: counted before anything is kept
            for frame in container.decode(stream):
                decoded += frame.samples / (frame.sample_rate or source_rate or target_rate)
                if decoded > max_seconds:
                    raise ClipTooLong(max_seconds, container.duration / av.time_base if container.duration else None)
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(-1))
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
            fmt = container.format.name
    except AudioDecodeError:
        raise
    except Exception as exc:  # whatever PyAV raises on bytes it cannot read is the clip's fault, never a crash
        raise AudioDecodeError(f"undecodable audio ({_describe_body(data)}): {type(exc).__name__}: {exc}") from exc
    samples = np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
    problem = _non_finite_problem(samples)
    if problem is not None:
        raise AudioDecodeError(f"malformed audio ({fmt}): {problem}")
    return DecodedAudio(samples, target_rate, source_rate, channels, fmt, sample_width)


def is_playable(prefix: bytes, pcm_sample_rate: int | None = None) -> bool:
    """Whether the start of a streamed clip already decodes to at least one sample.

    This is the moment a player could start: a WAV header alone, or half an MP3 frame, is a
    first byte but nothing to hear yet.
    """
    if pcm_sample_rate is not None:
        return len(prefix) >= 2
    try:  # one frame is enough to know: decoding stops at the first millisecond
        return decode_audio(prefix, None, max_seconds=0.001).samples.size > 0
    except ClipTooLong:
        return True
    except AudioDecodeError:
        return False


def encode_wav(audio: DecodedAudio) -> bytes:
    """A 16-bit mono WAV of the decoded samples (for engines that return headerless PCM)."""
    return pcm16_wav(audio.pcm16(), audio.sample_rate)


# --- checks ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AudioPolicy:
    """Bounds a clip must respect. The duration floor scales with the amount of text.

    ``min_seconds_per_unit`` is deliberately lenient (fast voices speak about 15 characters a
    second; 0.02 s a character is several times faster): it only catches clips that lost whole
    words, such as 0.19 s for a sentence whose spelled number alone took 1.41 s.
    """

    silence_rms: float = 1e-3
    min_seconds_per_unit: float = 0.02
    max_seconds_per_unit: float = 1.0
    max_seconds_floor: float = 30.0
    allowed_channels: tuple[int, ...] = (1, 2)
    allowed_sample_widths: tuple[int, ...] = (2, 3, 4)
    min_sample_rate: int = 8_000


def spoken_units(text: str) -> int:
    """A rough length of what must be spoken: letters and digits (CJK and Thai count per character)."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LN")


@dataclass(frozen=True)
class AudioCheck:
    """The outcome of checking one clip: problems found (empty when fine) and the figures measured."""

    problems: tuple[str, ...]
    seconds: float
    rms: float
    figures: dict[str, float | int | str | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_record(self, identity: str) -> dict[str, Any]:
        """The check as kept beside its clip in the cache, under what decided it (:func:`check_identity`)."""
        return {
            "identity": identity,
            "problems": list(self.problems),
            "seconds": self.seconds,
            "rms": self.rms,
            "figures": dict(self.figures),
        }

    @classmethod
    def from_record(cls, record: Any, identity: str) -> AudioCheck | None:
        """The check a cached clip was stored with, or None when it was made under anything else."""
        if not isinstance(record, dict) or record.get("identity") != identity:
            return None
        try:
            return cls(
                tuple(record["problems"]), float(record["seconds"]), float(record["rms"]), dict(record["figures"])
            )
        except (KeyError, TypeError, ValueError):
            return None


def check_identity(policy: AudioPolicy, max_seconds: float) -> str:
    """Everything besides a clip's bytes and text that decides its check: the policy, the decoding
    limit, this module's code and the PyAV release that resamples (its libswresample).

    A clip taken from the cache was checked when it was stored; with the same identity its check
    is reused, so a rerun whose every transcript is cached never decodes a clip (nor imports PyAV
    and numpy).
    """
    material = {
        "policy": dataclasses.asdict(policy),
        "max_seconds": max_seconds,
        "code": _code_sha256(),
        "av": installed_version("av"),
    }
    return hashlib.sha256(dump_json(material, sort_keys=True).encode()).hexdigest()


@functools.cache
def _code_sha256() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def check_audio(audio: DecodedAudio, text: str, policy: AudioPolicy | None = None) -> AudioCheck:
    """Check a decoded clip against ``policy``; every failed check is named in ``problems``."""
    import numpy as np

    policy = policy or AudioPolicy()
    problems: list[str] = []
    seconds = audio.seconds
    rms = float(np.sqrt(np.mean(np.square(audio.samples)))) if audio.samples.size else 0.0
    if audio.samples.size == 0:
        problems.append("empty clip: no samples decoded")
    elif rms < policy.silence_rms:
        problems.append(f"silent clip: RMS {rms:.5f} below {policy.silence_rms}")
    if audio.source_channels not in policy.allowed_channels:
        problems.append(f"unexpected channel count {audio.source_channels}")
    if audio.source_sample_rate < policy.min_sample_rate:
        problems.append(f"sample rate {audio.source_sample_rate} Hz below {policy.min_sample_rate} Hz")
    width = audio.source_sample_width
    if width is not None and audio.source_format in ("wav", "pcm_s16le") and width not in policy.allowed_sample_widths:
        problems.append(f"unexpected sample width {width} bytes")
    units = spoken_units(text)
    low = units * policy.min_seconds_per_unit
    high = max(policy.max_seconds_floor, units * policy.max_seconds_per_unit)
    if audio.samples.size and seconds < low:
        problems.append(f"too short for its text: {seconds:.2f} s for {units} letters/digits (at least {low:.2f} s)")
    if seconds > high:
        problems.append(f"too long for its text: {seconds:.2f} s for {units} letters/digits (at most {high:.2f} s)")
    figures: dict[str, float | int | str | None] = {
        "seconds": round(seconds, 4),
        "rms": round(rms, 6),
        "source_sample_rate": audio.source_sample_rate,
        "source_channels": audio.source_channels,
        "source_format": audio.source_format,
        "source_sample_width": width,
    }
    return AudioCheck(tuple(problems), seconds, rms, figures)

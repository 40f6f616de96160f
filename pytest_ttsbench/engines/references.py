"""Reference clips for voice cloning: a profile's ``reference_audio`` and ``reference_text``.

Fish sends the clip's bytes, the OpenAI-compatible clone servers (vLLM-Omni) and MiMo's clone
model a ``data:`` URL of it. The path is relative to the configuration file's folder, and a
clip that is missing, or not the WAV a data-URL provider expects, is a configuration error at
start-up rather than an ``error`` row per item.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.config import ConfigError

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile


@dataclass(frozen=True)
class ReferenceClip:
    """One reference recording and, where given, its exact transcript."""

    path: Path
    audio: bytes
    text: str | None

    def data_url(self, media_type: str = "audio/wav") -> str:
        return f"data:{media_type};base64," + base64.b64encode(self.audio).decode("ascii")

    def facts(self) -> dict[str, Any]:
        """What a result row records about the clip: its name and digest (never its bytes), and its text."""
        facts: dict[str, Any] = {
            "reference_audio": self.path.name,
            "reference_sha256": hashlib.sha256(self.audio).hexdigest(),
        }
        if self.text is not None:
            facts["reference_text"] = self.text
        return facts


def load_reference(profile: EngineProfile, *, text_required: bool, wav_only: bool = True) -> ReferenceClip | None:
    """The profile's reference clip, None when it names none; ConfigError naming the profile and field."""
    audio_path = profile.option("reference_audio")
    text = profile.option("reference_text")
    if audio_path is None and text is None:
        return None
    if not isinstance(audio_path, str) or (text is not None and not isinstance(text, str)):
        raise ConfigError(
            f"engine profile {profile.name!r}: voice cloning needs reference_audio (a path to the clip)"
            + (" and reference_text (what the clip says)" if text_required else "")
        )
    if text_required and not (isinstance(text, str) and text.strip()):
        raise ConfigError(
            f"engine profile {profile.name!r}: voice cloning needs both reference_audio (a path) and "
            "reference_text (what the clip says)"
        )
    path = Path(audio_path)
    if not path.is_absolute():
        path = Path(profile.base_dir) / path
    if not path.is_file():
        raise ConfigError(f"engine profile {profile.name!r}: reference_audio {str(path)!r} does not exist")
    audio = path.read_bytes()
    if wav_only and not (audio[:4] == b"RIFF" and audio[8:12] == b"WAVE"):
        raise ConfigError(f"engine profile {profile.name!r}: reference_audio {str(path)!r} is not a WAV file")
    return ReferenceClip(path, audio, text)

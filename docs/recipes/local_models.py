"""Recipe factories for the ``python`` engine (see local-models.md next to this file).

Copy this file next to your ``ttsbench.yaml`` (or into your own package) and name a class as
the profile's ``factory``. Each class loads its model once in ``__init__`` (the engine calls
the factory once per process, once per pytest-xdist worker) and answers ``synthesize(request)``
with float samples and their rate. The heavy imports happen inside ``load_model``, so this
module imports without torch; the test suite runs these classes' ``synthesize``/``close`` code
with eSpeak NG standing in for the model (tests/engines/test_adapter_python.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


class LocalSpeech:
    """What every recipe shares: seeding, the reply the engine reads, and releasing the model."""

    sample_rate = 16000
    model_name = "local"

    def load_model(self) -> None:  # pragma: no cover - needs the model's libraries
        raise NotImplementedError

    def generate(self, text: str, language: str, voice: str | None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def seed(self, seed: int | None) -> None:
        """Make a stochastic model reproducible: every request carries a seed (``seed:`` in the profile fixes it)."""
        if seed is None:
            return
        try:
            import torch
        except ImportError:
            return
        torch.manual_seed(seed)

    def synthesize(self, request: Any) -> dict[str, Any]:
        self.seed(request.seed)
        samples = np.asarray(self.generate(request.text, request.language, request.voice), dtype=np.float32)
        return {
            "audio": samples.reshape(-1),
            "sample_rate": self.sample_rate,
            "metadata": {"model": self.model_name, "seed": request.seed, "voice": request.voice},
        }

    def close(self) -> None:
        """Drop the model and give the GPU memory back (called once, at the session's end)."""
        self.model = None
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except ImportError:
            pass


class ArtstSpeech(LocalSpeech):
    """ArTST (Arabic SpeechT5) through transformers, with the SpeechT5 HiFi-GAN vocoder.

    ``speaker_embedding`` is a ``.npy`` file holding one 512-float x-vector (SpeechT5 needs a
    speaker; the CMU ARCTIC x-vectors are the usual choice).
    """

    def __init__(
        self,
        checkpoint: str = "MBZUAI/speecht5_tts_clartts_ar",
        vocoder: str = "microsoft/speecht5_hifigan",
        speaker_embedding: str | None = None,
        device: str = "cpu",
        revision: str | None = None,
    ) -> None:
        self.checkpoint, self.vocoder_name, self.device, self.revision = checkpoint, vocoder, device, revision
        self.speaker_embedding = speaker_embedding
        self.model_name = checkpoint
        self.load_model()

    def load_model(self) -> None:  # pragma: no cover - needs torch and transformers
        import torch
        from transformers import SpeechT5ForTextToSpeech, SpeechT5HifiGan, SpeechT5Processor

        self.processor = SpeechT5Processor.from_pretrained(self.checkpoint, revision=self.revision)
        self.model = SpeechT5ForTextToSpeech.from_pretrained(self.checkpoint, revision=self.revision).to(self.device)
        self.vocoder = SpeechT5HifiGan.from_pretrained(self.vocoder_name).to(self.device)
        vector = np.load(self.speaker_embedding) if self.speaker_embedding else np.zeros(512, dtype=np.float32)
        self.speaker = torch.tensor(vector, dtype=torch.float32).reshape(1, -1).to(self.device)

    def generate(self, text: str, language: str, voice: str | None) -> np.ndarray:  # pragma: no cover
        import torch

        inputs = self.processor(text=text, return_tensors="pt").to(self.device)
        with torch.inference_mode():
            speech = self.model.generate_speech(inputs["input_ids"], self.speaker, vocoder=self.vocoder)
        return speech.cpu().numpy()

    def cache_identity(self) -> dict[str, Any] | None:
        """Cached only with a pinned revision (None: never): a moving checkpoint name says nothing
        about the weights behind it."""
        if not self.revision:
            return None
        return {"checkpoint": self.checkpoint, "revision": self.revision, "vocoder": self.vocoder_name}


class CloneSpeech(LocalSpeech):
    """A zero-shot cloning model (CosyVoice, IndexTTS2, OmniVoice…) speaking in a reference clip's voice.

    ``reference_audio`` is read once, at load; a relative path is taken from the folder pytest
    runs in (the configuration's folder). ``reference_text`` is what the clip says (most cloning
    models want it). ``load_model``/``generate`` are the only model-specific lines.
    """

    def __init__(self, reference_audio: str, reference_text: str, model_dir: str = "", device: str = "cuda") -> None:
        path = Path(reference_audio)
        if not path.is_file():
            raise FileNotFoundError(f"reference_audio {reference_audio!r} is not a file")
        self.reference_audio, self.reference_text = path, reference_text
        self.model_dir, self.device = model_dir, device
        self.model_name = Path(model_dir).name or "clone"
        self.load_model()

    def load_model(self) -> None:  # pragma: no cover - CosyVoice as the example
        from cosyvoice.cli.cosyvoice import AutoModel

        self.model = AutoModel(model_dir=self.model_dir)
        self.sample_rate = self.model.sample_rate

    def generate(self, text: str, language: str, voice: str | None) -> np.ndarray:  # pragma: no cover
        chunks = self.model.inference_zero_shot(text, self.reference_text, str(self.reference_audio), stream=False)
        return np.concatenate([chunk["tts_speech"].cpu().numpy().reshape(-1) for chunk in chunks])

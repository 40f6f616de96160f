"""ASR routes: each turns a decoded clip into a transcript, behind :class:`~pytest_ttsbench.asr.base.AsrRoute`."""

from pytest_ttsbench.asr.base import AsrError, AsrRoute, Transcription

__all__ = ["AsrError", "AsrRoute", "Transcription"]

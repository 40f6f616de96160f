"""The embedded default engine: eSpeak NG called in-process through ctypes.

eSpeak NG ships as a shared library inside the ``espeakng-loader`` wheel (with its voice data),
so a fresh offline machine gets a working engine from the package index alone. The system
``libespeak-ng`` is used only when that wheel is missing.

The library keeps one synthesizer in global state (voice, rate, pitch, output callback), so
this module holds one :class:`_EspeakLibrary` per process behind a lock; every synthesis sets
its voice and parameters again, because two profiles may share the one synthesizer.
"""

from __future__ import annotations

import _ctypes
import array
import ctypes
import ctypes.util
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.support.checked_numbers import NumberRange

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice", "rate", "pitch")
EXPORT_FORMATS: tuple[str, ...] = ("wav",)

# Values from espeak-ng's speak_lib.h.
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000  # without it the library calls exit() when its data is missing
_POS_CHARACTER = 1
# Only CHARS_UTF8: espeakSSML (0x10) and espeakPHONEMES (0x100) stay off, so "<", "&" and "[["
# in an item's text are read as text, never as markup or phoneme input.
_CHARS_UTF8 = 1
_PARAM_RATE = 1
_PARAM_PITCH = 3
_EE_OK = 0
_EE_NOT_FOUND = 2

DEFAULT_RATE_WPM = 175  # eSpeak NG's own default
DEFAULT_PITCH = 50
RATE_RANGE = (80, 450)
PITCH_RANGE = (0, 100)

# Voice when neither the request nor the profile names one (eSpeak's voice names).
_DEFAULT_VOICES = {"en": "en-us", "zh": "cmn", "cmn": "cmn", "ar": "ar", "th": "th"}

_SynthCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)


def default_voice(language: str) -> str:
    """eSpeak's voice for a BCP-47 tag: a known mapping, else the primary subtag (eSpeak names voices so)."""
    tag = language.lower()
    primary = tag.split("-")[0]
    return _DEFAULT_VOICES.get(tag) or _DEFAULT_VOICES.get(primary) or primary


@dataclass(frozen=True)
class LibraryInfo:
    """Where the loaded library came from, for the synthesis metadata."""

    path: str
    data_path: str | None
    version: str
    sample_rate: int


def _locate_library() -> tuple[str, str | None]:
    """The wheel's library and data; the system library (with its default data) only without the wheel."""
    try:
        import espeakng_loader
    except ImportError:
        found = ctypes.util.find_library("espeak-ng")
        if found is None:
            raise EngineUnavailable(
                "eSpeak NG is not available: install the espeakng-loader wheel "
                '(pip install "espeakng-loader>=0.2.4") or the system libespeak-ng'
            ) from None
        return found, None
    return espeakng_loader.get_library_path(), espeakng_loader.get_data_path()


def _declare(lib: ctypes.CDLL) -> None:
    """Argument and result types of the functions used (ctypes would guess ``int`` otherwise)."""
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_Terminate.argtypes = []
    lib.espeak_Terminate.restype = ctypes.c_int
    lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
    lib.espeak_SetSynthCallback.restype = None
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetVoiceByName.restype = ctypes.c_int
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_SetParameter.restype = ctypes.c_int
    lib.espeak_Synth.argtypes = [
        ctypes.c_void_p,  # text
        ctypes.c_size_t,  # buffer size in bytes, terminator included
        ctypes.c_uint,  # position
        ctypes.c_int,  # position type
        ctypes.c_uint,  # end position (0: none)
        ctypes.c_uint,  # flags
        ctypes.POINTER(ctypes.c_uint),  # unique identifier (unused)
        ctypes.c_void_p,  # user data (unused)
    ]
    lib.espeak_Synth.restype = ctypes.c_int
    lib.espeak_Synchronize.argtypes = []
    lib.espeak_Synchronize.restype = ctypes.c_int
    lib.espeak_Info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
    lib.espeak_Info.restype = ctypes.c_char_p


# Unloading the library between syntheses resets its static state (see _EspeakLibrary).
_UNLOAD = getattr(_ctypes, "dlclose", None) or getattr(_ctypes, "FreeLibrary", None)


class _EspeakLibrary:
    """The process's one eSpeak NG synthesizer. Use :func:`_library`; call :meth:`synthesize` only.

    eSpeak NG's waveform generator keeps static state (pitch flutter phase and the like) that
    survives ``espeak_Terminate``: the same text gives different audio depending on what was
    said before it in the process, so verdicts would depend on test order and on how
    pytest-xdist shares items out. Loading, initializing and unloading the library around each
    synthesis (about 7 ms) makes a text's audio depend on the text and settings only.
    """

    def __init__(self) -> None:
        self.path, self.data_path = _locate_library()
        self._chunks: list[bytes] = []
        # The library keeps only a raw function pointer: this attribute keeps the ctypes
        # object (and so its trampoline) alive for as long as the process may synthesize.
        self._callback = _SynthCallback(self._on_audio)
        lib, rate = self._open()
        try:
            actual_data = ctypes.c_char_p()
            version = lib.espeak_Info(ctypes.byref(actual_data)) or b"unknown"
            self.info = LibraryInfo(
                path=self.path,
                data_path=actual_data.value.decode() if actual_data.value else self.data_path,
                version=version.decode(),
                sample_rate=rate,
            )
        finally:
            self._close(lib)

    def _open(self) -> tuple[ctypes.CDLL, int]:
        try:
            lib = ctypes.CDLL(self.path)
        except OSError as exc:
            raise EngineUnavailable(f"cannot load eSpeak NG from {self.path}: {exc}") from exc
        _declare(lib)
        data = self.data_path.encode() if self.data_path else None
        rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data, _INITIALIZE_DONT_EXIT)
        if rate <= 0:
            self._close(lib, initialized=False)
            raise EngineUnavailable(f"eSpeak NG failed to initialize (code {rate}) with data at {self.data_path}")
        lib.espeak_SetSynthCallback(self._callback)
        return lib, rate

    @staticmethod
    def _close(lib: ctypes.CDLL, initialized: bool = True) -> None:
        if initialized:
            lib.espeak_Terminate()
        if _UNLOAD is not None:
            _UNLOAD(lib._handle)

    def _on_audio(self, wav: Any, count: int, _events: Any) -> int:
        if wav and count > 0:
            self._chunks.append(ctypes.string_at(wav, count * 2))
        return 0  # 0 = keep going

    def synthesize(self, text: str, voice: str, rate: int, pitch: int) -> bytes:
        """16-bit native-endian mono PCM at ``info.sample_rate``; the caller holds ``_LOCK``."""
        lib, _ = self._open()
        try:
            code = lib.espeak_SetVoiceByName(voice.encode())
            if code == _EE_NOT_FOUND:
                raise EngineError(f"eSpeak NG has no voice named {voice!r}")
            if code != _EE_OK:
                raise EngineError(f"eSpeak NG could not select voice {voice!r} (code {code})")
            for param, value in ((_PARAM_RATE, rate), (_PARAM_PITCH, pitch)):
                code = lib.espeak_SetParameter(param, value, 0)
                if code != _EE_OK:
                    raise EngineError(f"eSpeak NG rejected parameter {param}={value} (code {code})")
            data = text.encode("utf-8") + b"\0"
            buffer = ctypes.create_string_buffer(data, len(data))
            self._chunks = []
            code = lib.espeak_Synth(buffer, len(data), 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
            if code != _EE_OK:
                raise EngineError(f"eSpeak NG synthesis failed (code {code}) with voice {voice!r}")
            lib.espeak_Synchronize()
            return b"".join(self._chunks)
        finally:
            self._chunks = []
            self._close(lib)


_LOCK = threading.Lock()
_INSTANCE: _EspeakLibrary | None = None


def _library() -> _EspeakLibrary:
    """The process-wide synthesizer, created on first use; call with ``_LOCK`` held."""
    global _INSTANCE
    if _INSTANCE is None:
        _INSTANCE = _EspeakLibrary()
    return _INSTANCE


_VERSION: str | None = None


def _library_version() -> str:
    """The library's release (``espeak_Info``), read without initializing it; call with ``_LOCK`` held.

    The audio cache key needs only this: a rerun whose every clip is cached never has eSpeak NG
    load its voice data (``espeak_Initialize``), and never synthesizes.
    """
    global _VERSION
    if _INSTANCE is not None:
        return _INSTANCE.info.version
    if _VERSION is None:
        path, _ = _locate_library()
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise EngineUnavailable(f"cannot load eSpeak NG from {path}: {exc}") from exc
        try:
            lib.espeak_Info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
            lib.espeak_Info.restype = ctypes.c_char_p
            _VERSION = (lib.espeak_Info(None) or b"unknown").decode()
        finally:
            if _UNLOAD is not None:
                _UNLOAD(lib._handle)
    return _VERSION


def _bounded_int(profile: EngineProfile, key: str, default: int, bounds: tuple[int, int]) -> int:
    return int(profile.number(key, default, NumberRange(bounds[0], bounds[1], integer=True)))


class EspeakEngine:
    """eSpeak NG with a profile's voices; options ``rate`` (words per minute) and ``pitch`` (0-100)."""

    #: the same text, voice and options give the same audio from one release (in the cache key), so
    #: a cached clip is the one it would make now (clip_reuse.py)
    reproducible = True

    def __init__(self, profile: EngineProfile) -> None:
        self.profile = profile
        self.name = profile.name
        self.rate = _bounded_int(profile, "rate", DEFAULT_RATE_WPM, RATE_RANGE)
        self.pitch = _bounded_int(profile, "pitch", DEFAULT_PITCH, PITCH_RANGE)

    def voice_for(self, request: SynthesisRequest) -> str:
        """The request's voice, else the profile's for the language, else eSpeak's usual one."""
        return request.voice or self.profile.voice_for(request.language) or default_voice(request.language)

    def cache_identity(self) -> dict[str, str]:
        """The library release: another eSpeak NG may say the same text differently (audio cache key)."""
        with _LOCK:
            return {"library_version": _library_version()}

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.voice_for(request)
        started = time.perf_counter()
        with _LOCK:
            lib = _library()
            pcm = lib.synthesize(request.text, voice, self.rate, self.pitch)
        elapsed = time.perf_counter() - started
        if not pcm:
            raise EngineError(f"eSpeak NG produced no audio for item {request.item_id!r} with voice {voice!r}")
        if sys.byteorder != "little":  # the callback hands out native-endian samples; WAV is little-endian
            samples = array.array("h", pcm)
            samples.byteswap()
            pcm = samples.tobytes()
        info = lib.info
        return Synthesis(
            audio=pcm16_wav(pcm, info.sample_rate),
            media_type="audio/wav",
            metadata={
                "engine": "espeak-ng",
                "voice": voice,
                "sample_rate": info.sample_rate,
                "rate_wpm": self.rate,
                "pitch": self.pitch,
                "library": info.path,
                "library_version": info.version,
                "data_path": info.data_path,
                "synthesis_seconds": round(elapsed, 4),
            },
        )

    def close(self) -> None:
        """Nothing to release: the synthesizer is shared by the whole process and lives as long as it."""

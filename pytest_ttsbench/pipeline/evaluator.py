"""One item through the chain: engine → audio checks → ASR routes → scorer → vote → :class:`ItemResult`.

This module knows nothing of pytest. A clip is synthesized and transcribed once per
(engine, item, contract, repeat) and shared by the item's targets, so a ``readings`` item with
three targets costs one synthesis and one transcription per route.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_ttsbench.asr.base import AsrError, AsrRoute, Transcription
from pytest_ttsbench.asr.batching import ReadyClip, TranscriptionStage
from pytest_ttsbench.audio.decoding import (
    AudioCheck,
    AudioDecodeError,
    AudioPolicy,
    DecodedAudio,
    check_audio,
    check_identity,
    decode_audio,
    encode_wav,
    wav_shortfall,
)
from pytest_ttsbench.cases.model import CaseItem, Target
from pytest_ttsbench.config import ConfigError, EngineProfile
from pytest_ttsbench.engines.base import (
    Engine,
    EngineError,
    EngineUnavailable,
    MissingCredentials,
    Synthesis,
    SynthesisRequest,
    synthesis_problem,
)
from pytest_ttsbench.engines.registry import create_engine
from pytest_ttsbench.figures.voting import vote
from pytest_ttsbench.pipeline.generation import generation_record, generation_seed
from pytest_ttsbench.pipeline.prefetch import SynthesisPool
from pytest_ttsbench.pipeline.protocol_scoring import route_rules, scorers_by_protocol
from pytest_ttsbench.protocols import DEFAULT_PROTOCOL, PROTOCOLS, Protocol
from pytest_ttsbench.quality.meter import ClipToMeasure, QualityMeter
from pytest_ttsbench.quality.worker import join as join_figures
from pytest_ttsbench.run_model.clip_reuse import ClipReuse, reads_clips
from pytest_ttsbench.run_model.item_content import content_sha256
from pytest_ttsbench.run_model.results import SYNTH_ONLY, ErrorStage, ItemResult
from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.registry import get_scorer
from pytest_ttsbench.support.atomic_files import refused_write, write_atomically
from pytest_ttsbench.support.cache import (
    CachedAudio,
    CachedTranscript,
    ClipCache,
    audio_key_material,
    cache_key,
    quality_key_material,
    transcript_key_material,
)
from pytest_ttsbench.support.limits import DEFAULT_MAX_AUDIO_BYTES, DEFAULT_MAX_CLIP_SECONDS
from pytest_ttsbench.support.redaction import scrubbed_fields
from pytest_ttsbench.support.text import safe_name
from pytest_ttsbench.verdict import Verdict

_MEDIA_SUFFIX = {
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/wave": ".wav",
    "audio/mpeg": ".mp3",
    "audio/mp3": ".mp3",
    "audio/ogg": ".ogg",
    "audio/opus": ".opus",
    "audio/flac": ".flac",
    "audio/aac": ".aac",
    "audio/webm": ".webm",
}


@dataclass
class Clip:
    """One synthesis of one item and what each ASR route heard in it."""

    started_at: str
    audio_path: str | None = None
    audio_sha256: str | None = None
    audio_seconds: float | None = None
    synth_seconds: float | None = None
    first_byte_seconds: float | None = None
    first_audio_seconds: float | None = None
    first_audio_measure: str | None = None
    asr_seconds: float | None = None
    transcripts: dict[str, str] = field(default_factory=dict)
    route_errors: dict[str, str] = field(default_factory=dict)
    routes: list[str] = field(default_factory=list)  # every route expected to speak, in order
    asr_flags: list[str] = field(default_factory=list)
    audio_checks: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_stage: ErrorStage | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    audio_varies: bool | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    quality: dict[str, float | None] = field(default_factory=dict)
    #: where the audio and each route's transcript came from: "hit" (the cache), "miss" (made now),
    #: "fresh" (not read by the reuse policy, made now), "damaged" (a bad entry ignored, made now), "off"
    cache: dict[str, str] = field(default_factory=dict)
    #: each route's decoding mode, where the route reports one (Whisper: "sequential", "batched:N")
    asr_decoding: dict[str, str] = field(default_factory=dict)


def reference_audio(profile: EngineProfile) -> Path | None:
    """The profile's ``reference_audio`` (the voice it should sound like), relative to the configuration."""
    value = profile.option("reference_audio")
    if not isinstance(value, str) or not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else Path(profile.base_dir) / path


@dataclass
class Synthesized:
    """One request's outcome, made in the test or ahead of it by the prefetch pool."""

    request: SynthesisRequest
    started_at: str
    seconds: float = 0.0
    synthesis: Synthesis | None = None
    error: str | None = None
    audio_key: str | None = None  # None when the cache is off
    from_cache: bool = False
    #: what the cache said of this clip (a row's ``cache["audio"]``): hit, miss, fresh, damaged or off
    cache_source: str = "off"
    #: the clip decoded, and its quality measures under way, when they could start with the synthesis
    decoded: DecodedAudio | None = None
    quality: Future[dict[str, float | None]] | None = None
    #: the clip's quality cache entry (None when the cache is off) and what reading it found
    quality_key: str | None = None
    quality_source: str = "off"
    #: the audio check the clip was cached with (a cache hit only; see audio.check_identity)
    cached_check: dict[str, Any] | None = None


@dataclass(frozen=True)
class _Judgement:
    """One target's verdicts on one clip: the run protocol's, and every protocol's beside it."""

    verdict: str
    evidence: dict[str, Any]
    #: the run protocol's outcome per route that spoke, and "error" per route that failed
    route_outcomes: dict[str, str]
    #: every protocol's {"verdict", "route_verdicts"}
    protocols: dict[str, dict[str, Any]]
    #: the strict rules that make the protocols' verdicts differ (protocol_scoring.route_rules)
    rules: list[str]


@dataclass(frozen=True)
class RunOptions:
    """Choices that hold for a whole run."""

    audio_dir: Path | None = None
    contract: str = "raw"
    quorum: int | None = None
    audio_policy: AudioPolicy = field(default_factory=AudioPolicy)
    run_id: str | None = None
    #: Synthesize and check clips only; no ASR, no verdict. The clips are scored later by an
    #: ``audio-dir`` profile pointed at the run (see engines/replay.py).
    synth_only: bool = False
    #: engines whose first clip is requested twice, to see whether identical requests give identical audio
    probe_engines: frozenset[str] = frozenset()
    #: quality measures taken of every decoded clip (None: none at all)
    quality: QualityMeter | None = None
    cache: ClipCache | None = None
    #: engines whose synthesis latency is gated: their clips are always requested for real (a clip
    #: read from the cache has no latency to measure), though still written to the cache
    fresh_audio_engines: frozenset[str] = frozenset()
    #: whose clips may be read from the cache at all (clip_reuse.py): by default reproducible engines' only
    clip_reuse: ClipReuse = field(default_factory=ClipReuse)
    max_audio_bytes: int = DEFAULT_MAX_AUDIO_BYTES
    #: the scoring protocol that gives each row its verdict (protocols.py); the other is recorded beside it
    protocol: Protocol = DEFAULT_PROTOCOL
    #: seconds a clip may decode to (limits.max_clip_seconds); a profile's max_clip_seconds wins
    max_clip_seconds: float = DEFAULT_MAX_CLIP_SECONDS


class Evaluator:
    """Runs items against named engine profiles; engines and ASR routes are created on first use."""

    def __init__(
        self,
        profiles: Mapping[str, EngineProfile],
        route_factory: Callable[[EngineProfile], list[AsrRoute]],
        options: RunOptions,
        engines: Mapping[str, Engine] | None = None,
    ) -> None:
        self.profiles = profiles
        self.route_factory = route_factory
        self.options = options
        # Engines already built by the caller are used as they are; the rest are built on first use.
        self._engines: dict[str, Engine] = dict(engines or {})
        self._unavailable: dict[str, str] = {}
        self._missing_credentials: dict[str, str] = {}  # engine → which credential is not set (never its value)
        self._broken: dict[str, str] = {}
        self._routes: dict[str, list[AsrRoute]] = {}
        self._clips: dict[tuple[str, str, str, int], Clip] = {}
        self._probed: set[str] = set()
        self._reference_sha256: dict[Path, str] = {}
        self._clip_folders: dict[tuple[Path, str, str], Path] = {}  # (audio folder, engine, suite) → where clips go
        self._ahead: SynthesisPool[Synthesized] = SynthesisPool(self._concurrency, min_window=self._batch_window)
        self._asr_stage = TranscriptionStage(self._clips_ready_for)  # clips of several items decoded together

    # --- engines ---------------------------------------------------------------------------

    def unavailable_reason(self, engine_name: str) -> str | None:
        """Why an engine cannot run here (missing key, missing package), or None when it can."""
        self._engine(engine_name)
        return self._unavailable.get(engine_name)

    def missing_credentials(self, engine_name: str) -> str | None:
        """What credential an engine lacks here (its adapter says, naming the variable), or None."""
        self._engine(engine_name)
        return self._missing_credentials.get(engine_name)

    def _engine(self, engine_name: str) -> Engine | None:
        if engine_name in self._engines:
            return self._engines[engine_name]
        if engine_name in self._unavailable:
            return None
        try:
            engine = create_engine(self.profiles[engine_name])
        except EngineUnavailable as exc:
            self._unavailable[engine_name] = f"engine {engine_name!r} unavailable: {exc}"
            if isinstance(exc, MissingCredentials):
                self._missing_credentials[engine_name] = str(exc)
            return None
        except (ConfigError, LookupError) as exc:
            # A misconfigured profile must fail its items, not skip them: a gate must not pass green.
            self._broken[engine_name] = f"engine {engine_name!r} misconfigured: {exc}"
            return None
        self._engines[engine_name] = engine
        return engine

    def _routes_for(self, engine_name: str) -> list[AsrRoute]:
        if engine_name not in self._routes:
            self._routes[engine_name] = self.route_factory(self.profiles[engine_name])
        return self._routes[engine_name]

    def _concurrency(self, engine_name: str) -> int:
        """Requests an engine may have in flight: its adapter's ``concurrency``, else one at a time."""
        return int(getattr(self._engines.get(engine_name), "concurrency", 1) or 1)

    def close(self) -> None:
        self._ahead.close()
        self._asr_stage.clear()
        for engine in self._engines.values():
            engine.close()
        for routes in self._routes.values():
            for route in routes:
                closer = getattr(route, "close", None)  # routes holding an HTTP client close it
                if closer is not None:
                    closer()

    # --- one clip --------------------------------------------------------------------------

    def clip(self, item: CaseItem, engine_name: str, repeat: int = 0) -> Clip:
        """Synthesize and transcribe an item once; later calls for its other targets reuse it."""
        key = (engine_name, item.full_id, self.options.contract, repeat)
        if key not in self._clips:
            self._clips[key] = self._make_clip(item, engine_name, repeat)
        return self._clips[key]

    def prefetch(self, item: CaseItem, engine_name: str, repeat: int = 0) -> bool:
        """Start synthesizing a clip ahead of its test; False when it is done, started, or the pool is full."""
        key = (engine_name, item.full_id, self.options.contract, repeat)
        if key in self._clips or self._engine(engine_name) is None:
            return False
        return self._ahead.submit(key, engine_name, lambda: self.synthesize(item, engine_name, repeat))

    def synthesize(self, item: CaseItem, engine_name: str, repeat: int = 0) -> Synthesized:
        """Ask the engine for one clip, or take it from the cache; never raises (the error is kept).

        With quality measures chosen, the clip is decoded and its measures started here too: in
        the prefetch pool that is while earlier tests transcribe, so DNSMOS takes the CPU time
        Whisper leaves idle instead of lengthening the clip's own test.
        """
        outcome = self._request(item, engine_name, repeat)
        if self.options.quality is not None:
            self._measure_ahead(outcome, engine_name)
        return outcome

    def _measure_ahead(self, outcome: Synthesized, engine_name: str) -> None:
        # The same early exits as _make_clip's, so every clip that reaches its checks is measured.
        synthesis, quality = outcome.synthesis, self.options.quality
        if synthesis is None or quality is None or synthesis.transcripts is not None:
            return
        if _size_problem(synthesis.audio, synthesis.pcm_sample_rate, self.options.max_audio_bytes) is not None:
            return  # refused in the test, with its reason
        profile = self.profiles[engine_name]
        reference = reference_audio(profile)
        figures = self._cached_quality(outcome, synthesis, reference)
        if figures is not None:  # measured before, on these very bytes with these very measures: not decoded
            outcome.quality = Future()
            outcome.quality.set_result(figures)
            return
        try:
            outcome.decoded = self._decode(synthesis, engine_name)
        except AudioDecodeError:
            return  # the test decodes it again and records why it failed
        measured = ClipToMeasure(outcome.decoded.samples, outcome.request.text, reference)
        outcome.quality = quality.measure_later(measured)

    def _cached_quality(
        self, outcome: Synthesized, synthesis: Synthesis, reference: Path | None
    ) -> dict[str, float | None] | None:
        """The clip's figures from the cache, keyed by its bytes, the text, the reference voice and the measures."""
        cache, quality = self.options.cache, self.options.quality
        if cache is None or cache.mode == "off" or quality is None:
            return None
        if reference is not None and reference not in self._reference_sha256:
            self._reference_sha256[reference] = hashlib.sha256(reference.read_bytes()).hexdigest()
        material = quality_key_material(
            hashlib.sha256(synthesis.audio).hexdigest(),
            synthesis.pcm_sample_rate,
            outcome.request.text,
            self._reference_sha256.get(reference) if reference is not None else None,
            quality.cache_identity(),
        )
        outcome.quality_key = cache_key(material)
        figures, outcome.quality_source = cache.read_quality(outcome.quality_key)
        if figures is not None and list(figures) != quality.measure_names:
            figures, outcome.quality_source = None, "damaged"  # not what these measures write
            cache.count_damaged("quality")
        return figures

    def _decode(self, synthesis: Synthesis, engine_name: str) -> DecodedAudio:
        """The clip's samples, decoding stopped at the engine's max_clip_seconds (AudioDecodeError)."""
        limit = self.profiles[engine_name].option("max_clip_seconds", self.options.max_clip_seconds)
        return decode_audio(synthesis.audio, synthesis.pcm_sample_rate, max_seconds=limit)

    def _request(self, item: CaseItem, engine_name: str, repeat: int) -> Synthesized:
        profile = self.profiles[engine_name]
        text = item.text_for(self.options.contract)
        voice = profile.voice_for(item.language)
        request = SynthesisRequest(text, item.language, voice, item.full_id, generation_seed(profile, repeat))
        outcome = Synthesized(request, datetime.now(timezone.utc).isoformat(timespec="milliseconds"))
        engine = self._engine(engine_name)
        if engine is None:
            outcome.error = self._broken.get(engine_name) or self._unavailable[engine_name]
            return outcome
        cache = self.options.cache
        if cache is not None and cache.mode != "off" and getattr(engine, "cacheable", True):
            identity = getattr(engine, "cache_identity", None)
            material = audio_key_material(
                profile.type, profile.options, voice, item.language, text, repeat, identity() if identity else None
            )
            outcome.audio_key = cache_key(material)
            fresh = engine_name in self.options.fresh_audio_engines or not reads_clips(self.options.clip_reuse, engine)
            cached, outcome.cache_source = (None, "fresh") if fresh else cache.read_audio(outcome.audio_key)
            if cached is not None:
                outcome.synthesis = Synthesis(
                    cached.audio, cached.media_type, cached.pcm_sample_rate, metadata=cached.metadata
                )
                outcome.from_cache = True
                outcome.cached_check = cached.checks
                return outcome
        started = time.perf_counter()
        try:
            synthesis = engine.synthesize(request)
        except EngineError as exc:
            outcome.error = f"synthesis failed: {exc}"
        else:
            problem = synthesis_problem(synthesis)
            if problem is None:
                outcome.synthesis = synthesis
            else:  # a third-party engine breaking its contract fails its item, never the run
                outcome.error = f"synthesis failed: engine {engine_name!r}, item {request.item_id!r}: {problem}"
        # Anything else is a bug: it propagates (from the pool, when the test takes the clip), as before.
        outcome.seconds = time.perf_counter() - started
        return outcome

    def _make_clip(self, item: CaseItem, engine_name: str, repeat: int) -> Clip:
        """The clip's steps in order; each may end it early with the clip's error recorded."""
        key = (engine_name, item.full_id, self.options.contract, repeat)
        made = self._ahead.run(key, engine_name, lambda: self.synthesize(item, engine_name, repeat))
        clip = Clip(started_at=made.started_at)
        if engine_name not in self._engines:  # unavailable or misconfigured: nothing was asked
            clip.error, clip.error_stage = made.error, "engine"
            return clip
        synthesis = _record_synthesis(clip, made, self.profiles[engine_name])
        if synthesis is None:
            return clip
        if synthesis.transcripts is not None:  # a replay engine: fixed transcripts, no audio
            _take_replayed_transcripts(clip, synthesis)
            return clip
        if self._refused_for_size(clip, item, engine_name, repeat, synthesis):
            return clip
        self._probe_repeatability(clip, made, engine_name)
        limit = self.profiles[engine_name].option("max_clip_seconds", self.options.max_clip_seconds)
        identity = check_identity(self.options.audio_policy, limit)
        checked = self._checked_and_kept(clip, made, item, engine_name, repeat, identity)
        if checked is None:
            return clip
        check, decoded = checked
        clip.audio_seconds = round(check.seconds, 4)
        clip.audio_checks = {"problems": list(check.problems), **check.figures}
        # The measures started with the synthesis (see _measure_ahead), for every clip that gets this
        # far: before the verdict on purpose, so a clip that fails its checks keeps its figures too.
        # They are joined before the clip is returned, so its row never goes out without them.
        try:
            if not check.ok:
                clip.error, clip.error_stage = "audio check failed: " + "; ".join(check.problems), "audio"
                return clip
            self._cache_checked_audio(made, synthesis, check.to_record(identity))
            # A listener-judged item is kept and checked, never transcribed; so is every synthesize-only clip.
            if get_scorer(item.scorer).needs_transcript and not self.options.synth_only:
                self._transcribe_routes(clip, synthesis, decoded, item, engine_name)
            return clip
        finally:
            self._join_quality(clip, made)

    def _refused_for_size(
        self, clip: Clip, item: CaseItem, engine_name: str, repeat: int, synthesis: Synthesis
    ) -> bool:
        """Refuse a clip over the byte limit or shorter than its WAV header, for every engine alike."""
        problem = _size_problem(synthesis.audio, synthesis.pcm_sample_rate, self.options.max_audio_bytes)
        if problem is None:
            return False
        if len(synthesis.audio) <= self.options.max_audio_bytes:  # a truncated WAV is kept; an over-size clip is not
            self._keep_audio(clip, item, engine_name, repeat, synthesis.audio, synthesis.media_type)
        clip.error = f"audio check failed: {problem}"
        return True

    def _probe_repeatability(self, clip: Clip, made: Synthesized, engine_name: str) -> None:
        """For a probed engine's first clip, whether the same request gives the same audio again."""
        # Only a clip synthesized now: one from the cache says nothing about what the engine does.
        probing = engine_name in self.options.probe_engines and not made.from_cache
        if probing and engine_name not in self._probed:
            assert made.synthesis is not None
            self._probed.add(engine_name)
            clip.audio_varies = _differs_on_repeat(self._engines[engine_name], made.request, made.synthesis.audio)

    def _checked_and_kept(
        self, clip: Clip, made: Synthesized, item: CaseItem, engine_name: str, repeat: int, identity: str
    ) -> tuple[AudioCheck, DecodedAudio | None] | None:
        """The clip's audio check and its audio kept in the audio directory (None on a decode error, recorded).

        A cached container clip keeps the check it passed when stored: it is decoded only if a route
        has to hear it (``decoded`` None then); headerless PCM is decoded anyway, to keep it as a WAV.
        """
        synthesis = made.synthesis
        assert synthesis is not None
        check = None if synthesis.pcm_sample_rate else AudioCheck.from_record(made.cached_check, identity)
        decoded = made.decoded
        if check is None or synthesis.pcm_sample_rate:
            try:
                decoded = decoded if decoded is not None else self._decode(synthesis, engine_name)
            except AudioDecodeError as exc:
                self._keep_audio(clip, item, engine_name, repeat, synthesis.audio, synthesis.media_type)
                clip.error, clip.error_stage = f"audio check failed: {exc}", "audio"
                return None
        stored = encode_wav(decoded) if synthesis.pcm_sample_rate and decoded is not None else synthesis.audio
        media = "audio/wav" if synthesis.pcm_sample_rate else synthesis.media_type
        if not self._keep_audio(clip, item, engine_name, repeat, stored, media):
            return None
        if check is None:
            assert decoded is not None  # decoded just above whenever no cached check applies
            check = check_audio(decoded, made.request.text, self.options.audio_policy)
        return check, decoded

    def _cache_checked_audio(self, made: Synthesized, synthesis: Synthesis, check: dict[str, Any]) -> None:
        """Write a clip made now to the cache with the check it passed; only audio that passed is kept.

        A cached clip checked afresh (an older entry, another policy) is written again with its new check.
        """
        cache = self.options.cache
        if cache is None or made.audio_key is None:
            return
        if made.from_cache and made.cached_check == check:
            return
        # A glitch must not be replayed forever, so this runs only after the checks pass.
        cached = CachedAudio(
            synthesis.audio, synthesis.media_type, synthesis.pcm_sample_rate, dict(synthesis.metadata), check
        )
        cache.put_audio(made.audio_key, cached)

    def _transcribe_routes(
        self, clip: Clip, synthesis: Synthesis, decoded: DecodedAudio | None, item: CaseItem, engine_name: str
    ) -> None:
        """What each of the engine's ASR routes heard; a route's failure is kept and the others go on.

        The clip is decoded once, for the first route whose transcript is not cached (``decoded`` None:
        a cached clip whose stored check stood in for decoding it)."""
        asr_started = time.perf_counter()
        routes = self._routes_for(engine_name)
        clip.routes = [route.name for route in routes]

        def samples() -> DecodedAudio:
            nonlocal decoded
            if decoded is None:
                decoded = self._decode(synthesis, engine_name)
            return decoded

        for route in routes:
            try:
                heard, clip.cache[f"asr:{route.name}"] = self._transcribe(route, samples, item.language, clip)
            except AsrError as exc:
                clip.route_errors[route.name] = str(exc)
                continue
            except AudioDecodeError as exc:  # a cached clip that no longer decodes as when it was checked
                clip.error, clip.error_stage = f"audio check failed: {exc}", "audio"
                return
            clip.transcripts[route.name] = heard.text
            if isinstance(heard.details.get("batching"), str):
                clip.asr_decoding[route.name] = str(heard.details["batching"])
            clip.asr_flags.extend(f"{route.name}:{flag}" for flag in heard.flags)
        clip.asr_seconds = time.perf_counter() - asr_started
        if not clip.transcripts:
            clip.error = "ASR failed: " + "; ".join(f"{k}: {v}" for k, v in clip.route_errors.items())
            clip.error_stage = "asr"

    def _join_quality(self, clip: Clip, made: Synthesized) -> None:
        """Wait for the clip's quality measures (started with its synthesis) and cache figures measured now."""
        if made.quality is None:
            return
        clip.quality = join_figures(made.quality)
        clip.cache["quality"] = made.quality_source
        cache = self.options.cache
        if cache is not None and made.quality_key is not None and made.quality_source != "hit":
            cache.put_quality(made.quality_key, clip.quality)

    def _transcribe(
        self, route: AsrRoute, samples: Callable[[], DecodedAudio], language: str, clip: Clip
    ) -> tuple[Transcription, str]:
        """A route's transcript of the clip, from the cache when the same route heard the same audio before
        (then the clip is not decoded for it: ``samples`` decodes it on first call)."""
        cache = self.options.cache
        identity = getattr(route, "cache_identity", None)
        if cache is None or cache.mode == "off" or identity is None or clip.audio_sha256 is None:
            return self._asr_stage.transcribe(route, samples(), language), "off"
        key = cache_key(transcript_key_material(clip.audio_sha256, identity(language), language))
        cached, source = cache.read_transcript(key)
        if cached is not None:
            return Transcription(cached.text, 0.0, cached.flags, cached.language, dict(cached.details)), "hit"
        heard = self._asr_stage.transcribe(route, samples(), language)
        cache.put_transcript(key, CachedTranscript(heard.text, heard.flags, heard.language, dict(heard.details)))
        return heard, source

    # --- later tests' clips, for a route that decodes several items' clips together (asr/batching.py)

    def _batch_window(self, engine_name: str) -> int:
        """Clips to synthesize ahead for an engine whose routes decode N items' clips together: two batches."""
        if self.options.synth_only:
            return 0
        try:
            routes = self._routes_for(engine_name)
        except Exception:  # a bad route spec fails the items, where their routes are built, not this hook
            return 0
        return 2 * max((int(getattr(route, "items_batch", 1)) for route in routes), default=1)

    def _clips_ready_for(self, route: AsrRoute) -> list[ReadyClip]:
        """Later tests' clips that ``route`` will be asked for: synthesized ahead, decoded, checked, not
        cached. Each decoding is kept on its outcome, so its test transcribes that very clip."""
        engines = [name for name, routes in self._routes.items() if any(r is route for r in routes)]
        ready = []
        for engine_name in engines:
            for _, made in self._ahead.claim_ready(engine_name):
                synthesis = made.synthesis
                if synthesis is None or synthesis.transcripts is not None or self.options.synth_only:
                    continue
                if _size_problem(synthesis.audio, synthesis.pcm_sample_rate, self.options.max_audio_bytes):
                    continue
                try:
                    made.decoded = made.decoded or self._decode(synthesis, engine_name)
                except AudioDecodeError:
                    continue
                if not check_audio(made.decoded, made.request.text, self.options.audio_policy).ok:
                    continue
                if not self._transcript_cached(route, synthesis, made.decoded, made.request.language):
                    ready.append(ReadyClip(made.decoded, made.request.language))
        return ready

    def _transcript_cached(self, route: AsrRoute, synthesis: Synthesis, decoded: DecodedAudio, language: str) -> bool:
        cache, identity = self.options.cache, getattr(route, "cache_identity", None)
        if cache is None or cache.mode == "off" or identity is None:
            return False
        stored = encode_wav(decoded) if synthesis.pcm_sample_rate else synthesis.audio  # as _keep_audio hashes it
        material = transcript_key_material(hashlib.sha256(stored).hexdigest(), identity(language), language)
        return cache.holds("transcripts", cache_key(material))

    def _keep_audio(
        self, clip: Clip, item: CaseItem, engine_name: str, repeat: int, data: bytes, media_type: str
    ) -> bool:
        """Keep the clip in the audio directory; False (the clip's error recorded) when the file system refuses it."""
        clip.audio_sha256 = hashlib.sha256(data).hexdigest()
        if self.options.audio_dir is None or not data:
            return True
        folder = self._clip_folder(self.options.audio_dir, engine_name, item.suite)
        suffix = _MEDIA_SUFFIX.get(media_type.split(";")[0].strip().lower(), ".bin")
        stem = safe_name(item.id) + (f"-r{repeat}" if repeat else "")
        # The content hash in the name means a clip is never overwritten by a different one.
        path = folder / f"{stem}-{clip.audio_sha256[:12]}{suffix}"
        if path.is_symlink():  # a name safe_name made cannot leave the folder; a link put there could
            raise ValueError(f"audio path escapes the audio directory: {path} is a link")
        try:
            if not path.exists():
                write_atomically(path, data)
        except OSError as exc:  # a full or read-only audio dir fails this item, with the reason; the run goes on
            clip.error = f"the clip could not be kept in the audio directory: {refused_write(path, exc)}"
            clip.error_stage = "audio"
            return False
        clip.audio_path = str(path)
        return True

    def _clip_folder(self, audio_dir: Path, engine_name: str, suite: str) -> Path:
        """The folder an engine's clips of a suite are kept in, resolved and checked once per run
        (resolving each clip's path walked every folder above it again, item after item)."""
        key = (audio_dir, engine_name, suite)
        if key not in self._clip_folders:
            root = audio_dir.resolve()
            folder = root / safe_name(engine_name) / safe_name(suite)
            if folder.exists() and not folder.resolve().is_relative_to(root):  # defence in depth
                raise ValueError(f"audio path escapes the audio directory: {folder}")
            self._clip_folders[key] = folder
        return self._clip_folders[key]

    # --- one target ------------------------------------------------------------------------

    def evaluate(self, item: CaseItem, target: Target, engine_name: str, repeat: int = 0) -> ItemResult:
        """The verdict for one target of one item on one engine, with all its evidence."""
        clip = self.clip(item, engine_name, repeat)
        judged = self._judge(clip, item, target)
        result = self._result_row(item, target, engine_name, repeat, clip, judged)
        # Redacted here, once, so the failure message, the report and the results file agree; the
        # content hash is of the row as written, so no secret is hashed into the file.
        row = ItemResult.from_dict(scrubbed_fields(result))
        row.content_sha256 = content_sha256(row)
        return row

    def _judge(self, clip: Clip, item: CaseItem, target: Target) -> _Judgement:
        """Every protocol judges every transcript; the run's protocol gives the row its verdict."""
        by_protocol_scorer = scorers_by_protocol(item.scorer)
        scorer = by_protocol_scorer[self.options.protocol]
        context = ScoreContext(language=item.language, text=item.text, span=target.span)
        by_protocol = _score_every_protocol(clip, target, by_protocol_scorer, context)
        all_outcomes: dict[str, dict[str, str]] = {
            protocol: {route: str(v.outcome) for route, v in verdicts.items()}
            | dict.fromkeys(clip.route_errors, "error")
            for protocol, verdicts in by_protocol.items()
        }
        outcomes: dict[str, str] = all_outcomes[self.options.protocol]
        final, evidence = self._verdict_and_evidence(clip, scorer, target, context, by_protocol, outcomes)
        voted = (
            bool(clip.transcripts) and clip.error is None and scorer.needs_transcript and not self.options.synth_only
        )
        protocols = {
            protocol: {
                "verdict": vote(o, self.options.quorum, routes=clip.routes) if voted else final,
                "route_verdicts": {**{route: "unknown" for route in clip.routes}, **o},
            }
            for protocol, o in all_outcomes.items()
        }
        rules = route_rules(item.scorer, target.expect, by_protocol)
        return _Judgement(final, evidence, outcomes, protocols, rules)

    def _verdict_and_evidence(
        self,
        clip: Clip,
        scorer: Scorer,
        target: Target,
        context: ScoreContext,
        by_protocol: Mapping[str, Mapping[str, Verdict]],
        outcomes: Mapping[str, str],
    ) -> tuple[str, dict[str, Any]]:
        """The row's verdict under the run's protocol, and the evidence that explains it."""
        if clip.error is not None:
            return "error", {"reason": clip.error}
        if not scorer.needs_transcript:
            return "unknown", scorer.score("", target.expect, context).evidence()
        if self.options.synth_only:
            return "unknown", {SYNTH_ONLY: True, "note": "synthesize-only run: clip kept, not transcribed"}
        if not clip.transcripts:
            return "unknown", {"note": "no transcript for this item"}
        route_verdicts = by_protocol[self.options.protocol]
        final = vote(outcomes, self.options.quorum, routes=clip.routes)
        primary = _primary_verdict(route_verdicts, final)
        evidence = primary.evidence() if primary else {}
        if len(route_verdicts) > 1:
            evidence["routes"] = {r: v.evidence() | {"verdict": v.outcome} for r, v in route_verdicts.items()}
        return final, evidence

    def _result_row(
        self, item: CaseItem, target: Target, engine_name: str, repeat: int, clip: Clip, judged: _Judgement
    ) -> ItemResult:
        """The results row of one target: the item, the clip's evidence and the judgement, not yet redacted."""
        transcript = next(iter(clip.transcripts.values()), None)
        cer, wer = _error_rates(item.text_for(self.options.contract), transcript)
        return ItemResult(
            engine=engine_name,
            suite=item.suite,
            id=item.full_id,
            target=target.span,
            category=target.category,
            language=item.language,
            facets=dict(item.facets),
            verdict=judged.verdict,  # type: ignore[arg-type]
            transcript=transcript,
            expected=dict(target.expect),
            evidence=judged.evidence,
            audio_path=clip.audio_path,
            audio_sha256=clip.audio_sha256,
            audio_seconds=clip.audio_seconds,
            synth_seconds=_round(clip.synth_seconds),
            asr_seconds=_round(clip.asr_seconds),
            started_at=clip.started_at,
            text=item.text_for(self.options.contract),
            scorer=item.scorer,
            group=target.group,
            domain=item.domain,
            metadata=dict(item.metadata),
            pinned_recognizer=list(item.recognizer),
            auto_evaluable=target.auto_evaluable,
            transcripts=dict(clip.transcripts),
            route_verdicts={**{route: "unknown" for route in clip.routes}, **judged.route_outcomes},
            asr_flags=list(clip.asr_flags),
            cer=cer,
            wer=wer,
            error=clip.error,
            error_stage=clip.error_stage,
            audio_checks=dict(clip.audio_checks),
            first_byte_seconds=_round(clip.first_byte_seconds),
            contract=self.options.contract,
            repeat=repeat,
            audio_varies=clip.audio_varies,
            run_id=self.options.run_id,
            cache=dict(clip.cache),
            asr_decoding=dict(clip.asr_decoding),
            generation=dict(clip.generation),
            first_audio_seconds=_round(clip.first_audio_seconds),
            first_audio_measure=clip.first_audio_measure,
            review=item.review,
            reviewed=item.reviewed,
            quality=dict(clip.quality),
            quality_models=self.options.quality.provenance() if clip.quality and self.options.quality else {},
            protocol=self.options.protocol,
            protocols=judged.protocols,
            protocol_rules=judged.rules,
        )


def _score_every_protocol(
    clip: Clip, target: Target, by_protocol_scorer: Mapping[Protocol, Scorer], context: ScoreContext
) -> dict[str, dict[str, Verdict]]:
    """Each protocol's verdict on each route's transcript (none when the clip failed)."""
    by_protocol: dict[str, dict[str, Verdict]] = {protocol: {} for protocol in PROTOCOLS}
    if clip.error is None:
        for protocol, protocol_scorer in by_protocol_scorer.items():
            for route, text in clip.transcripts.items():
                by_protocol[protocol][route] = protocol_scorer.score(text, target.expect, context)
    return by_protocol


def _record_synthesis(clip: Clip, made: Synthesized, profile: EngineProfile) -> Synthesis | None:
    """Record what the request gave (timings, metadata, generation); None when it failed, recorded."""
    synthesis = made.synthesis
    metadata = synthesis.metadata if synthesis is not None else {}
    clip.generation = generation_record(profile, made.request.voice, metadata, clip.started_at)
    clip.cache["audio"] = made.cache_source
    if synthesis is None:
        clip.synth_seconds = made.seconds
        clip.error, clip.error_stage = made.error, "synthesis"
        return None
    # A clip from the cache cost no request: no latency figure, so workflow statistics stay true.
    clip.synth_seconds = None if made.from_cache else made.seconds
    clip.first_byte_seconds = synthesis.first_byte_seconds
    clip.metadata = dict(synthesis.metadata)
    if made.from_cache:
        clip.first_audio_seconds, clip.first_audio_measure = None, None
    elif synthesis.streamed and synthesis.first_audio_seconds is not None:
        clip.first_audio_seconds, clip.first_audio_measure = synthesis.first_audio_seconds, "first_chunk"
    else:  # nothing playable before the whole clip is there
        clip.first_audio_seconds, clip.first_audio_measure = clip.synth_seconds, "total"
    return synthesis


def _take_replayed_transcripts(clip: Clip, synthesis: Synthesis) -> None:
    """A replay engine's clip: its fixed transcripts stand for the routes' (no audio, no cache)."""
    assert synthesis.transcripts is not None
    clip.cache["audio"] = "off"
    clip.transcripts = dict(synthesis.transcripts)
    clip.routes = list(synthesis.metadata.get("routes") or clip.transcripts)


def _size_problem(audio: bytes, pcm_sample_rate: int | None, max_bytes: int) -> str | None:
    """What is wrong with a clip's size before decoding: over the limit, or a WAV shorter than its header."""
    if len(audio) > max_bytes:
        return f"{len(audio):,} bytes of audio, more than the limit of {max_bytes:,} (limits.max_audio_bytes)"
    short = None if pcm_sample_rate else wav_shortfall(audio)
    if short is not None:
        return f"truncated WAV: the header declares {short[0]} bytes of samples, {short[1]} arrived"
    return None


def _differs_on_repeat(engine: Engine, request: SynthesisRequest, audio: bytes) -> bool | None:
    """Send the same request again: different audio means every verdict of this engine is one draw."""
    try:
        again = engine.synthesize(request)
    except EngineError:
        return None
    return again.audio != audio


def _primary_verdict(route_verdicts: Mapping[str, Verdict], final: str) -> Verdict | None:
    """The verdict whose evidence explains the final one: the first route that agrees with it."""
    for verdict in route_verdicts.values():
        if verdict.outcome == final:
            return verdict
    return next(iter(route_verdicts.values()), None)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def _error_rates(reference: str, hypothesis: str | None) -> tuple[float | None, float | None]:
    """Sentence CER and WER after case and punctuation folding: secondary figures, never the verdict."""
    if hypothesis is None:
        return None, None
    ref = " ".join(_PUNCT.sub(" ", reference.lower()).split())
    hyp = " ".join(_PUNCT.sub(" ", hypothesis.lower()).split())
    if not ref:
        return None, None
    if not hyp:
        return 1.0, 1.0
    import jiwer

    return round(jiwer.cer(ref, hyp), 4), round(jiwer.wer(ref, hyp), 4)

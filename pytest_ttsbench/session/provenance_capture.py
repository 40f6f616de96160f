"""What a pytest run records about itself in its run header: engines, ASR routes, models, case files.

The header's shape, reading and comparing live in :mod:`pytest_ttsbench.run_model.provenance` (which
reports and engines import); building one needs the ASR registry and the Whisper model
finder, so it lives here, on the synthesis side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.run_model.provenance import RunHeader, clean_settings, clean_value, endpoint_host
from pytest_ttsbench.support.file_hashes import sha256_of

if TYPE_CHECKING:
    from pytest_ttsbench.cases.model import Suite
    from pytest_ttsbench.config import EngineProfile, Settings
    from pytest_ttsbench.run_model.results import ItemResult


def whisper_models(spec: Mapping[str, Any], languages: Iterable[str]) -> dict[str, dict[str, Any]]:
    """For a faster-whisper route: per item language, the model used and its weights' SHA-256."""
    from pytest_ttsbench.asr.models import AUTO, ModelNotFound, resolve_auto, resolve_model, weights_sha256

    configured = str(spec.get("model") or AUTO)
    models: dict[str, dict[str, Any]] = {}
    for language in sorted(set(languages)):
        name = resolve_auto(language) if configured == AUTO else configured
        entry: dict[str, Any] = {"model": Path(name).name if Path(name).is_dir() else name}
        try:
            entry["weights_sha256"] = weights_sha256(resolve_model(name, language))
        except (ModelNotFound, OSError) as exc:
            entry["weights_sha256"] = None
            entry["unresolved"] = str(exc).splitlines()[0][:200]
        models[language] = entry
    return models


def route_facts(spec: Mapping[str, Any], route_name: str) -> dict[str, Any]:
    """How one ASR route decodes, from its configuration (models per language are added later)."""
    kind = str(spec.get("type", "whisper"))
    facts: dict[str, Any] = {"name": route_name, "type": kind}
    if kind == "whisper":
        from pytest_ttsbench.asr.whisper import BATCH_AUTO, WINDOW_SECONDS, WhisperRoute, resolve_batching

        defaults = WhisperRoute()
        device = spec.get("device", defaults.device)
        batching = resolve_batching(
            spec.get("batch_size") or BATCH_AUTO, spec.get("batch_items") or BATCH_AUTO, str(device)
        )
        facts.update(
            model=str(spec.get("model") or defaults.model),
            beam_size=spec.get("beam_size", defaults.beam_size),
            compute_type=spec.get("compute_type", defaults.compute_type),
            device=device,
            temperatures=list(defaults.temperatures),
            language="forced to the item's language",
            # What a pinned recognizer's decoding is compared on: faster-whisper transcribes (never
            # translates) in Whisper's fixed 30 s windows.
            task="transcribe",
            window_seconds=WINDOW_SECONDS,
            batching=batching.mode,
        )
    else:
        facts.update(clean_settings({k: v for k, v in spec.items() if k not in ("type", "name")}))
        if kind in ("openai", "chat"):
            from pytest_ttsbench.asr.openai_route import DEFAULT_CONCURRENCY

            # Requests in flight from each process, recorded when left at its default too.
            facts.setdefault("concurrency", DEFAULT_CONCURRENCY)
    return facts


def engine_facts(profile: EngineProfile) -> dict[str, Any]:
    """One engine profile as recorded: type, endpoint host, voice and the adapter settings, secret-free."""
    options = {k: v for k, v in profile.options.items() if k != "asr"}
    facts: dict[str, Any] = {"type": profile.type, "voice": clean_value(profile.voice)}
    for key, value in options.items():
        if isinstance(value, str) and key.endswith("url"):
            facts["endpoint_host"] = endpoint_host(value)
    facts["settings"] = clean_settings({k: v for k, v in options.items() if not k.endswith("url")})
    return facts


def routes_facts(asr: Mapping[str, Any], rows: Sequence[ItemResult]) -> list[dict[str, Any]]:
    """Every route an ``asr`` configuration builds, with the Whisper model used for each language it heard.

    Models are looked up only for languages the route actually transcribed in ``rows`` (a replay
    engine's rows hold stored transcripts: no model of this machine heard them).
    """
    from pytest_ttsbench.asr.registry import create_route, route_specs

    facts = []
    for spec in route_specs(asr):
        try:
            name = create_route(spec).name
        except Exception:  # a route that cannot be built here (no key): name it from its spec
            name = str(spec.get("name") or spec.get("type", "whisper"))
        entry = route_facts(spec, name)
        heard = sorted({row.language for row in rows if name in row.transcripts})
        if entry["type"] == "whisper" and heard:
            entry["models"] = whisper_models(spec, heard)
        facts.append(entry)
    return facts


def build_header(
    settings: Settings,
    engine_names: Sequence[str],
    asr_for: Callable[[EngineProfile], Mapping[str, Any]],
    *,
    suite_files: Mapping[str, Path] = {},
    suite_thresholds: Mapping[str, Mapping[str, Any]] = {},
    suite_quality: Mapping[str, Mapping[str, Any]] = {},
    suite_scopes: Mapping[str, Mapping[str, Any]] = {},
    results: Sequence[ItemResult] = (),
    contract: str = "raw",
    repeats: int = 1,
    repeat_policy: str = "all",
    quorum: int | None = None,
    shard: str | None = None,
    quality_sets: Sequence[str] = (),
    protocol: str = "strict",
    selected: Mapping[str, int] | None = None,
    unavailable: Mapping[str, str] = {},
    collected_ids: Iterable[tuple[str, str]] = (),
) -> RunHeader:
    """The header of a pytest run from its settings; ``results`` (once items ran) say which models heard what."""
    header = RunHeader(
        contract=contract,
        repeats=repeats,
        repeat_policy=repeat_policy,
        quorum=quorum,
        protocol=protocol,
        shard=shard,
        quality_sets=list(quality_sets),
        selected=dict(selected) if selected is not None else None,
        unavailable=dict(unavailable),
    )
    by_engine: dict[str, set[str]] = {}
    for engine, item_id in collected_ids:
        by_engine.setdefault(engine, set()).add(item_id)
    if by_engine:  # none yet: written before collection ended (a killed run), so not known
        header.collected_ids = {engine: sorted(ids) for engine, ids in sorted(by_engine.items())}
    for name in engine_names:
        profile = settings.engines[name]
        header.engines[name] = engine_facts(profile)
        header.asr[name] = routes_facts(asr_for(profile), [r for r in results if r.engine == name])
    for suite, path in sorted(suite_files.items()):
        header.case_files[suite] = {
            "path": str(path),
            "sha256": sha256_of(Path(path)),
            "thresholds": dict(suite_thresholds.get(suite, {})),
            "quality": dict(suite_quality.get(suite, {})),
            **pack_identity(Path(path)),
            # what the case file defines, so `ttsbench gate` can tell a typo'd bound as the plugin does
            "scopes": dict(suite_scopes.get(suite, {})),
        }
    return header


def pack_identity(path: Path) -> dict[str, str | None]:
    """A case file's shipped pack and its version (both None for a project's own file): runs of two
    pack versions differ in their headers, so comparing them says so."""
    from pytest_ttsbench.cases.packs import pack_of_file

    pack = pack_of_file(path)
    return {"pack": pack.name if pack else None, "pack_version": pack.version if pack else None}


def rescore_header(
    suites: Sequence[Suite],
    transcripts: Path,
    engine_name: str,
    routes: Sequence[str],
    quorum: int | None,
    protocol: str = "strict",
) -> RunHeader:
    """The header of ``ttsbench rescore --out``: stored transcripts re-judged, no synthesis, no recognizer run."""
    header = RunHeader(quorum=quorum, protocol=protocol)
    header.engines[engine_name] = {"type": "transcripts", "settings": {"transcripts_sha256": sha256_of(transcripts)}}
    header.asr[engine_name] = [{"name": route, "type": "stored transcripts"} for route in routes]
    for suite in suites:
        if suite.path is not None:
            header.case_files[suite.name] = {
                "path": str(suite.path),
                "sha256": sha256_of(suite.path),
                "thresholds": dict(suite.thresholds),
            }
    return header

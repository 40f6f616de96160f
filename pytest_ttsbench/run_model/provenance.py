"""Where a run's figures came from: the run header beside every results file, and per-row synthesis facts.

A change in a nightly figure is only useful when it can be traced to its cause: a new voice, a
new engine or model version, another ASR model or decoding mode, an edited case file. So every
run writes ``<results stem>.run.json`` (the *run header*) before its first result line, and
completes it when the session finishes:

* software: the plugin, Python, pytest, faster-whisper and ctranslate2 versions;
* per engine profile: its type, the provider's endpoint host (never a path's query string or
  credentials), and the settings the profile gives the adapter (secrets and the names of the
  variables holding them left out);
* per ASR route: type, model, the SHA-256 of the Whisper weights used for each language,
  language handling, beam size, compute type, device and batching mode;
* per suite: its case file and that file's SHA-256, and the floors it declares;
* the text contract, repeats, repeat policy, quorum and shard.

Facts that can change from one request to the next (the voice picked for a language, the sample
rate, the seed, the provider's model or version headers) go into each row's ``generation``
record instead (see generation.py), cleaned by :func:`synthesis_facts`.

:func:`differences` says what changed between two headers, and :func:`recognizer_changes` which
of those changes mean a verdict change may be the recognizer's rather than the voice's.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.json_documents import dump_json, load_json
from pytest_ttsbench.support.package_versions import installed_version
from pytest_ttsbench.support.text import shorten

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

HEADER_SUFFIX = ".run.json"
FORMAT_VERSION = 1
_SOFTWARE = ("pytest-ttsbench", "pytest", "faster-whisper", "ctranslate2")

# Option names that hold (or name the holder of) a credential: never written anywhere.
_SECRET_NAME = re.compile(r"(key|secret|token|password|passwd|credential|auth|signature)", re.IGNORECASE)
# Per-request measurements and local paths in synthesis metadata: facts of one request, not of the voice.
_VOLATILE = frozenset(
    {
        "http_status",
        "attempts",
        "retries",
        "retry_reasons",
        "total_seconds",
        "wall_seconds",
        "bytes",
        "request_id",
        "synthesis_seconds",
        "request_characters",
        "exit_code",
        "sentences",
        "routes",
        "found",
        "file",
        "library",
        "data_path",
        "cloned",
    }
)
# Response headers in which providers name the model or version that served a request.
_VERSION_HEADER = re.compile(r"(^|[-_])(model|version|revision)($|[-_])", re.IGNORECASE)
_NOT_VERSION_HEADER = re.compile(r"ratelimit|request-id|^api-version$", re.IGNORECASE)


class RunHeaderError(ValueError):
    """A run header that cannot be read; the message names the file."""


# --- secret-free values ------------------------------------------------------------------------


def endpoint_host(url: str) -> str | None:
    """``https://user:pw@api.example.com:8443/v1?key=x`` → ``api.example.com:8443``; None for no URL."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if not host:
        return None
    return f"{host}:{port}" if port else host


def clean_value(value: Any) -> Any:
    """A setting as recorded: URLs reduced to their host, nested mappings cleaned the same way."""
    if isinstance(value, str) and re.match(r"^[a-z][a-z0-9+.-]*://", value, re.IGNORECASE):
        return endpoint_host(value)
    if isinstance(value, Mapping):
        return clean_settings(value)
    if isinstance(value, (list, tuple)):
        return [clean_value(v) for v in value]
    return value


def clean_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings without anything that holds or names a secret; URLs kept as hosts only."""
    return {str(k): clean_value(v) for k, v in settings.items() if not _SECRET_NAME.search(str(k))}


def provider_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The response headers in which a provider names its model or version (``openai-model``…)."""
    return {
        name.lower(): value
        for name, value in headers.items()
        if _VERSION_HEADER.search(name) and not _NOT_VERSION_HEADER.search(name)
    }


def synthesis_facts(metadata: Mapping[str, Any], secrets: Iterable[str] = ()) -> dict[str, Any]:
    """What one synthesis says about the voice that made it (a row's ``generation.settings``).

    The adapter's metadata less per-request measurements, local paths and secret-named keys;
    any value equal to a known secret is dropped too, in case an adapter echoes one.
    """
    known = {s for s in secrets if s}
    facts = {}
    for key, value in clean_settings({k: v for k, v in metadata.items() if k not in _VOLATILE}).items():
        if isinstance(value, str) and value in known:
            continue
        facts[key] = value
    return facts


# --- software and models -----------------------------------------------------------------------


def software_versions() -> dict[str, str | None]:
    """Versions of Python and of the distributions whose behaviour a verdict depends on."""
    return {"python": platform.python_version(), **{name: installed_version(name) for name in _SOFTWARE}}


# --- the header ---------------------------------------------------------------------------------


def header_path(results_path: Path) -> Path:
    """``results.jsonl`` → ``results.run.json`` beside it."""
    return results_path.with_name(f"{results_path.stem}{HEADER_SUFFIX}")


@dataclass
class RunHeader:
    """What a run was made with; see the module docstring."""

    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    software: dict[str, str | None] = field(default_factory=software_versions)
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    asr: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # engine → its routes
    case_files: dict[str, dict[str, Any]] = field(default_factory=dict)  # suite → path, sha256, thresholds, pack
    contract: str = "raw"
    repeats: int = 1
    repeat_policy: str = "all"
    quorum: int | None = None
    #: the scoring protocol the rows' verdicts are under (strict, published); see protocols.py
    protocol: str = "strict"
    shard: str | None = None
    shards: list[str] = field(default_factory=list)  # a merged run: the shards it was joined from
    #: a merged run joined with --allow-partial: the shards that never ran (the gate fails on them)
    missing_shards: list[str] = field(default_factory=list)
    # the quality measure sets the run took (--tts-quality); None in a header written before they were recorded
    quality_sets: list[str] | None = None
    #: engine → the targets the run selected (after -k, -m and the language filter); None where the
    #: header was written before the run knew (an older header, an xdist run killed before its end).
    #: `ttsbench gate` judges a run's coverage against it, so a killed run's rows never pass as a whole run.
    selected: dict[str, int] | None = None
    #: engine → why it produced nothing (its profile could not start), so `ttsbench gate` excuses it
    #: under --tts-allow-unavailable as the run's own gate did: the rows of a skipped engine are none.
    unavailable: dict[str, str] = field(default_factory=dict)
    #: engine → every item id and target key it collected, before -k and -m: what a known gap may
    #: name. `ttsbench gate` matches known gaps against it as the run did, so a gap whose item -k
    #: left out is not "matching nothing". None where not known (an older header, a run killed
    #: before its collection was reported).
    collected_ids: dict[str, list[str]] | None = None
    format: int = FORMAT_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunHeader:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def configuration(self) -> dict[str, Any]:
        """Everything that must be equal for two runs to be parts of one (shards): all but dates and shards."""
        data = self.to_dict()
        for volatile in ("created_at", "shard", "shards", "missing_shards", "selected", "unavailable", "collected_ids"):
            data.pop(volatile)
        # Where a case file lies may differ between CI machines; what it holds may not.
        data["case_files"] = {
            suite: {k: v for k, v in entry.items() if k != "path"} for suite, entry in self.case_files.items()
        }
        return data


def write_header(path: Path, header: RunHeader) -> None:
    write_atomically(path, dump_json(header.to_dict(), null_non_finite=True, ensure_ascii=False, indent=2) + "\n")


def read_header(results_path: Path) -> RunHeader | None:
    """The run header beside a results file, or None for a run written before headers existed."""
    path = header_path(results_path)
    if not path.is_file():
        return None
    try:
        data = load_json(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the top level is not an object")
        selected = data.get("selected")
        if selected is not None and not (
            isinstance(selected, dict)
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in selected.values())
        ):
            shown = shorten(repr(selected), 80)
            raise ValueError(f"field selected: an object of engine → number of targets, got {shown}")
        unavailable = data.get("unavailable", {})
        if not (isinstance(unavailable, dict) and all(isinstance(why, str) for why in unavailable.values())):
            shown = shorten(repr(unavailable), 80)
            raise ValueError(f"field unavailable: an object of engine → why it was unavailable, got {shown}")
        collected_ids = data.get("collected_ids")
        if collected_ids is not None and not (
            isinstance(collected_ids, dict)
            and all(isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in collected_ids.values())
        ):
            shown = shorten(repr(collected_ids), 80)
            raise ValueError(f"field collected_ids: an object of engine → list of ids, got {shown}")
        return RunHeader.from_dict(data)
    except (ValueError, TypeError) as exc:
        raise RunHeaderError(f"{path}: not a readable run header: {exc}") from exc


# --- what changed -------------------------------------------------------------------------------


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping) and (value or not prefix):
        flat: dict[str, Any] = {}
        for key, inner in value.items():
            flat.update(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(value, list) and value and all(isinstance(v, Mapping) and "name" in v for v in value):
        return _flatten({str(v["name"]): v for v in value}, prefix)
    return {prefix: value}


def differences(before: RunHeader, after: RunHeader) -> list[str]:
    """Every configuration fact that differs, as ``field: old → new`` lines, sorted."""
    old, new = _flatten(before.configuration()), _flatten(after.configuration())
    lines = []
    for key in sorted(old.keys() | new.keys()):
        if old.get(key) != new.get(key):
            lines.append(f"{key}: {_show(old.get(key))} → {_show(new.get(key))}")
    return lines


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    text = dump_json(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."


# Route facts that decide what a recognizer hears: any change means a verdict change may be its.
_RECOGNIZER_FACTS = (
    "type",
    "model",
    "weights_sha256",
    "beam_size",
    "compute_type",
    "temperatures",
    "language",
    "batching",
)
# Headers written before batched transcription existed name the one mode there was this way.
_SAME_FACT = {"one clip per call, sequential": "sequential"}


def _as_now(fact: Any) -> Any:
    return _SAME_FACT.get(fact, fact) if isinstance(fact, str) else fact


def _engine_pairs(before: RunHeader, after: RunHeader) -> list[tuple[str, str]]:
    """Engines compared with each other: same names, or the only engine of each side (espeak-1.51 → espeak-1.52)."""
    common = sorted(before.asr.keys() & after.asr.keys())
    if common:
        return [(name, name) for name in common]
    if len(before.asr) == 1 and len(after.asr) == 1:
        return [(next(iter(before.asr)), next(iter(after.asr)))]
    return []


def recognizer_changes(before: RunHeader, after: RunHeader) -> list[str]:
    """The differences in ASR model or decoding mode, worded for a person ("ASR model differs: …")."""
    found: list[str] = []
    for old_engine, new_engine in _engine_pairs(before, after):
        old = {r["name"]: r for r in before.asr[old_engine]}
        new = {r["name"]: r for r in after.asr[new_engine]}
        if old.keys() != new.keys():
            found.append(f"ASR routes differ ({new_engine}): {sorted(old)} → {sorted(new)}")
            continue
        for name in sorted(old):
            o, n = _flatten(old[name]), _flatten(new[name])
            for key in sorted(o.keys() | n.keys()):
                if key.startswith("models.") and (key not in o or key not in n):
                    continue  # a language only one run had: its items are new or missing, not re-heard
                was, now = _as_now(o.get(key)), _as_now(n.get(key))
                if key.split(".")[-1] in _RECOGNIZER_FACTS and was != now:
                    what = "ASR model" if "model" in key or "weights" in key else "ASR decoding"
                    found.append(
                        f"{what} differs ({new_engine}, {name}, {key}): {_show(o.get(key))} → {_show(n.get(key))}"
                    )
    return found


# --- secrets a profile holds ---------------------------------------------------------------------


def profile_secrets(profile: EngineProfile) -> list[str]:
    """Values of the environment variables a profile names (``api_key_env``, ``*_env``), to keep out of rows."""
    names = [profile.api_key_env] + [v for k, v in profile.options.items() if k.endswith("_env")]
    return [os.environ[n] for n in names if isinstance(n, str) and os.environ.get(n)]

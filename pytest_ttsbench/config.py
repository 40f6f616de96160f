"""Project configuration: ``ttsbench.yaml`` at the rootdir, or ``[tool.ttsbench]`` in pyproject.toml.

Example::

    asr: {model: auto, beam_size: 5}
    engines:
      espeak: {type: espeak, voice: {en: en-us, ar: ar}}
      azure: {type: azure, region: westeurope, api_key_env: AZURE_SPEECH_KEY, voice: en-US-JennyNeural}

Secrets are never written here: a profile names the environment variable that holds one
(``api_key_env``), and only the adapter reads it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.quality.measures import DNSMOS_WINDOWINGS
from pytest_ttsbench.support.checked_numbers import NumberError, NumberRange, checked_number
from pytest_ttsbench.support.limits import LIMITS_SCHEMA, Limits
from pytest_ttsbench.support.redaction import url_credentials_in
from pytest_ttsbench.support.text import shorten
from pytest_ttsbench.support.yaml_documents import YamlSyntaxError, load_yaml

#: the project's configuration file at the rootdir (or ``[tool.ttsbench]`` in pyproject.toml); read
#: only by a run of ours, never by a plain ``pytest`` (plugin.py)
CONFIG_FILE = "ttsbench.yaml"

# Profiles that work with no configuration at all: the embedded default and the local neural voice.
BUILTIN_PROFILES: dict[str, dict[str, Any]] = {
    # eSpeak NG speaks the other languages too, but only its English survives a Whisper round trip:
    # the profile is judged on English alone (the voices stay for --tts-all-languages).
    "espeak": {
        "type": "espeak",
        "voice": {"en": "en-us", "ar": "ar", "zh": "cmn", "th": "th"},
        "languages": ["en"],
    },
    "piper": {"type": "piper"},
}

_PROFILE_SCHEMA = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {
            "type": "string",
            "minLength": 1,
            "description": "the adapter type: a built-in one (espeak, piper, openai, …) or one a plugin registers",
        },
        "voice": {
            "description": "the voice: one name, a mapping language → name, or null to send none",
            "oneOf": [
                {"type": "string"},
                {"type": "object", "additionalProperties": {"type": "string"}},
                {"type": "null"},  # an explicit "send no voice" (the openai adapter's clone servers)
            ],
        },
        "api_key_env": {
            "type": "string",
            "pattern": r"^[A-Za-z_][A-Za-z0-9_]*\Z",
            "description": "the name of the environment variable holding the key; the key itself is never written down",
        },
        # generations per item for a stochastic voice (see gating/repeats.py)
        "repeats": {
            "type": "integer",
            "minimum": 1,
            "description": "generations per item, for a stochastic voice (--tts-repeats wins)",
        },
        "languages": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "description": (
                "the languages this profile is judged on (default: every language); items in "
                "others are left out unless --tts-all-languages"
            ),
        },
        # this engine's clips may decode to at most this many seconds (limits.max_clip_seconds otherwise)
        "max_clip_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "this engine's clips may decode to at most this many seconds (else limits.max_clip_seconds)",
        },
    },
}

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "engines": {
            "type": "object",
            "additionalProperties": _PROFILE_SCHEMA,
            "description": "engine profiles by name, the names --tts-engine takes (espeak and piper exist without one)",
        },
        "asr": {
            "type": "object",
            "description": (
                "the recognizer for every engine (a profile's own asr keys win): model, "
                "beam_size, device, compute_type, batch_size, or routes"
            ),
        },
        "cases": {
            "type": "array",
            "items": {"type": "string"},
            "description": "folders whose YAML files are case files (default: cases/)",
        },
        # shipped benchmark packs to run beside the case folders (see pytest_ttsbench/cases/packs.py)
        "packs": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "description": "shipped benchmark packs to run beside the case folders (--tts-pack overrides)",
        },
        # full external benchmark files (a CN-NewsTTS split, a Thai eval set), pinned by SHA-256
        "external": {
            "description": "full benchmark files kept outside the repository, each pinned by the SHA-256 of its copy",
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "sha256"],
                "additionalProperties": False,
                "properties": {
                    "path": {
                        "type": "string",
                        "minLength": 1,
                        "description": "the file, relative to the configuration",
                    },
                    "sha256": {
                        "type": "string",
                        "pattern": "^[0-9a-fA-F]{64}\\Z",
                        "description": "the SHA-256 of the copy the floors and baselines were made on",
                    },
                    "source": {
                        "type": "string",
                        "description": "where to obtain it, quoted when it is missing or differs",
                    },
                },
            },
        },
        "runs_dir": {
            "type": "string",
            "description": "where run folders go when --tts-results is not given (default: .ttsbench/runs)",
        },
        "thresholds": {
            "type": "object",
            "description": "floors per category or slice, min_n and floor_on; a key holding a mapping names a suite",
        },
        "known_gaps_dir": {
            "type": "string",
            "description": (
                "the folder of known_gaps/<engine>.yaml files (default: known_gaps beside the configuration)"
            ),
        },
        # measures: [signal, dnsmos]; floors / ceilings / tolerance (see pytest_ttsbench/quality/bounds.py)
        "quality": {
            "description": "per-clip quality measures and their gates, apart from accuracy",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "measures": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "the quality measure sets taken when --tts-quality is not given (default: signal)",
                },
                "dnsmos_windowing": {
                    "enum": list(DNSMOS_WINDOWINGS),
                    "description": "how DNSMOS cuts a clip (--tts-dnsmos-windowing wins)",
                },
                "floors": {
                    "type": "object",
                    "description": "lowest mean per measure; a key holding a mapping names a scope",
                },
                "ceilings": {
                    "type": "object",
                    "description": "highest mean per measure; a key holding a mapping names a scope",
                },
                "tolerance": {"type": "object", "description": "the largest move per measure against --tts-baseline"},
                # judge tolerance even against figures measured by other models (--tts-allow-quality-model-change)
                "allow_model_change": {
                    "type": "boolean",
                    "description": (
                        "judge tolerance against figures measured by another model (--tts-allow-quality-model-change)"
                    ),
                },
            },
        },
        "latency_budgets": {
            "type": "object",
            "additionalProperties": {"type": "object"},
            "description": (
                "synthesis latency budgets per engine, e.g. {openai: {p95: 800ms}} (the command "
                "line wins per engine and figure)"
            ),
        },
        "gate_decides_exit": {
            "type": "boolean",
            "description": (
                "the gate alone sets the exit status: failed item tests are reported, only the judged "
                "bounds fail the run (default false: each item is a test, as in any pytest run; "
                "--tts-gate-decides-exit)"
            ),
        },
        "cache_dir": {
            "type": "string",
            "minLength": 1,
            "description": "the clip and transcript cache folder (--tts-cache-dir wins)",
        },
        # an LRU cap on the clip and transcript cache: bytes, or a size such as "2GB"
        "cache_max_size": {
            "type": ["string", "integer"],
            "description": (
                "least recently used cache entries go when a run ends above this: bytes, or a size such as 2GB"
            ),
        },
        # whose clips a run reads from the cache: reproducible local engines only (default) or all
        "cache_reuse": {
            "enum": ["local", "all"],
            "description": (
                "whose clips a run reads from the cache: reproducible local engines' (local, the "
                "default) or every engine's (all)"
            ),
        },
        "limits": LIMITS_SCHEMA,
    },
}


class ConfigError(ValueError):
    """The configuration file is invalid; the message names the file and the field."""


@dataclass(frozen=True)
class EngineProfile:
    """One named engine configuration: its adapter ``type``, voices and adapter options."""

    name: str
    type: str
    voice: str | Mapping[str, str] | None = None
    api_key_env: str | None = None
    #: the languages this profile is fit to be judged on (None: every language; see languages.py)
    languages: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    base_dir: Path = field(default_factory=Path.cwd)

    def voice_for(self, language: str) -> str | None:
        """The voice for a language: exact tag, then primary subtag, then ``default``; None lets the engine pick."""
        if self.voice is None or isinstance(self.voice, str):
            return self.voice
        primary = language.split("-")[0]
        return self.voice.get(language) or self.voice.get(primary) or self.voice.get("default")

    def option(self, key: str, default: Any = None) -> Any:
        return self.options.get(key, default)

    def number(self, key: str, default: float | None, allowed: NumberRange) -> Any:
        """A numeric option, finite and ``allowed`` (support/checked_numbers.py), else a ConfigError naming
        the profile, the option and the value; ``default`` (unchecked) when the profile does not set it."""
        value = self.options.get(key)
        if value is None:
            return default
        try:
            return checked_number(value, f"engine profile {self.name!r}: option {key}", allowed)
        except NumberError as exc:
            raise ConfigError(str(exc)) from None


@dataclass(frozen=True)
class ExternalFile:
    """A benchmark file kept outside the project, pinned to the SHA-256 of the copy it was written for."""

    path: Path
    sha256: str
    #: where the configuration names it, e.g. ``ttsbench.yaml: field external[0]``
    field: str
    #: how to obtain the file, when the configuration says
    source: str | None = None


@dataclass(frozen=True)
class Settings:
    """Everything read from the configuration file, with defaults filled in."""

    engines: Mapping[str, EngineProfile]
    asr: Mapping[str, Any] = field(default_factory=dict)
    cases: tuple[str, ...] = ("cases",)
    #: the shipped packs the configuration names; None when it names none (see cases/packs.py)
    packs: tuple[str, ...] | None = None
    #: external benchmark files, each with its expected SHA-256 (see cases/pins.py)
    external: tuple[ExternalFile, ...] = ()
    runs_dir: str = ".ttsbench/runs"
    thresholds: Mapping[str, Any] = field(default_factory=dict)
    known_gaps_dir: str = "known_gaps"
    quality: Mapping[str, Any] = field(default_factory=dict)
    latency_budgets: Mapping[str, Any] = field(default_factory=dict)
    #: the gate alone sets the exit status; failed item tests are reported (--tts-gate-decides-exit)
    gate_decides_exit: bool = False
    cache_dir: str | None = None
    cache_max_size: str | int | None = None
    cache_reuse: str | None = None  # clip_reuse.py; None: the default, ``local``
    limits: Limits = field(default_factory=Limits)
    source: Path | None = None
    base_dir: Path = field(default_factory=Path.cwd)

    def case_folders(self) -> list[Path]:
        """The configured case folders that exist."""
        return [path for folder in self.cases if (path := (self.base_dir / folder).resolve()).is_dir()]

    def clip_engines(self, names: Sequence[str]) -> list[str]:
        """The engines among ``names`` that make clips: a transcripts replay scores recorded text only."""
        return [name for name in names if name not in self.engines or self.engines[name].type != "transcripts"]


def _read_raw(rootdir: Path) -> tuple[dict[str, Any], Path | None]:
    yaml_path = rootdir / CONFIG_FILE
    if yaml_path.is_file():
        try:
            data = load_yaml(yaml_path.read_text(encoding="utf-8")) or {}
        except YamlSyntaxError as exc:
            raise ConfigError(f"{yaml_path}: not valid YAML: {exc}") from exc
        return data, yaml_path
    pyproject = rootdir / "pyproject.toml"
    if pyproject.is_file():
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10
            import tomli as tomllib
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            # TOML refuses a key given twice ("Cannot overwrite a value (at line 5, ...)") without
            # naming it: quote the line, so the message names the key as the YAML and JSON readers do.
            raise ConfigError(f"{pyproject}: not valid TOML: {exc}{_quoted_line(pyproject, exc)}") from exc
        section = data.get("tool", {}).get("ttsbench")
        if section is not None:
            return section, pyproject
    return {}, None


def _quoted_line(path: Path, error: Exception) -> str:
    found = re.search(r"\(at line (\d+)", str(error))
    lines = path.read_text(encoding="utf-8").splitlines() if found else []
    number = int(found.group(1)) if found else 0
    return f": {lines[number - 1].strip()!r}" if 0 < number <= len(lines) else ""


def _schema_errors(raw: dict[str, Any]) -> list[Any]:
    # Imported here: a pytest run in a project without a configuration never pays for a schema check.
    from pytest_ttsbench.support.schema_check import schema_errors

    return sorted(schema_errors(CONFIG_SCHEMA, raw), key=lambda e: [str(p) for p in e.absolute_path])


def load_settings(rootdir: Path) -> Settings:
    """Read the configuration at ``rootdir``; built-in profiles fill in names the file does not define."""
    raw, source = _read_raw(rootdir)
    where = str(source) if source else "configuration"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: the top level must be a mapping")
    errors = _schema_errors(raw) if raw else []
    if errors:
        first = errors[0]
        path = ".".join(str(p) for p in first.absolute_path) or "(top level)"
        raise ConfigError(f"{where}: field {path}: {shorten(first.message)}")
    credentials = url_credentials_in(raw)
    if credentials:  # refused before anything is sent: secrets only come from the environment
        raise ConfigError(f"{where}: field {credentials[0]}: {credentials[1]}")
    profiles: dict[str, EngineProfile] = {}
    merged = {**BUILTIN_PROFILES, **raw.get("engines", {})}
    for name, spec in merged.items():
        spec = dict(spec)
        languages = spec.pop("languages", None)
        profiles[name] = EngineProfile(
            name=name,
            type=spec.pop("type"),
            # An explicit `voice: null` stays among the options, so an adapter that otherwise picks a
            # default voice can tell "send none" from "not set".
            voice=spec.pop("voice") if spec.get("voice") is not None else None,
            api_key_env=spec.pop("api_key_env", None),
            languages=tuple(languages) if languages is not None else None,
            options=spec,
            base_dir=rootdir,
        )
    return Settings(
        engines=profiles,
        asr=raw.get("asr", {}),
        cases=tuple(raw.get("cases", ("cases",))),
        packs=tuple(raw["packs"]) if "packs" in raw else None,
        external=tuple(
            ExternalFile(
                path=(rootdir / entry["path"]).resolve(),
                sha256=entry["sha256"].lower(),
                field=f"{where}: field external[{index}]",
                source=entry.get("source"),
            )
            for index, entry in enumerate(raw.get("external", []))
        ),
        runs_dir=raw.get("runs_dir", ".ttsbench/runs"),
        thresholds=raw.get("thresholds", {}),
        known_gaps_dir=raw.get("known_gaps_dir", "known_gaps"),
        quality=raw.get("quality", {}),
        latency_budgets=raw.get("latency_budgets", {}),
        gate_decides_exit=raw.get("gate_decides_exit", False),
        cache_dir=raw.get("cache_dir"),
        cache_max_size=raw.get("cache_max_size"),
        cache_reuse=raw.get("cache_reuse"),
        limits=Limits(**raw.get("limits", {})),
        source=source,
        base_dir=rootdir,
    )

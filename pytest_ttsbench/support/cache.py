"""A content-addressed cache of clips, transcripts and parsed case files: a rerun re-runs no ASR on
audio it heard before, and asks no engine whose clips it may reuse (clip_reuse.py) for them again.

Four kinds of entries live under one folder:

* ``audio/``: what an engine returned for one request, keyed by everything that determines the
  audio (adapter type, endpoint, model, voice, the text sent, every option sent, the generation
  index) and nothing else: no secret, no timeout or concurrency, no random seed that differs
  from run to run (the seed actually sent is kept in the entry's metadata instead).
* ``transcripts/``: what one ASR route heard in one clip, keyed by the clip's SHA-256 and the
  route's identity (for Whisper: model weights SHA-256, language, beam, compute type, batching
  mode, faster-whisper and CTranslate2 versions).
* ``quality/``: a clip's quality figures (``--tts-quality``), keyed by the clip's SHA-256, the
  text sent (the speaking rate counts its letters), the reference voice's SHA-256 and the
  measures' identity (each set's model, its file's SHA-256 and library versions, DNSMOS windowing).
* ``parsed/``: a case file's parsed YAML, keyed by the SHA-256 of the file's text
  (yaml_documents.py), never by its modification time or size.

Every entry is one file, written to a temporary file in its own folder and moved into place
with ``os.replace`` (atomic_files.py), which is atomic on one file system, so concurrent writers
(xdist workers, two runs sharing a CI cache) never leave a half-written entry: a reader sees the old entry or
the new one. Every entry, whatever its kind, is sealed the same way (:func:`seal_entry`): a
first line naming its kind, its key and the SHA-256 of the body that follows, and every read
goes through one check (:func:`open_entry`) that accepts the entry only when that line is
byte for byte the one the body and the key call for. So an entry damaged or edited later (one
byte anywhere) is a *damaged* miss, counted (:attr:`ClipCache.damaged`) and reported, never a
hit with other content. Reading an entry touches its modification time, which makes pruning
least-recently-used.

Which engines' clips a run may *read* is decided elsewhere (clip_reuse.py): by default only those
of local engines that make the same audio from the same inputs every time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.checked_numbers import NON_NEGATIVE, NumberError, parse_number
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.plugin_options import CACHE_MODES as MODES
from pytest_ttsbench.support.plugin_options import DEFAULT_CACHE_MODE as DEFAULT_MODE

DEFAULT_FOLDER = ".ttsbench/cache"  # beside the default runs folder, relative to the project root
CACHE_ENV = "TTSBENCH_CACHE_DIR"  # also locates the assembled Whisper models (asr/models.py)
ENV_SUBFOLDER = "clips"

# Bump when the layout of an entry or the meaning of a key changes: old entries then simply miss.
# 2: every entry sealed with its kind, key and body checksum (seal_entry).
KEY_VERSION = 2
#: the kinds of entry, each a folder under the cache root
ENTRY_KINDS = ("audio", "transcripts", "quality", "parsed")
_SUFFIX = {"audio": ".clip", "transcripts": ".json", "quality": ".json", "parsed": ".json"}

#: The Cache Directory Tagging Specification's file (https://bford.info/cachedir/): a folder holding
#: it is a cache whose contents can be made again. Written into every cache folder the plugin
#: writes to; backup tools skip such a folder, and so does the plugin's collection (own_folders.py).
CACHEDIR_TAG = "CACHEDIR.TAG"
CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"

#: what one read found: a whole entry, no entry, or an entry whose seal does not match its content
ReadStatus = Literal["hit", "miss", "damaged"]

# Profile options that never change the audio: connection tuning, the ASR that hears it, and the
# names of environment variables (the values behind them are secrets and are never read here).
_NOT_AUDIO_OPTIONS = frozenset(
    {
        "asr",
        "concurrency",
        "requests_per_second",
        "timeout_s",
        "connect_timeout_s",
        "max_retries",
        "retry_min_wait_s",
        "retry_max_wait_s",
    }
)
_SECRET_WORDS = ("key", "secret", "token", "password", "credential", "authorization")


class CacheError(ValueError):
    """A cache setting that cannot be used (bad mode, bad size); the message names the setting."""


@dataclass(frozen=True)
class CachedAudio:
    """One engine reply as stored: the bytes and what the pipeline needs to decode and describe them."""

    audio: bytes
    media_type: str
    pcm_sample_rate: int | None
    metadata: dict[str, Any]
    #: the clip's audio check when it was stored (``AudioCheck.to_record``), reused while it still applies
    checks: dict[str, Any] | None = None


@dataclass(frozen=True)
class CachedTranscript:
    """One route's transcript as stored."""

    text: str
    flags: tuple[str, ...]
    language: str | None
    details: dict[str, Any]


@dataclass(frozen=True)
class CacheStats:
    """What ``ttsbench cache stats`` prints: entries and bytes per kind."""

    root: Path
    audio_entries: int
    audio_bytes: int
    transcript_entries: int
    transcript_bytes: int
    parsed_entries: int = 0
    parsed_bytes: int = 0
    quality_entries: int = 0
    quality_bytes: int = 0

    @property
    def total_bytes(self) -> int:
        return self.audio_bytes + self.transcript_bytes + self.parsed_bytes + self.quality_bytes


@dataclass(frozen=True)
class DamagedEntry:
    """An entry whose seal does not match its content (``ttsbench cache check``)."""

    kind: str
    path: Path


def _digest(material: Mapping[str, Any]) -> str:
    canonical = dump_json(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _looks_secret(name: str) -> bool:
    lowered = name.lower()
    return lowered.endswith("_env") or any(word in lowered for word in _SECRET_WORDS)


def audio_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The profile options that shape the audio: everything but connection tuning, ASR and secret names."""
    return {key: value for key, value in options.items() if key not in _NOT_AUDIO_OPTIONS and not _looks_secret(key)}


def audio_key_material(
    engine_type: str,
    options: Mapping[str, Any],
    voice: str | None,
    language: str,
    text: str,
    generation: int,
    engine_identity: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything that determines one clip, as a plain mapping (the key is its SHA-256).

    ``generation`` is the repeat index: ``--tts-repeats 3`` asks for three independent
    generations, so each has its own entry, and a rerun of the same run finds all three.
    ``engine_identity`` is what the adapter says about itself (library version, model file hash).
    """
    return {
        "kind": "audio",
        "version": KEY_VERSION,
        "engine": engine_type,
        "options": audio_options(options),
        "voice": voice,
        "language": language,
        "text": text,
        "generation": generation,
        "engine_identity": dict(engine_identity or {}),
    }


def transcript_key_material(audio_sha256: str, route_identity: Mapping[str, Any], language: str) -> dict[str, Any]:
    """Everything that determines one transcript: the clip's content and the route that heard it."""
    return {
        "kind": "transcript",
        "version": KEY_VERSION,
        "audio_sha256": audio_sha256,
        "route": dict(route_identity),
        "language": language,
    }


def quality_key_material(
    audio_sha256: str,
    pcm_sample_rate: int | None,
    text: str,
    reference_sha256: str | None,
    meter_identity: Mapping[str, Any],
) -> dict[str, Any]:
    """Everything that determines a clip's quality figures: the bytes the engine returned (and the
    rate of raw PCM), the text sent, the reference voice and the measures (QualityMeter.cache_identity)."""
    return {
        "kind": "quality",
        "version": KEY_VERSION,
        "audio_sha256": audio_sha256,
        "pcm_sample_rate": pcm_sample_rate,
        "text": text,
        "reference_sha256": reference_sha256,
        "measures": dict(meter_identity),
    }


def cache_key(material: Mapping[str, Any]) -> str:
    """The SHA-256 of a key's canonical JSON."""
    return _digest(material)


def parse_size(text: str | int) -> int:
    """``"2GB"``, ``"500 MB"``, ``"1.5GiB"`` or a plain byte count → bytes."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise CacheError(f"cache size must not be negative, got {text}")
        return text
    raw = str(text).strip().upper().replace(" ", "")
    units = {"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "KB": 10**3, "MB": 10**6, "GB": 10**9, "B": 1, "": 1}
    for unit in sorted(units, key=len, reverse=True):
        if raw.endswith(unit):
            number = raw[: len(raw) - len(unit)] if unit else raw
            try:  # finite and not negative: "nanGB" and "infB" are no sizes
                value = parse_number(number, "cache size", NON_NEGATIVE)
            except NumberError:
                break
            return int(value * units[unit])
    raise CacheError(f"cache size {text!r} is not a size such as 2GB, 500MB or 1073741824")


def resolve_cache_dir(option: str | None, configured: str | None, base_dir: Path) -> Path:
    """``--tts-cache-dir``, else the configuration's ``cache_dir``, else ``$TTSBENCH_CACHE_DIR/clips``,
    else ``.ttsbench/cache`` in the project (relative paths are relative to the project root)."""
    if option:
        return Path(option).expanduser().resolve()
    if configured:
        path = Path(configured).expanduser()
        return (path if path.is_absolute() else base_dir / path).resolve()
    env = os.environ.get(CACHE_ENV)
    if env:
        return (Path(env).expanduser() / ENV_SUBFOLDER).resolve()
    return (base_dir / DEFAULT_FOLDER).resolve()


def _seal_line(kind: str, key: str, body: bytes) -> bytes:
    seal = {"entry": kind, "format": KEY_VERSION, "key": key, "sha256": hashlib.sha256(body).hexdigest()}
    return dump_json(seal, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def seal_entry(kind: str, key: str, body: bytes) -> bytes:
    """An entry as stored: one line sealing the body (its kind, key and SHA-256), then the body."""
    return _seal_line(kind, key, body) + b"\n" + body


def open_entry(kind: str, key: str, data: bytes) -> bytes | None:
    """The body of a stored entry, or None when its seal is not exactly the one its body and key call for.

    The one check every read goes through. Comparing the whole first line with the line that would
    be written for this body under this key (rather than parsing it) means no change to it passes:
    not to the checksum, the key, the kind or the format, nor an edit JSON would read the same;
    and any change to the body changes its checksum. An entry moved to another key's file misses too.
    """
    line, newline, body = data.partition(b"\n")
    if not newline or line != _seal_line(kind, key, body):
        return None
    return body


def tag_cache_folder(root: Path) -> None:
    """Mark ``root`` as a cache folder (:data:`CACHEDIR_TAG`), unless it is marked already."""
    if is_tagged_cache(root):
        return
    text = (
        CACHEDIR_SIGNATURE + b"\n# This file is a cache directory tag created by pytest-ttsbench: clips, transcripts"
        b" and figures it can make again.\n# For information about cache directory tags see https://bford.info/cachedir/\n"
    )
    with contextlib.suppress(OSError):  # a read-only folder: entries are still served
        write_atomically(root / CACHEDIR_TAG, text)


def is_tagged_cache(folder: Path) -> bool:
    """Whether ``folder`` holds a cache directory tag (any tool's: the signature is the specification's)."""
    try:
        with open(folder / CACHEDIR_TAG, "rb") as tag:
            return tag.read(len(CACHEDIR_SIGNATURE)) == CACHEDIR_SIGNATURE
    except OSError:  # no tag, or ``folder`` is a file
        return False


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):  # a read-only cache still serves its entries
        os.utime(path)


#: prefixes of the keys :attr:`ClipCache.damaged` counts failed reads and writes under, per entry kind
#: (``write failed: audio``): carried with the damaged entries from xdist workers to the gate
READ_FAILED = "read failed: "
WRITE_FAILED = "write failed: "


class ClipCache:
    """The cache folder, read and written according to ``mode`` (``off``, ``read``, ``write``, ``readwrite``).

    :attr:`damaged` counts, per kind, the entries this process found damaged (each a miss), and the
    reads and writes the file system refused (keys :data:`READ_FAILED` / :data:`WRITE_FAILED` + kind).
    """

    def __init__(self, root: Path, mode: str = DEFAULT_MODE) -> None:
        if mode not in MODES:
            raise CacheError(f"cache mode {mode!r} is not one of {', '.join(MODES)}")
        self.root = root
        self.mode = mode
        self.damaged: Counter[str] = Counter()
        self._lock = threading.Lock()  # the prefetch pool reads from several threads
        self._tagged = False

    @property
    def reads(self) -> bool:
        return self.mode in ("read", "readwrite")

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "readwrite")

    def _path(self, kind: str, key: str, suffix: str) -> Path:
        return self.root / kind / key[:2] / f"{key}{suffix}"

    # --- the one read and the one write every kind goes through --------------------------------

    def read_entry(self, kind: str, key: str) -> tuple[bytes | None, ReadStatus]:
        """An entry's body checked against its seal: ``hit``, ``miss`` (none), or ``damaged`` (counted)."""
        path = self._path(kind, key, _SUFFIX[kind])
        try:
            data = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None, "miss"
        except OSError:  # unreadable (permissions, an I/O error): counted, and the run goes on without it
            self.count_damaged(f"{READ_FAILED}{kind}")
            return None, "miss"
        body = open_entry(kind, key, data)
        if body is None:
            self.count_damaged(kind)
            return None, "damaged"
        _touch(path)
        return body, "hit"

    def holds(self, kind: str, key: str) -> bool:
        """Whether a run that reads the cache finds an entry there (unchecked: the read may find it damaged)."""
        return self.reads and self._path(kind, key, _SUFFIX[kind]).is_file()

    def write_entry(self, kind: str, key: str, body: bytes) -> None:
        """Store an entry; a write the file system refuses (full, read-only) is counted, never raised:
        the cache is an optimisation, and the run goes on without it."""
        try:
            # Owner-only, as tempfile.mkstemp made every cache entry before this helper.
            write_atomically(self._path(kind, key, _SUFFIX[kind]), seal_entry(kind, key, body), mode=0o600)
        except OSError:
            self.count_damaged(f"{WRITE_FAILED}{kind}")
            return
        if not self._tagged:
            tag_cache_folder(self.root)
            self._tagged = True

    def count_damaged(self, kind: str, count: int = 1) -> None:
        with self._lock:
            self.damaged[kind] += count

    # --- audio ---------------------------------------------------------------------------------

    def get_audio(self, key: str) -> CachedAudio | None:
        return self.read_audio(key)[0]

    def read_audio(self, key: str) -> tuple[CachedAudio | None, ReadStatus]:
        """The clip stored under ``key`` and what the read found; nothing is read in ``off`` or ``write`` mode."""
        if not self.reads:
            return None, "miss"
        body, status = self.read_entry("audio", key)
        if body is None:
            return None, status
        header, _, audio = body.partition(b"\n")
        try:
            meta = json.loads(header)
        except ValueError:
            meta = None
        if not isinstance(meta, dict) or not isinstance(meta.get("metadata", {}), dict):
            self.count_damaged("audio")  # sealed but not an entry this code writes: never a clip
            return None, "damaged"
        media_type = str(meta.get("media_type") or "audio/wav")
        checks = meta.get("checks") if isinstance(meta.get("checks"), dict) else None
        return CachedAudio(audio, media_type, meta.get("pcm_sample_rate"), meta.get("metadata") or {}, checks), "hit"

    def put_audio(self, key: str, entry: CachedAudio) -> None:
        if not self.writes:
            return
        meta = {"media_type": entry.media_type, "pcm_sample_rate": entry.pcm_sample_rate, "metadata": entry.metadata}
        if entry.checks is not None:
            meta["checks"] = entry.checks
        # json.dumps escapes newlines inside strings, so the metadata is exactly one line.
        header = dump_json(meta, default=str, ensure_ascii=True, null_non_finite=True).encode("ascii")
        self.write_entry("audio", key, header + b"\n" + entry.audio)

    def _read_json_entry(self, kind: str, key: str) -> tuple[Any, ReadStatus]:
        """A sealed JSON entry's document when the run reads the cache; a body that is not JSON is damaged.

        The caller checks the document's shape and counts a wrong one as damaged too.
        """
        if not self.reads:
            return None, "miss"
        body, status = self.read_entry(kind, key)
        if body is None:
            return None, status
        try:
            return json.loads(body), "hit"
        except ValueError:
            self.count_damaged(kind)
            return None, "damaged"

    # --- transcripts ---------------------------------------------------------------------------

    def get_transcript(self, key: str) -> CachedTranscript | None:
        return self.read_transcript(key)[0]

    def read_transcript(self, key: str) -> tuple[CachedTranscript | None, ReadStatus]:
        data, status = self._read_json_entry("transcripts", key)
        if status != "hit":
            return None, status
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            self.count_damaged("transcripts")
            return None, "damaged"
        flags = tuple(data.get("flags") or ())
        return CachedTranscript(data["text"], flags, data.get("language"), data.get("details") or {}), "hit"

    def put_transcript(self, key: str, entry: CachedTranscript) -> None:
        if not self.writes:
            return
        body = {"text": entry.text, "flags": list(entry.flags), "language": entry.language, "details": entry.details}
        self.write_entry("transcripts", key, dump_json(body, default=str, null_non_finite=True).encode("utf-8"))

    # --- quality figures (quality/meter.py) -----------------------------------------------------

    def read_quality(self, key: str) -> tuple[dict[str, float | None] | None, ReadStatus]:
        """A clip's stored figures (measure name → value) and what the read found."""
        data, status = self._read_json_entry("quality", key)
        if status != "hit":
            return None, status
        figures = data.get("figures") if isinstance(data, dict) else None
        if not isinstance(figures, dict) or not all(isinstance(v, (int, float)) or v is None for v in figures.values()):
            self.count_damaged("quality")  # sealed but not an entry this code writes: never figures
            return None, "damaged"
        return {str(k): v for k, v in figures.items()}, "hit"

    def put_quality(self, key: str, figures: Mapping[str, float | None]) -> None:
        if not self.writes:
            return
        self.write_entry("quality", key, dump_json({"figures": dict(figures)}, null_non_finite=True).encode("utf-8"))

    # --- parsed case files (yaml_documents.py) ---------------------------------------------------
    # Used in every mode but ``off``: a parse is not a measurement, and an entry is checked on read.

    def read_parsed(self, key: str) -> tuple[bytes | None, ReadStatus]:
        if self.mode == "off":
            return None, "miss"
        return self.read_entry("parsed", key)

    def put_parsed(self, key: str, body: bytes) -> None:
        if self.mode != "off":
            self.write_entry("parsed", key, body)  # a read-only cache: counted, parsed every time

    # --- housekeeping --------------------------------------------------------------------------

    def _files(self, kind: str) -> Iterator[Path]:
        folder = self.root / kind
        if folder.is_dir():
            yield from (p for p in folder.glob("*/*") if p.is_file() and not p.name.startswith("."))

    def stats(self) -> CacheStats:
        audio = [p.stat().st_size for p in self._files("audio")]
        transcripts = [p.stat().st_size for p in self._files("transcripts")]
        parsed = [p.stat().st_size for p in self._files("parsed")]
        quality = [p.stat().st_size for p in self._files("quality")]
        return CacheStats(
            root=self.root,
            audio_entries=len(audio),
            audio_bytes=sum(audio),
            transcript_entries=len(transcripts),
            transcript_bytes=sum(transcripts),
            parsed_entries=len(parsed),
            parsed_bytes=sum(parsed),
            quality_entries=len(quality),
            quality_bytes=sum(quality),
        )

    def check(self) -> tuple[int, list[DamagedEntry]]:
        """Every entry read and checked against its seal: (entries checked, the damaged ones)."""
        checked, damaged = 0, []
        for kind in ENTRY_KINDS:
            for path in self._files(kind):
                try:
                    data = path.read_bytes()
                except OSError:
                    continue  # removed meanwhile by a pruner
                checked += 1
                key = path.name.removesuffix(_SUFFIX[kind])
                if open_entry(kind, key, data) is None:
                    damaged.append(DamagedEntry(kind, path))
        return checked, damaged

    def prune(self, max_bytes: int) -> tuple[int, int]:
        """Remove least-recently-used entries until the cache holds at most ``max_bytes``.

        Returns (entries removed, bytes freed).
        """
        sized = []
        for kind in ENTRY_KINDS:
            for path in self._files(kind):
                try:
                    stat = path.stat()
                except OSError:
                    continue  # removed meanwhile by another pruner
                sized.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in sized)
        removed = freed = 0
        for _, size, path in sorted(sized):
            if total <= max_bytes:
                break
            try:
                path.unlink(missing_ok=True)
            except OSError:  # a read-only cache is left as it is
                continue
            total -= size
            freed += size
            removed += 1
        return removed, freed

"""Joining the results of a split run (``--tts-shard I/N``) into one run: ``ttsbench merge``.

Shards are only parts of one run when they were made with the same configuration: the same
engines and settings, the same recognizer, the same case files, the same plugin. Their run
headers (see provenance.py) must agree on all of it, every shard 1..N must be there exactly
once, and no item may appear in two shards; anything else is refused with the file and the
difference named, since a gate over a mismatched or partial merge would be a false green.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ttsbench.run_model.manifest import RUN_RESULTS_NAME, ManifestError, verify_recorded_run, write_manifest
from pytest_ttsbench.run_model.provenance import RunHeader, differences, header_path, read_header, write_header
from pytest_ttsbench.run_model.reader import results_file
from pytest_ttsbench.run_model.reruns import claimed_output
from pytest_ttsbench.run_model.results import ItemResult, read_results, write_results
from pytest_ttsbench.run_model.sharding import parse_shard


class MergeError(ValueError):
    """Shards that cannot be joined; the message names the file and the reason."""


@dataclass
class MergedRun:
    header: RunHeader
    rows: list[ItemResult]
    #: shards read though they do not match their manifest (--allow-unverified): the merged run then gets
    #: no manifest of its own, so it is never taken for a verified run
    unverified: tuple[str, ...] = ()


def _load(path: Path, allow_unverified: bool) -> tuple[Path, RunHeader, list[ItemResult], tuple[str, ...]]:
    file = results_file(path)
    try:  # a shard that does not match its manifest (a verdict edited, a row dropped) is refused
        unverified = verify_recorded_run(file, allow_unverified=allow_unverified)
    except ManifestError as exc:
        raise MergeError(str(exc)) from None
    header = read_header(file)
    if header is None:
        raise MergeError(
            f"{file}: no run header ({header_path(file).name}) beside it; only runs that have one can be merged"
        )
    rows = read_results(file)
    return file, header, rows, unverified


def merge_runs(paths: Sequence[Path], *, allow_partial: bool = False, allow_unverified: bool = False) -> MergedRun:
    """One run from the shards at ``paths`` (results files or run folders), each checked against its manifest."""
    if not paths:
        raise MergeError("no shards given")
    read = [_load(path, allow_unverified) for path in paths]
    loaded = [(file, header, rows) for file, header, rows, _ in read]
    unverified = tuple(note for *_, notes in read for note in notes)
    first_file, first, _ = loaded[0]
    for file, header, _ in loaded[1:]:
        # Each shard records the Whisper models of the languages it heard; those are compared below.
        changed = differences(_without_models(first), _without_models(header))
        if changed:
            raise MergeError(
                f"{file}: made with another configuration than {first_file}: "
                + "; ".join(changed[:5])
                + (f" (and {len(changed) - 5} more)" if len(changed) > 5 else "")
            )
    shards, missing = _check_shards(loaded, allow_partial)
    seen: dict[tuple[str, str, int], Path] = {}
    rows: list[ItemResult] = []
    for file, _, shard_rows in loaded:
        for row in shard_rows:
            key = (row.engine, row.key, row.repeat)
            if key in seen and seen[key] != file:
                raise MergeError(f"{file}: item {row.key} [{row.engine}] repeat {row.repeat} is also in {seen[key]}")
            seen[key] = file
            rows.append(row)
    created = min(header.created_at for _, header, _ in loaded)
    asr = _merged_models([(file, header) for file, header, _ in loaded])
    # A partial merge carries its gap: `ttsbench gate` fails on a shard that never ran unless told otherwise.
    header = dataclasses.replace(
        first,
        created_at=created,
        shard=None,
        shards=shards,
        missing_shards=missing,
        asr=asr,
        selected=_merged_selection([header for _, header, _ in loaded]),
        # an engine some shard could not start: its share of the targets has no rows
        unavailable={engine: why for _, header, _ in loaded for engine, why in header.unavailable.items()},
        collected_ids=_merged_collected_ids([header for _, header, _ in loaded]),
    )
    return MergedRun(header, rows, unverified)


def _merged_selection(headers: Sequence[RunHeader]) -> dict[str, int] | None:
    """What the shards selected together (each selects its own share); None when a shard does not say."""
    if any(header.selected is None for header in headers):
        return None
    total: dict[str, int] = {}
    for header in headers:
        for engine, count in (header.selected or {}).items():
            total[engine] = total.get(engine, 0) + count
    return total


def _merged_collected_ids(headers: Sequence[RunHeader]) -> dict[str, list[str]] | None:
    """What the shards collected together (each collects every item, then runs its share); None
    when a shard does not say."""
    if any(header.collected_ids is None for header in headers):
        return None
    together: dict[str, set[str]] = {}
    for header in headers:
        for engine, ids in (header.collected_ids or {}).items():
            together.setdefault(engine, set()).update(ids)
    return {engine: sorted(ids) for engine, ids in sorted(together.items())}


def _without_models(header: RunHeader) -> RunHeader:
    asr = {
        engine: [{k: v for k, v in route.items() if k != "models"} for route in routes]
        for engine, routes in header.asr.items()
    }
    return dataclasses.replace(header, asr=asr)


def _merged_models(headers: Sequence[tuple[Path, RunHeader]]) -> dict[str, list[dict[str, Any]]]:
    """The first header's routes with every shard's per-language models; one language, one model."""
    first = headers[0][1]
    merged = copy.deepcopy(first.asr)
    for file, header in headers:
        for engine, routes in header.asr.items():
            for index, route in enumerate(routes):
                target = merged[engine][index].setdefault("models", {}) if route.get("models") else None
                for language, model in (route.get("models") or {}).items():
                    assert target is not None
                    if language in target and target[language] != model:
                        raise MergeError(
                            f"{file}: route {route.get('name')} of {engine} heard {language!r} with another model "
                            f"({model}) than another shard ({target[language]})"
                        )
                    target[language] = model
    return merged


def _check_shards(
    loaded: Sequence[tuple[Path, RunHeader, list[ItemResult]]], allow_partial: bool
) -> tuple[list[str], list[str]]:
    """The shards' ``I/N`` labels and those missing, after checking that together they are the whole run."""
    labels: dict[int, Path] = {}
    counts: set[int] = set()
    unsharded = [file for file, header, _ in loaded if header.shard is None]
    if unsharded and len(loaded) > 1:
        raise MergeError(f"{unsharded[0]}: not a shard (run without --tts-shard); it cannot be merged with others")
    for file, header, _ in loaded:
        if header.shard is None:
            continue
        shard = parse_shard(header.shard, f"{header_path(file)}: field shard")
        counts.add(shard.count)
        if shard.index in labels:
            raise MergeError(f"{file}: shard {shard} is also {labels[shard.index]}")
        labels[shard.index] = file
    if len(counts) > 1:
        raise MergeError(f"shards of different splits: {', '.join(f'/{n}' for n in sorted(counts))}")
    if counts:
        count = counts.pop()
        missing = sorted(set(range(1, count + 1)) - labels.keys())
        if missing and not allow_partial:
            raise MergeError(
                f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing: a gate over part of a run "
                "would pass items it never ran (--allow-partial merges them anyway)"
            )
        return [f"{i}/{count}" for i in sorted(labels)], [f"{i}/{count}" for i in missing]
    return [], []


def output_results_path(out: Path) -> Path:
    """``-o RUN``: a ``.jsonl`` file as named, anything else a run folder holding ``results.jsonl``."""
    return out if out.suffix == ".jsonl" else out / RUN_RESULTS_NAME


def write_merged(run: MergedRun, out: Path) -> Path:
    """Write the merged results and their run header; returns the results file."""
    results = output_results_path(out)
    with claimed_output(results, "ttsbench merge"):
        if results.exists():
            raise MergeError(f"{results}: already exists; merge into a new file or folder")
        write_header(header_path(results), run.header)
        write_results(results, run.rows)
        if not run.unverified:  # what the merged run is, for every later reader to check
            write_manifest(results, inputs=())
    return results

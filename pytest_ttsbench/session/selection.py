"""What a run's collection left out: items in languages an engine is not fit for, and deselected counts.

Under pytest-xdist the controller collects nothing: every worker collects and deselects on its own
and the controller's closing line would lose the deselected count. Each worker therefore sends
what it left out (:func:`worker_report`), and the controller takes it from the first worker that
finishes (they all collect the same items; :func:`merge_worker_report`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ttsbench.cases.loader import CASE_SUFFIXES
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.languages import LanguageSkip, fits, language_skips

if TYPE_CHECKING:
    from pytest_ttsbench.session.benchmark import BenchConfig

SELECTION_KEY = pytest.StashKey["Selection"]()
# A benchmark item's node id: ``<case file>::<suite>[<category>/<id>...]``, the engine's name last but
# for a repeat when several engines run (collect.case_test_name).
_CASE_TEST = re.compile(r"^(?P<file>[^:]+)::[a-z0-9-]+\[(?P<name>.+)\]\Z")


def selected_by_engine(node_ids: Sequence[str], engines: Sequence[str]) -> dict[str, int]:
    """Test items per engine among collected node ids (what a pytest-xdist worker reports as its
    collection ends), as :meth:`~pytest_ttsbench.session.benchmark.BenchSession.count_selected` counts
    them where the items themselves are at hand. A node id not of a case file's item counts for none."""
    counts = dict.fromkeys(engines, 0)
    # the leftmost "-<engine>[-r<N>]" that ends the name: an item id or an engine may itself end in -r<N>
    tail = re.compile("-(" + "|".join(map(re.escape, sorted(engines, key=len, reverse=True))) + r")(?:-r\d+)?\Z")
    for node_id in node_ids:
        found = _CASE_TEST.match(node_id)
        if found is None or not found["file"].endswith((*CASE_SUFFIXES, ".jsonl")):
            continue
        if len(engines) == 1:
            counts[engines[0]] += 1
            continue
        engine = tail.search(found["name"])
        if engine is not None:
            counts[engine[1]] += 1
    return counts


@dataclass
class Selection:
    """Per pytest process: what collection left out, for the summary and the closing line."""

    language_skips: list[LanguageSkip] = field(default_factory=list)
    #: node ids of every item deselected in this process (by -k, -m or the language skip)
    deselected: list[str] = field(default_factory=list)
    #: on the controller under xdist: whether a worker's report was merged already
    merged: bool = False


@dataclass(frozen=True)
class DeselectedOnWorker:
    """Stands in the controller's terminal statistics for an item a worker deselected."""

    nodeid: str


def selection_of(config: pytest.Config) -> Selection:
    return config.stash.setdefault(SELECTION_KEY, Selection())


def profile_languages(profile: EngineProfile) -> tuple[str, ...] | None:
    """The profile's own ``languages``, else what its adapter declares (``fit_languages``), else None."""
    if profile.languages is not None:
        return profile.languages
    from pytest_ttsbench.engines.registry import adapter_module

    try:
        module = adapter_module(profile.type)
    except ImportError:  # an adapter whose dependency is missing says so when it synthesizes
        return None
    declare = getattr(module, "fit_languages", None)
    if declare is None:
        return None
    declared = declare(profile)
    return tuple(declared) if declared is not None else None


def leave_out_unfit_languages(
    session: pytest.Session, items: Sequence[pytest.Item], profiles: Mapping[str, EngineProfile]
) -> tuple[list[pytest.Item], list[pytest.Item], list[LanguageSkip]]:
    """Split ``items`` into kept and left out: a benchmark item whose language its engine's profile is not
    fit for is left out, unless its case file was named on the command line. ``profiles``: engine name →
    :class:`~pytest_ttsbench.config.EngineProfile` of the selected engines."""
    fit = {name: langs for name, profile in profiles.items() if (langs := profile_languages(profile)) is not None}
    if not fit:
        return list(items), [], []
    kept: list[pytest.Item] = []
    left_out: list[pytest.Item] = []
    for item in items:
        engine = getattr(item, "engine", None)
        case = getattr(item, "case", None)
        if (
            engine in fit
            and case is not None
            and not fits(fit[engine], case.language)
            and not session.isinitpath(item.path)
            and not getattr(item.parent, "named", False)
        ):
            left_out.append(item)
        else:
            kept.append(item)
    pairs = [(item.engine, item.case.language) for item in left_out]  # type: ignore[attr-defined]
    return kept, left_out, language_skips(pairs, fit)


def worker_report(selection: Selection) -> dict[str, Any]:
    """What a worker sends the controller about its selection (JSON-able, for ``workeroutput``)."""
    return {
        "language_skips": [skip.to_dict() for skip in selection.language_skips],
        "deselected": list(selection.deselected),
    }


def merge_worker_report(selection: Selection, report: Mapping[str, Any] | None) -> list[DeselectedOnWorker]:
    """Take the first worker's report; returns what the controller's closing line must count as deselected."""
    if not report or selection.merged:
        return []
    selection.merged = True
    selection.language_skips = [LanguageSkip.from_dict(skip) for skip in report["language_skips"]]
    selection.deselected = list(report["deselected"])
    return [DeselectedOnWorker(nodeid) for nodeid in selection.deselected]


def merge_worker_selection(config: pytest.Config, report: Mapping[str, Any] | None) -> None:
    """On the controller: take a worker's selection report; its deselected items count in the closing line."""
    deselected = merge_worker_report(selection_of(config), report)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if deselected and reporter is not None:
        reporter.stats.setdefault("deselected", []).extend(deselected)


def keep_selected(session: pytest.Session, items: list[pytest.Item], bench: BenchConfig) -> None:
    """Keep this shard's items (``--tts-shard``), then leave out items in languages an engine profile is
    not fit to be judged on (see languages.py); pytest is told what each step deselects.

    A synthesize-only run judges nothing (its clips may be scored later by other means): it keeps them.
    """
    from pytest_ttsbench.run_model.sharding import parse_shard, select
    from pytest_ttsbench.session.collect import shard_key

    config = session.config
    if bench.shard is not None:
        kept, dropped = select(items, parse_shard(bench.shard), shard_key)
        _deselect(config, items, kept, dropped)
    if not bench.engine_names or bench.synth_only or config.getoption("tts_all_languages"):
        return
    profiles = {name: bench.settings.engines[name] for name in bench.engine_names}
    kept, left_out, skips = leave_out_unfit_languages(session, items, profiles)
    selection_of(config).language_skips = skips
    _deselect(config, items, kept, left_out)


def _deselect(config: pytest.Config, items: list[pytest.Item], kept: list[Any], dropped: list[Any]) -> None:
    if dropped:
        items[:] = kept
        config.hook.pytest_deselected(items=dropped)

"""Records are written by one mechanism, and what they write did not change (issue 27, item 6).

Gate files, run headers, caches and reports hold these records' dictionaries, and users'
baselines and dashboards compare them byte for byte. Each ``OLD_*`` function below is the
hand-written ``to_dict`` body as it stood before the records moved to
:func:`pytest_ttsbench.support.record_dicts.record_dict`; the property test draws instances of each class
and checks that the record writes exactly what the old body wrote: the same keys in the same order,
the same values of the same types, the same JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from result_rows import make_result

from pytest_ttsbench.figures.summary import Bucket, RouteFigures
from pytest_ttsbench.gating.baseline import (
    AudioChange,
    CategoryComparison,
    Change,
    Comparison,
    ContentChange,
    RegressionRule,
    Side,
    _round,
)
from pytest_ttsbench.gating.bounds import Judged
from pytest_ttsbench.gating.coverage import EngineCoverage
from pytest_ttsbench.gating.latency import LatencyChange, LatencyCheck
from pytest_ttsbench.gating.quality import QualityCheck
from pytest_ttsbench.languages import LanguageSkip
from pytest_ttsbench.listening.workflow import MEASURES, AdapterFacts, FirstAudio, WorkflowReport
from pytest_ttsbench.quality.measures import MEASURES as QUALITY_MEASURES
from pytest_ttsbench.quality.repeats import GenerationSpread
from pytest_ttsbench.quality.summary import MeasureSummary
from pytest_ttsbench.run_model.known_gaps import Gap
from pytest_ttsbench.run_model.repeats import RepeatedItem
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, WRITTEN_WHEN_SET, record_dict, written_as

# --- the old bodies, verbatim but for ``self`` ------------------------------------------------


def OLD_measure_summary(self: MeasureSummary) -> dict[str, Any]:
    return {
        "n": self.n,
        "mean": self.mean,
        "median": self.median,
        "p10": self.p10,
        "ci95": None if self.ci95 is None else list(self.ci95),
    }


def OLD_generation_spread(self: GenerationSpread) -> dict[str, Any]:
    return {
        "engine": self.engine,
        "key": self.key,
        "generations": self.generations,
        "spread": dict(self.spread),
        "std": dict(self.std),
        "between_generations_similarity": self.speaker_similarity,
    }


def OLD_language_skip(self: LanguageSkip) -> dict[str, object]:
    return {"engine": self.engine, "counts": dict(self.counts), "languages": list(self.languages)}


def OLD_regression_rule(self: RegressionRule) -> dict[str, Any]:
    return {"alpha": self.alpha, "max_count": self.max_count, "max_rate": self.max_rate}


def OLD_route_figures(self: RouteFigures) -> dict[str, Any]:
    return {
        "n": self.n,
        "correct": self.correct,
        "wrong": self.wrong,
        "unknown": self.unknown,
        "error": self.error,
        "strict_accuracy": self.strict_accuracy,
    }


def OLD_bucket(self: Bucket) -> dict[str, Any]:
    ci = self.ci95
    counts = OLD_route_figures(self)
    strict = counts.pop("strict_accuracy")
    return {
        **counts,
        "excluded": self.excluded,
        "strict_accuracy": strict,
        "coverage": self.coverage,
        "resolved_accuracy": self.resolved_accuracy,
        "unknown_rate": self.unknown_rate,
        "disagreement_rate": self.disagreement_rate,
        "ci95": None if ci is None else [ci[0], ci[1]],
        "routes": {name: OLD_route_figures(figures) for name, figures in sorted(self.routes.items())},
    }


def OLD_latency_check(self: LatencyCheck) -> dict[str, Any]:
    return {
        "engine": self.engine,
        "figure": self.metric,
        "budget_seconds": self.budget,
        "measured_seconds": self.measured,
        "requests": self.n,
        "status": self.status,
    }


def OLD_latency_change(self: LatencyChange) -> dict[str, Any]:
    return {
        "engine": self.engine,
        "figure": self.metric,
        "baseline_seconds": self.baseline,
        "candidate_seconds": self.candidate,
        "ratio": self.ratio,
        "tolerance": self.tolerance,
        "slower_than_tolerated": self.slower,
    }


def OLD_bound(self: Judged) -> dict[str, Any]:
    return {
        "kind": self.kind,
        "name": self.name,
        "source": self.source,
        "engine": self.engine,
        "status": self.status,
        "detail": self.detail,
    }


def OLD_engine_coverage(self: EngineCoverage) -> dict[str, Any]:
    return {
        "engine": self.engine,
        "selected": self.selected,
        "measured": self.measured,
        "errors": self.errors,
        "unavailable": self.unavailable,
    }


def OLD_gap(self: Gap) -> dict[str, str]:
    data = {"id": self.id, "reason": self.reason}
    if self.link:
        data["link"] = self.link
    return data


def OLD_repeated_item(self: RepeatedItem) -> dict[str, Any]:
    return {
        "engine": self.engine,
        "key": self.key,
        "verdict": self.verdict,
        "verdicts": list(self.verdicts),
        "correct_rate": round(self.correct_rate, 4),
        "flaky": self.flaky,
        "consistent": self.consistent,
        "audio_varies": self.audio_varies,
    }


def OLD_side(self: Side) -> dict[str, Any]:
    return {
        "verdicts": [row.verdict for row in self.rows],
        "correct_rate": round(self.rate, 4),
        "flaky": self.flaky,
        "transcripts": [row.transcript for row in self.rows],
        "audio_paths": [row.audio_path for row in self.rows],
        "audio_seconds": _round(self.seconds),
        "chars_per_second": _round(self.chars_per_second),
    }


def OLD_change(self: Change) -> dict[str, Any]:
    return {
        "id": self.id,
        "kind": self.kind,
        "category": self.category,
        "text": self.text,
        "before": OLD_side(self.before),
        "after": OLD_side(self.after),
        "duration_ratio": _round(self.duration_ratio),
    }


def OLD_quality_check(self: QualityCheck) -> dict[str, Any]:
    return {
        "engine": self.engine,
        "suite": self.suite,
        "category": self.category,
        "measure": self.measure,
        "kind": self.kind,
        "limit": self.limit,
        "mean": self.figure,
        "n": self.n,
        "ci95": None if self.ci95 is None else list(self.ci95),
        "baseline_mean": self.baseline,
        "source": self.source,
        "status": self.status,
        "breached": self.breached,
        "models": list(self.models),
        "baseline_models": list(self.baseline_models),
        "models_differ": self.models_differ,
    }


def OLD_first_audio(self: FirstAudio) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        **asdict(self),
        "attempts": len(self.seconds) + self.failed,
        "median": self.median,
        "min": min(self.seconds) if self.seconds else None,
        "max": max(self.seconds) if self.seconds else None,
        "measure_label": MEASURES.get(self.measure, "mixed: some attempts streamed, some not"),
    }


def OLD_workflow_report(self: WorkflowReport) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "first_audio": [OLD_first_audio(row) for row in self.first_audio],
        "adapters": [asdict(a) for a in self.adapters],
    }


def OLD_category_comparison(self: CategoryComparison) -> dict[str, Any]:
    return {
        "regressions": list(self.regressions),
        "fixes": list(self.fixes),
        "flaky": list(self.flaky),
        "unchanged": self.unchanged,
        "mcnemar_p": self.mcnemar_p,
    }


def OLD_comparison(self: Comparison) -> dict[str, Any]:
    data = OLD_category_comparison(self)
    mcnemar_p = data.pop("mcnemar_p")
    data.update(new=list(self.new), missing=list(self.missing), mcnemar_p=mcnemar_p)
    data["changed"] = list(self.changed)
    data["changed_details"] = [self.changed_details[cid].to_dict() for cid in self.changed]
    data["by_category"] = {name: OLD_category_comparison(cat) for name, cat in sorted(self.by_category.items())}
    data["details"] = [OLD_change(change) for change in self.details.values()]
    data["audio"] = self.audio.to_dict() if self.audio else None
    data.update(
        changes=list(self.changes),
        recognizer_changes=list(self.recognizer_changes),
        provenance_note=self.provenance_note,
    )
    return data


# --- instances ----------------------------------------------------------------------------------

names = st.text(max_size=8)
counts = st.integers(min_value=0, max_value=50)
figures = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
optional_figures = st.none() | figures
seconds = st.floats(min_value=0.001, max_value=1e4, allow_nan=False)
pairs = st.tuples(figures, figures)
verdicts = st.sampled_from(["correct", "wrong", "unknown", "error"])
name_tuples = st.lists(names, max_size=3).map(tuple)


def _sides() -> st.SearchStrategy[Side]:
    row = st.builds(
        make_result,
        verdict=verdicts,
        transcript=st.none() | names,
        audio_path=st.none() | names,
        audio_seconds=st.none() | seconds,
        text=st.text(min_size=0, max_size=12),
    )
    return st.lists(row, min_size=1, max_size=3).map(lambda rows: Side(tuple(rows)))


route_figures = st.builds(RouteFigures, counts, counts, counts, counts, counts)


id_lists = st.lists(names, max_size=3)
category_comparisons = st.builds(CategoryComparison, id_lists, id_lists, counts, id_lists)
changes = st.builds(Change, names, st.sampled_from(["regression", "fix", "flaky"]), names, names, _sides(), _sides())


def _comparisons() -> st.SearchStrategy[Comparison]:
    row = st.builds(make_result, text=names)
    content_change = st.builds(lambda i, f, b, a: (i, ContentChange(i, f, b, a)), names, name_tuples, row, row)
    audio = st.builds(AudioChange, st.integers(1, 9), seconds, seconds, counts)
    return st.lists(content_change, max_size=2).flatmap(
        lambda changed: st.builds(
            Comparison,
            id_lists,
            id_lists,
            counts,
            id_lists,
            new=id_lists,
            missing=id_lists,
            changed=st.just([i for i, _ in changed]),
            changed_details=st.just(dict(changed)),
            by_category=st.dictionaries(names, category_comparisons, max_size=2),
            single_engine=st.booleans(),
            details=st.dictionaries(names, changes, max_size=2),
            audio=st.none() | audio,
            changes=id_lists,
            recognizer_changes=id_lists,
            provenance_note=st.none() | names,
        )
    )


RECORDS: dict[type, tuple[st.SearchStrategy[Any], Callable[[Any], Any]]] = {
    MeasureSummary: (
        st.builds(MeasureSummary, counts, optional_figures, optional_figures, optional_figures, st.none() | pairs),
        OLD_measure_summary,
    ),
    GenerationSpread: (
        st.builds(
            GenerationSpread,
            names,
            names,
            counts,
            st.dictionaries(names, figures, max_size=3),
            st.dictionaries(names, figures, max_size=3),
            optional_figures,
        ),
        OLD_generation_spread,
    ),
    LanguageSkip: (
        st.builds(LanguageSkip, names, st.dictionaries(names, counts, max_size=3), name_tuples),
        OLD_language_skip,
    ),
    RegressionRule: (
        st.builds(RegressionRule, figures, st.none() | counts, optional_figures),
        OLD_regression_rule,
    ),
    RouteFigures: (route_figures, OLD_route_figures),
    Bucket: (
        st.tuples(counts, counts, counts, counts).flatmap(
            lambda c: st.builds(
                Bucket,
                st.just(sum(c)),
                *map(st.just, c),
                excluded=counts,
                disagreements=counts,
                multi_route=counts,
                routes=st.dictionaries(names, route_figures, max_size=3),
            )
        ),
        OLD_bucket,
    ),
    LatencyCheck: (
        st.builds(LatencyCheck, names, names, seconds, st.none() | seconds, counts),
        OLD_latency_check,
    ),
    LatencyChange: (
        st.builds(LatencyChange, names, names, st.just(0.0) | seconds, seconds, seconds),
        OLD_latency_change,
    ),
    Judged: (st.builds(Judged, names, names, names, names, st.none() | names, names), OLD_bound),
    EngineCoverage: (
        st.builds(EngineCoverage, names, st.none() | counts, counts, st.none() | names, counts),
        OLD_engine_coverage,
    ),
    Gap: (st.builds(Gap, names, names, st.none() | names), OLD_gap),
    RepeatedItem: (
        st.integers(min_value=1, max_value=4).flatmap(
            lambda k: st.builds(
                RepeatedItem,
                names,
                names,
                verdicts,
                st.lists(verdicts, min_size=k, max_size=k).map(tuple),
                st.lists(st.none() | names, min_size=k, max_size=k).map(tuple),
                st.lists(st.none() | names, max_size=k).map(tuple),
            )
        ),
        OLD_repeated_item,
    ),
    Change: (
        st.builds(Change, names, st.sampled_from(["regression", "fix", "flaky"]), names, names, _sides(), _sides()),
        OLD_change,
    ),
    QualityCheck: (
        st.builds(
            QualityCheck,
            names,
            names,
            names,
            st.sampled_from([m.name for m in QUALITY_MEASURES]),
            st.sampled_from(["floor", "ceiling", "tolerance"]),
            figures,
            optional_figures,
            counts,
            st.none() | pairs,
            names,
            optional_figures,
            name_tuples,
            name_tuples,
            st.booleans(),
        ),
        OLD_quality_check,
    ),
    FirstAudio: (
        st.builds(
            FirstAudio,
            names,
            names,
            st.sampled_from([*MEASURES, "mixed"]),
            st.lists(seconds, max_size=4),
            counts,
        ),
        OLD_first_audio,
    ),
    CategoryComparison: (category_comparisons, OLD_category_comparison),
    Comparison: (_comparisons(), OLD_comparison),
    WorkflowReport: (
        st.builds(
            WorkflowReport,
            st.lists(
                st.builds(
                    FirstAudio, names, names, st.sampled_from([*MEASURES]), st.lists(seconds, max_size=3), counts
                ),
                max_size=2,
            ),
            st.lists(
                st.builds(AdapterFacts, names, names, st.lists(names, max_size=2), st.lists(names, max_size=2)),
                max_size=2,
            ),
        ),
        OLD_workflow_report,
    ),
}


def _same(new: Any, old: Any) -> bool:
    """Equal, with the same types and the same key order all the way down (NaN-free values)."""
    if type(new) is not type(old):
        return False
    if isinstance(new, dict):
        return list(new) == list(old) and all(_same(new[k], old[k]) for k in new)
    if isinstance(new, list):
        return len(new) == len(old) and all(_same(a, b) for a, b in zip(new, old, strict=True))
    return bool(new == old)


@pytest.mark.parametrize("record_type", list(RECORDS), ids=lambda t: t.__name__)
@given(data=st.data())
def test_a_record_writes_what_its_hand_written_body_wrote(record_type: type, data: st.DataObject) -> None:
    strategy, old = RECORDS[record_type]
    record = data.draw(strategy)
    written = record.to_dict()
    assert _same(written, old(record)), (written, old(record))
    assert json.dumps(written, ensure_ascii=False) == json.dumps(old(record), ensure_ascii=False)


# --- the mechanism itself -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Probe:
    name: str
    figure: float = field(metadata=written_as("mean"))
    note: str | None = field(default=None, metadata=WRITTEN_WHEN_SET)
    cache: tuple[int, ...] = field(default=(), metadata=NOT_WRITTEN)
    parts: tuple[Gap, ...] = ()


def test_fields_in_order_renamed_left_out_then_computed() -> None:
    probe = _Probe("a", 0.5, None, (1, 2), (Gap("x", link="L"),))
    assert list(record_dict(probe, computed={"twice": (1.0, 2.0)}).items()) == [
        ("name", "a"),
        ("mean", 0.5),
        ("parts", [{"id": "x", "reason": "", "link": "L"}]),
        ("twice", [1.0, 2.0]),
    ]
    assert record_dict(_Probe("a", 0.5, "n"))["note"] == "n"


def test_an_order_that_does_not_list_the_keys_is_refused() -> None:
    with pytest.raises(ValueError, match="does not list the keys"):
        record_dict(_Probe("a", 0.5), order=("mean", "name"))
    with pytest.raises(ValueError, match="both a field and a computed figure"):
        record_dict(_Probe("a", 0.5), computed={"name": "b"})
    assert list(record_dict(_Probe("a", 0.5), order=("parts", "mean", "name"))) == ["parts", "mean", "name"]

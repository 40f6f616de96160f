"""Identity across generations: each measure's spread per item, and speaker similarity between generations."""

from __future__ import annotations

from pathlib import Path

import pytest
from quality_clips import write_clip_wav
from result_rows import make_result

from pytest_ttsbench.gating.gate import GateOutcome
from pytest_ttsbench.quality.repeats import generation_spreads
from pytest_ttsbench.reporting.terminal import quality_gate_lines


def generations(key: str, figures: list[dict[str, float]], engine: str = "e", paths=None) -> list:
    return [
        make_result(
            engine=engine,
            id=key,
            repeat=i,
            quality=f,
            audio_path=str(paths[i]) if paths else None,
        )
        for i, f in enumerate(figures)
    ]


def test_spread_and_standard_deviation_per_item() -> None:
    rows = generations("s/a", [{"speaking_rate": 10.0, "peak_dbfs": -3.0}, {"speaking_rate": 13.0, "peak_dbfs": -3.0}])
    rows += generations("s/b", [{"speaking_rate": 11.0, "peak_dbfs": -6.0}])  # one generation: no spread
    rows += generations(
        "s/c", [{"speaking_rate": 9.0, "peak_dbfs": None}, {"speaking_rate": 9.0, "peak_dbfs": -1.0}, {}]
    )
    spreads = {s.key: s for s in generation_spreads(rows)}
    assert set(spreads) == {"s/a", "s/c"}
    assert spreads["s/a"].spread == {"peak_dbfs": 0.0, "speaking_rate": 3.0}
    assert spreads["s/a"].std["speaking_rate"] == pytest.approx(2.1213, abs=1e-4)
    # a measure missing in some generations is spread over the ones that have it; a clip with none is left out
    assert spreads["s/c"].generations == 2 and spreads["s/c"].spread == {"speaking_rate": 0.0}
    assert spreads["s/a"].speaker_similarity is None  # no encoder asked for

    outcome = GateOutcome(items=rows, quality_spreads=list(spreads.values()))
    lines = quality_gate_lines(outcome)
    assert lines[0].startswith("quality across generations")
    assert any(line.startswith("e       s/a ") and "3.00" in line for line in lines)


def test_similarity_between_generations_from_kept_clips(tmp_path: Path, espeak_clips, piper_clips) -> None:
    pytest.importorskip(
        "resemblyzer", reason='needs the [similarity] extra (torch): pip install "pytest-ttsbench[similarity]"'
    )
    from pytest_ttsbench.quality.similarity import between_generations

    same = [write_clip_wav(tmp_path / f"same-{i}.wav", clip) for i, clip in enumerate(espeak_clips[:2])]
    drift = [same[0], write_clip_wav(tmp_path / "other.wav", piper_clips[0])]
    rows = generations("s/same", [{"peak_dbfs": -3.0}] * 2, paths=same)
    rows += generations("s/drift", [{"peak_dbfs": -3.0}] * 2, paths=drift)
    spreads = {s.key: s for s in between_generations(generation_spreads(rows), rows)}
    assert spreads["s/same"].speaker_similarity > spreads["s/drift"].speaker_similarity

"""The Whisper-free duration control over an item's numeral forms, on hand-made rows."""

from __future__ import annotations

from result_rows import make_result

from pytest_ttsbench.figures.numeral_forms import duration_control


def clip(item: str, form: str, seconds: float | None, engine: str = "e") -> object:
    return make_result(engine=engine, suite="ar", id=f"ar/{item}-{form}", facets={"form": form}, audio_seconds=seconds)


def test_a_form_much_shorter_than_its_siblings_is_flagged() -> None:
    rows = [clip("years-01", "western", 4.0), clip("years-01", "arabic_indic", 4.2), clip("years-01", "spelled", 2.9)]
    (group,) = duration_control(rows)
    assert group.stem == "years-01"
    assert [c.form for c in group.flagged] == ["spelled"]
    spelled = {c.form: c for c in group.forms}["spelled"]
    assert spelled.ratio == round(2.9 / 4.1, 4)  # against the median of the two others


def test_forms_within_the_ratio_pass_and_the_ratio_is_a_parameter() -> None:
    rows = [clip("t", "western", 4.0), clip("t", "arabic_indic", 4.0), clip("t", "spelled", 3.5)]
    assert duration_control(rows)[0].flagged == []
    assert [c.form for c in duration_control(rows, min_ratio=0.9)[0].flagged] == ["spelled"]


def test_rows_without_a_clip_or_a_sibling_or_a_form_suffix_are_left_out() -> None:
    rows = [
        clip("a", "western", 4.0),
        clip("a", "spelled", None),  # synthesis failed: no length
        clip("b", "western", 4.0, engine="x"),
        clip("b", "spelled", 1.0, engine="y"),  # siblings on another engine are not siblings
        make_result(id="ar/c-west", facets={"form": "western"}, audio_seconds=3.0),  # id does not end in its form
    ]
    assert duration_control(rows) == []

"""The listeners' pages, rendered from Jinja2 templates with autoescaping.

Only anonymous facts reach a template: the clip id, its file name, the text spoken, the variety
the listener should judge against and what to attend to. The kit's key (systems, voices, paths)
is never passed in, so a template cannot leak it.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, PackageLoader, select_autoescape

from pytest_ttsbench.listening.scale import (
    CLIP_COLUMNS,
    CLIP_DIMENSIONS,
    CONSISTENCY,
    CONSISTENCY_COLUMNS,
    LEVELS,
    SCALE_MAX,
    SCALE_MIN,
    variety_label,
)

if TYPE_CHECKING:
    from pytest_ttsbench.listening.model import Kit, ListenerPlan


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("pytest_ttsbench.listening", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "j2"), default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _clip_view(kit: Kit, clip_id: str) -> dict[str, Any]:
    clip = kit.clips[clip_id]
    return {
        "id": clip_id,
        "src": f"clips/{kit.files[clip_id]}",
        "text": clip.text,
        "variety": variety_label(clip.variety),
        "focus": clip.focus or "",
    }


def _scale() -> dict[str, Any]:
    return {
        "levels": [{"value": v, "label": LEVELS[v]} for v in range(SCALE_MIN, SCALE_MAX + 1)],
    }


def render_listening_page(kit: Kit, plan: ListenerPlan) -> str:
    """One listener's page: every clip in their order, three 1–5 ratings and a notes field each."""
    return (
        _environment()
        .get_template("listening.html.j2")
        .render(
            listener=plan.listener,
            clips=[_clip_view(kit, cid) for cid in plan.clips],
            dimensions=CLIP_DIMENSIONS,
            scale=_scale(),
            columns=list(CLIP_COLUMNS),
            storage_key=f"ttsbench-listening/{kit.token}/{plan.listener}/clips",
            csv_name=f"{plan.listener}-ratings.csv",
        )
    )


def render_consistency_page(kit: Kit, plan: ListenerPlan) -> str:
    """One listener's consistency page: each group of generations together, one 1–5 rating each."""
    groups = [
        {
            "id": gid,
            "clips": [_clip_view(kit, cid) for cid in kit.groups[gid]],
        }
        for gid in plan.groups
    ]
    return (
        _environment()
        .get_template("consistency.html.j2")
        .render(
            listener=plan.listener,
            groups=groups,
            dimension=CONSISTENCY,
            scale=_scale(),
            columns=list(CONSISTENCY_COLUMNS),
            storage_key=f"ttsbench-listening/{kit.token}/{plan.listener}/consistency",
            csv_name=f"{plan.listener}-consistency.csv",
        )
    )

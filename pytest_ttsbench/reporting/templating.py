"""Jinja2 rendering for the HTML report and the dashboard, with autoescaping.

Templates live in ``reporting/templates/`` and stylesheets in ``reporting/static/``, both package
files. Every value a template prints is escaped unless it is :class:`markupsafe.Markup`: only
fragments this package built itself (a rendered table, a verdict badge, an audio player) are.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

if TYPE_CHECKING:
    from jinja2 import Environment


@cache
def environment() -> Environment:
    # Imported on first render: the plugin module imports this one in every pytest process.
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(
        loader=PackageLoader("pytest_ttsbench.reporting", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "j2"), default_for_string=True, default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **context: Any) -> Markup:
    """A template rendered with ``context``: trusted HTML to place in another page or template."""
    return Markup(environment().get_template(template).render(**context))


def macro(name: str, *args: Any) -> Markup:
    """One macro of ``macros.html.j2`` called with ``args``."""
    return Markup(getattr(environment().get_template("macros.html.j2").module, name)(*args))


@cache
def stylesheet(name: str) -> Markup:
    """A stylesheet shipped in ``reporting/static/`` (a package file, so trusted as it is)."""
    return Markup((files("pytest_ttsbench.reporting") / "static" / name).read_text(encoding="utf-8"))

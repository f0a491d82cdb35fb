"""A lint result as text in a chosen format: :func:`render` picks the renderer.

Apart from :mod:`skilllint.output`, whose helpers each renderer uses, so that the
package's helpers and its renderers do not import each other.
"""

from __future__ import annotations

from pathlib import Path

from . import resolve_format, safe_json_text


def prepare(fmt: str) -> None:
    """Import what :func:`render` will need for ``fmt``, before linting: orjson (some 4 ms with its
    imports) for a JSON or SARIF report, which the result cache then uses to read and write its
    files too (:func:`skilllint.lint.cache.folder.parse_json`: a warm run over a thousand skills
    parses some 2 MB of them). A run with a text report never imports it."""
    fmt = resolve_format(fmt)
    if fmt in ("json", "sarif"):
        from .json import json_writer

        json_writer()
        if fmt == "sarif":
            from . import sarif  # noqa: F401


def render(fmt: str, result, cwd: Path, color: bool = False, settings=None) -> str:
    """``result`` in format ``fmt`` (``auto`` resolved here). ``settings``: the
    run's resolved settings; SARIF lists their enabled rules."""
    fmt = resolve_format(fmt)
    if fmt == "sarif":
        from .sarif import render_sarif

        return safe_json_text(render_sarif(result, cwd, settings=settings))
    if fmt == "github":
        from .github import render_github

        return render_github(result, cwd)
    if fmt == "json":
        from .json import render_json

        return safe_json_text(render_json(result, cwd))
    if fmt == "concise":
        from .concise import render_concise

        return render_concise(result, cwd)
    from .full import render_full

    return render_full(result, cwd, color=color)

"""A lint result as text in a chosen format: :func:`render` picks the renderer.

Apart from :mod:`skilllint.output`, whose helpers each renderer uses, so that the
package's helpers and its renderers do not import each other.
"""

from __future__ import annotations

from pathlib import Path

from . import resolve_format, safe_json_text


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

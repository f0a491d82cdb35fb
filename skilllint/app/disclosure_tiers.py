"""`skilllint catalog --tiers`: what each disclosure tier of a skill costs.

* tier 1, every session: the skill's line in the catalog, exactly as the surface's render
  shows it (the receipt's own line: :mod:`skilllint.app.catalog_preview`);
* tier 2, on activation: the SKILL.md body, counted as SL202 counts it (its encoding
  setting included);
* tier 3, on demand: each bundled file the skill references, with the condition SKILL.md
  gives it for loading or running (:mod:`skilllint.skill.references.load_conditions`, what SL310
  judges); a file reached only through another file says which one.

Tokens are tiktoken's (:mod:`skilllint.skill.size.tokens`), offline. A file that is not UTF-8
text is given in bytes, not tokens.
"""

from __future__ import annotations

from ..catalog.model import Catalog
from ..fsafe import UnsafeFile, read_capped
from ..output import printable
from ..skill.size.tokens import DEFAULT_ENCODING, count_tokens
from ..skill.references.graph import reference_graph


def body_encoding(settings) -> str:
    """The encoding SL202 counts the body with in this run."""
    rule = settings.registry.rules.get("SL202") if settings is not None else None
    return settings.options_for(rule).get("encoding", DEFAULT_ENCODING) if rule is not None else DEFAULT_ENCODING


def catalog_tiers(catalog: Catalog, listed: list, settings) -> list[dict]:
    """The ladder of every linted skill of ``catalog``. ``listed``: the receipt's (skill, entry,
    rendered line) triples; a skill missing there, or with no line, is not listed."""
    encoding = body_encoding(settings)
    lines = {id(skill): line for skill, _, line in listed}
    return [skill_tiers(skill.package, skill.name, lines.get(id(skill), ""), encoding) for skill in catalog.skills if not skill.context]


def skill_tiers(package, name: str, line: str, encoding: str) -> dict:
    from ..skill.references.load_conditions import load_conditions

    body = package.body
    files = []
    conditions = {c.target: c for c in load_conditions(package)}
    lines = package.source.lines
    for target, depth, via in _reached(package):
        size, tokens = _cost(package, target, encoding)
        condition = conditions.get(target)
        entry = {"path": target, "depth": depth, "via": via, "bytes": size, "tokens": tokens, "condition": None}
        if condition is not None:
            text = lines[condition.line - 1].strip() if 0 < condition.line <= len(lines) else ""
            entry["condition"] = {"cue": condition.cue, "line": condition.line, "text": text}
        files.append(entry)
    return {
        "name": name,
        "path": str(package.skill_md_path),
        "encoding": encoding,
        "catalog_line": {"text": line, "characters": len(line), "tokens": count_tokens(line, encoding) if line else 0},
        "body": {"tokens": count_tokens(body, encoding), "lines": body.count("\n") + 1 if body else 0, "truncated": bool(package.truncated)},
        "files": files,
        "files_tokens": sum(f["tokens"] or 0 for f in files),
    }


def _reached(package):
    """(file, hops from SKILL.md, the file that first names it or None) for every bundled
    file the reference graph reaches, SKILL.md's own references first."""
    graph = reference_graph(package)
    skill_md = package.skill_md_name or "SKILL.md"
    seen = {skill_md}
    for reference in graph.references:
        target = reference.resolved
        if (
            reference.status != "ok"
            or reference.target_kind != "file"
            or target is None
            or target in seen
            or package.inventory.in_nested_skill(target)
        ):
            continue
        seen.add(target)
        source = reference.source
        yield target, graph.scanned.get(source, 0) + 1, None if source == skill_md else source


def _cost(package, rel: str, encoding: str) -> tuple[int | None, int | None]:
    """(bytes, tokens) of a bundled file; tokens None when it is not UTF-8 text, both None when
    it cannot be read."""
    text = reference_graph(package).texts.get(rel)
    if text is None:
        try:
            data = read_capped(package.root / rel, package.max_bytes).data
        except UnsafeFile:
            return None, None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return len(data), None
        if "\x00" in text:
            return len(data), None
    return len(text.encode("utf-8", "surrogatepass")), count_tokens(text, encoding)


def tiers_text(tiers: list[dict]) -> list[str]:
    """The ladders for a terminal (every text from the tree escaped)."""
    out = ["  Disclosure tiers:"]
    for skill in tiers:
        line = skill["catalog_line"]
        listed = f"{line['characters']:,} characters, {line['tokens']:,} tokens" if line["text"] else "not listed"
        body = skill["body"]
        out.append(f"  - {printable(skill['name'])} {printable(skill['path'])} ({skill['encoding']})")
        out.append(f"      tier 1, catalog line: {listed}")
        if line["text"]:
            out.append(f"        {printable(line['text'])}")
        out.append(f"      tier 2, body: {body['tokens']:,} tokens, {body['lines']:,} lines" + (" (SKILL.md read in part)" if body["truncated"] else ""))
        out.append(f"      tier 3, referenced files: {len(skill['files'])}, {skill['files_tokens']:,} tokens")
        for item in skill["files"]:
            cost = f"{item['tokens']:,} tokens" if item["tokens"] is not None else (f"{item['bytes']:,} bytes (not text)" if item["bytes"] is not None else "unreadable")
            if item["via"] is not None:
                when = f"reached through {printable(item['via'])} ({item['depth']} hops)"
            elif item["condition"] is None:
                when = "named by SKILL.md (not a document or script SL310 judges)"
            elif item["condition"]["cue"] is None:
                when = f"no load condition (SL310), SKILL.md line {item['condition']['line']}: {printable(item['condition']['text'])}"
            else:
                when = f"when: {item['condition']['cue']}, SKILL.md line {item['condition']['line']}: {printable(item['condition']['text'])}"
            out.append(f"        - {printable(item['path'])}: {cost}; {when}")
    return out

"""SL30x: references from SKILL.md and the files it references: missing, outside the package, too deep, unreferenced, miscased, folders, anchors."""

from __future__ import annotations

import posixpath
from typing import Iterator

from ...diagnostics import Finding, Related, Severity, Span
from ...skill.package import SkillPackage
from ...rule import Rule, RuleContext, severities

# -- SL301 / SL305 ----------------------------------------------------------------


class ReferenceMissing(Rule):
    code = "SL301"
    name = "reference-missing"
    summary = "A referenced file does not exist in the skill package"
    # skills-ref's verdict ignores references (docs/surfaces.md §1b): a warning there keeps its verdict exact.
    severity = severities("error: all; warning: skills-ref")
    content_rule = True
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.checks import NOUN, Places, Suggestions, fate_in_whole, folder_fixed_path, found_at_plugin_root, reached_from, retarget, rooted_kind, sibling_skill_named_by_holder, span, whole_folders, written_target

        if package.inventory.truncated:
            return  # the listing is partial: absence proves nothing
        where = Places(package)
        suggest = Suggestions(package)
        mentioned = {t: Severity.WARNING for t in ctx.target_ids}  # a path, not a link: a warning
        wholes = whole_folders(package, ctx.targets, ctx.settings)  # target -> the plugin it installs whole, or the skill a document is of
        for ref in reference_graph(package).references:
            if ref.status != "missing" or ref.case_match or sibling_skill_named_by_holder(package, ref):
                continue
            levels = None if ref.explicit else mentioned
            # A mentioned path the plugin installed whole with the skill holds at its root: found there.
            shipped = found_at_plugin_root(package, ref, wholes) if wholes else ()
            targets = tuple(t for t in ctx.target_ids if t not in shipped) if shipped else None
            if targets == ():
                continue
            if targets is not None:
                levels = {t: Severity.WARNING for t in targets}
            if not ctx.admits(where(ref.source), ref.line, levels, targets):
                continue  # over the cap per file: the suggestion and fix would not be shown
            noun = NOUN[ref.kind]
            message = f"{noun} {written_target(ref)} does not exist in the skill package"
            guess = suggest(ref.resolved or ref.path)
            if guess:
                message += f"; did you mean `{guess}`?"
            fixed = folder_fixed_path(package, ref)
            yield Finding(
                message,
                span(ref),
                path=where(ref.source),
                severities=levels,
                fix=retarget(package, ref, fixed) if fixed else None,
                related=reached_from(package, ref.source),
                targets=targets,
            )
        # A path that climbs out of the skill but stays in its plugin is judged, for the surfaces
        # that install the plugin whole, as a file of the plugin: there it is missing, not outside.
        # So is one that stays in the listed skill a nested skill is a document of.
        if not wholes:
            return
        for ref in reference_graph(package).references:
            if ref.status != "outside" or rooted_kind(ref.path) != "climbs":
                continue
            fate = fate_in_whole(package, ref, wholes)
            missing = tuple(t for t in ctx.target_ids if fate.get(t) is False)
            if not missing or sibling_skill_named_by_holder(package, ref):
                continue
            levels = None if ref.explicit else {t: Severity.WARNING for t in missing}
            if not ctx.admits(where(ref.source), ref.line, levels, missing):
                continue
            yield Finding(
                f"{NOUN[ref.kind]} {written_target(ref)} does not exist in {wholes[missing[0]].described}",
                span(ref),
                path=where(ref.source),
                severities=levels,
                related=reached_from(package, ref.source),
                targets=missing,
            )


# -- SL302 --------------------------------------------------------------------------


class ReferenceOutsidePackage(Rule):
    code = "SL302"
    name = "reference-outside-package"
    summary = "A reference leads outside the skill folder"
    severity = severities("error: all; warning: skills-ref")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.checks import NOUN, Places, climbed_to_existing, fate_in_whole, outside_message, reached_from, rooted_kind, span, whole_folders

        where = Places(package)
        rooted: dict[str, list] = {}  # source -> its root-relative web links, reported once per file
        wholes = whole_folders(package, ctx.targets, ctx.settings)  # target -> the plugin it installs whole, or the skill a document is of
        for ref in reference_graph(package).references:
            if ref.status != "outside":
                continue
            kind = rooted_kind(ref.path)
            if kind == "not a path":
                continue
            if kind == "site":
                rooted.setdefault(ref.source, []).append(ref)
                continue
            targets = None
            if kind == "climbs" and wholes:
                carried = fate_in_whole(package, ref, wholes)  # in it: fine, or SL301's missing file
                if carried:  # where the skill comes alone, the reference still leaves it
                    targets = tuple(t for t in ctx.target_ids if t not in carried)
                    if not targets:
                        continue
            if not ctx.admits(where(ref.source), ref.line, targets=targets):
                continue  # over the cap per file: the message would not be shown
            yield Finding(
                outside_message(package, ref, exists=climbed_to_existing(package, ref) if kind == "climbs" else None),
                span(ref),
                path=where(ref.source),
                related=reached_from(package, ref.source),
                targets=targets,
            )
        for source, refs in rooted.items():
            first = refs[0]
            more = f" ({len(refs) - 1} more root-relative links in this file)" if len(refs) > 1 else ""
            yield Finding(
                f"{NOUN[first.kind]} `{first.path}` is root-relative: the web site or repository viewer the text "
                "was written for resolves it against its own root, but an agent reading the skill has no such root "
                f"and finds no file there; write the full URL, or a path relative to this file{more}",
                span(first),
                path=where(source),
                related=reached_from(package, source),
            )


# =============================================================================
# SL303 reference-too-deep
# =============================================================================


class ReferenceTooDeep(Rule):
    code = "SL303"
    name = "reference-too-deep"
    summary = "A referenced file links on to a file SKILL.md does not reference (a chain longer than one hop)"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.disclosure_graph import NamedBy, RecordSections, beside_source, links_back, only_written, script_input
        from ...skill.references.disclosure_graph import in_linked_folder
        from ...skill.inventory import is_script
        from ...skill.references.resource_reach import SUPPORT_FILE, ReadByScripts

        graph = reference_graph(package)
        skill_md = package.skill_md_name or "SKILL.md"
        from_skill_md = [r for r in graph.references if r.source == skill_md and r.status == "ok"]
        direct = {r.resolved for r in from_skill_md}
        # A folder SKILL.md points at is one the agent lists: every file in it is one hop away.
        linked_folders = {posixpath.normpath(r.resolved) for r in from_skill_md if r.target_kind == "dir" and r.resolved}
        named = NamedBy(graph.texts.get(skill_md, ""), package.inventory)
        # The scripts SKILL.md links or names (`python scripts/fetch.py` in a fence is not a link).
        read_by_scripts = ReadByScripts(
            package, [e.rel for e in package.inventory.files() if is_script(e.rel) and (e.rel in direct or named.names(e.rel))]
        )
        records = RecordSections(graph)
        script_folders = {posixpath.dirname(e.rel) for e in package.inventory.files() if is_script(e.rel)}
        outputs: dict[str, bool] = {}
        reported: set[str] = set()
        # Each chain is reported once, from the file SKILL.md names that it starts at (its entry
        # point): an index tree the agent walks in order is one design decision, not one per page.
        entries: dict[str, list[tuple[object, list[str]]]] = {}
        for reference in graph.references:
            target = reference.resolved
            if (
                reference.source == skill_md
                or reference.status != "ok"
                or reference.target_kind != "file"
                or reference.kind == "image"  # an illustration, not a hop the agent follows
                or target is None
                or target in direct
                or target == skill_md
                or target == reference.source
                or target in reported
                or package.inventory.in_nested_skill(target)
                or SUPPORT_FILE.match(posixpath.basename(target))  # `pip install -r scripts/requirements.txt`
                or in_linked_folder(linked_folders, target)
            ):
                continue
            if links_back(graph, target, reference.source):
                continue  # "Back to: [Main README](../README.md)": a way back up, not a hop down
            if script_input(script_folders, reference.source, target):
                continue  # a script's README: "by default, uses `references/x.json`" is what the script reads
            if beside_source(package, reference):
                continue  # `README.md` in examples/README.md: the bare name means the file beside it
            if records.in_record(reference.source, reference.line):
                continue  # "- 2026-05-04: Added … `SPEC.md`": a changelog names what changed, points nowhere
            chain = graph.chain(reference.source) + [target]
            first = chain[1]  # the file SKILL.md names, the chain's first hop
            if first not in outputs:
                outputs[first] = only_written(package, graph, skill_md, first)
            if outputs[first]:
                continue  # SKILL.md has the agent write that file, not read it: no chain is followed
            reported.add(target)
            if named.names(target):
                continue  # SKILL.md names it by a pattern or by its file name
            if read_by_scripts.reads(target):
                continue  # a script SKILL.md runs opens it by name: the script reaches it, not a chain of pages
            entries.setdefault(first, []).append((reference, chain))
        for first, reached in entries.items():
            yield self._chain_finding(package, graph, first, reached)

    def _chain_finding(self, package: SkillPackage, graph, first: str, reached: list) -> Finding:
        from ...skill.references.disclosure_graph import hop_count, hop_notes, mention_span

        reference, chain = reached[0]
        deepest = max((c for _, c in reached), key=len)
        if len(reached) == 1:
            message = (
                f"`{chain[-1]}` is reached only through {hop_count(len(chain) - 1)}: "
                + " → ".join(chain)
                + "; reference it from SKILL.md or fold it into the file that links to it"
            )
        else:
            shown = [c[-1] for _, c in reached[:_CHAIN_FILES_SHOWN]]
            more = len(reached) - len(shown)
            message = (
                f"{len(reached)} files are reached only through `{first}`, up to {hop_count(len(deepest) - 1)} "
                f"from SKILL.md: " + ", ".join(f"`{t}`" for t in shown) + (f" and {more} more" if more else "")
                + f" (deepest: {' → '.join(deepest)}); reference them from SKILL.md or fold them into the files that link to them"
            )
        related = list(hop_notes(package, graph, deepest))
        for other, other_chain in reached[1:_CHAIN_FILES_SHOWN]:
            if other_chain is not deepest:
                related.append(Related(f"also reached only this way: {other_chain[-1]}", package.root / other.source, mention_span(other)))
        return Finding(message, mention_span(reference), path=package.root / reference.source, related=tuple(related))


# How many of the files one chain reaches a finding names (the count is always given).
_CHAIN_FILES_SHOWN = 5


class ResourceUnreferenced(Rule):
    code = "SL304"
    name = "resource-unreferenced"
    summary = "A bundled file that nothing in the package references"
    severity = severities("info: all")
    # No content_rule: for a nested skill Claude Code reads only as a document of a listed skill,
    # "nothing references it" is a question about that listed skill, whose own files may link the
    # nested folder's (zoom-plugin's meeting-sdk links `web/references/web.md`); this package's
    # graph does not hold those links, so the claim "the agent will not know it exists" is unfounded.

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.disclosure_graph import is_document
        from ...skill.inventory import is_script
        from ...skill.references.resource_reach import (
            MAX_RELATED,
            MAX_SCRIPT_BYTES,
            MAX_SCRIPT_FILES,
            Mentions,
            eval_folders,
            exempt,
            is_under,
            opaque_folders,
            read_text,
            readable_source,
            unreached_roots,
        )

        inventory = package.inventory
        if inventory.truncated:
            return  # a partial listing would report files that are referenced from the part not seen
        graph = reference_graph(package)
        if graph.cut is not None:
            return  # so would a partial reference scan
        skill_md = package.skill_md_name or "SKILL.md"
        referenced = {r.resolved for r in graph.references if r.status == "ok" and r.resolved}
        folders = {r.resolved for r in graph.references if r.status == "ok" and r.target_kind == "dir" and r.resolved}
        candidates = []
        for entry in inventory.files():
            rel = entry.rel
            if rel in referenced or rel == skill_md or exempt(rel) or inventory.in_nested_skill(rel):
                continue
            if is_under(rel, folders):
                continue
            candidates.append(rel)
        if not candidates:
            return
        # Sources the agent or a client reads: the reference graph's texts and other
        # readers of the package: a root README (people), agents/ (client manifests
        # such as agents/openai.yaml naming an icon), scripts (paths and imports in
        # code), whatever their place.
        queue = list(graph.texts.items())
        sources, named_texts = [], []
        for entry in inventory.files():
            rel = entry.rel
            if inventory.in_nested_skill(rel) or rel in graph.texts:
                continue
            if ("/" not in rel and rel.lower().startswith("readme")) or rel.startswith(("agents/", "scripts/")):
                sources.append(rel)
            elif rel in referenced and is_script(rel):
                sources.append(rel)
            elif (rel in referenced or is_under(rel, folders)) and readable_source(rel):
                # a document, schema or data file the skill names or holds in a folder it names:
                # each may name more files (read after the scripts, within the same bound)
                named_texts.append(rel)
        for rel in (sources + named_texts)[:MAX_SCRIPT_FILES]:
            text = read_text(package, rel, MAX_SCRIPT_BYTES)
            if text is not None:
                queue.append((rel, text))
        # Files named only by a file found here are referenced too: read each one found in turn.
        mentions = Mentions(candidates)
        unfound = {key: list(members) for key, members in mentions.groups.items()}
        left = set(candidates)
        while queue and left:
            source, text = queue.pop()
            for key, self_excluded in mentions.named_in(source, text).items():
                members = unfound[key]
                kept = []
                for rel in members:
                    if rel not in left:
                        continue
                    if self_excluded and rel == source:
                        kept.append(rel)
                        continue
                    left.discard(rel)
                    if is_document(rel) or rel.startswith("scripts/") or readable_source(rel):
                        found_text = read_text(package, rel, MAX_SCRIPT_BYTES)
                        if found_text is not None:
                            queue.append((rel, found_text))
                unfound[key] = kept
        # A file a missing reference names but for its extension (`templates/flow.json` for
        # `templates/flow.excalidraw`) is that reference's target: SL301 reports the reference.
        meant = set()
        for ref in graph.references:
            if ref.status == "missing" and ref.path:
                for base in ("", posixpath.dirname(ref.source)):
                    meant.add(posixpath.splitext(posixpath.normpath(posixpath.join(base, ref.path)))[0])
        pending = [rel for rel in candidates if rel in left and posixpath.splitext(rel)[0] not in meant]
        # A script the skill runs whose text cannot be read (empty, binary, too long to read whole)
        # may load any file beside it: none there is shown to be unreferenced.
        reached = [rel for rel in (*referenced, *(c for c in candidates if c not in left)) if is_script(rel)]
        unknown = opaque_folders(package, reached)
        # Eval cases (a prompt with what should come of it) and the folder that holds them are
        # the author's tests, not material for the agent, whatever the folder is called.
        unknown |= eval_folders(package, [rel for rel in pending if not is_under(rel, unknown)], referenced)
        if unknown:
            pending = [rel for rel in pending if not is_under(rel, unknown) and rel not in unknown]
        for rel, dependents in unreached_roots(package, pending):
            more = f"; {len(dependents)} more file{'s' if len(dependents) != 1 else ''} named only by it" if dependents else ""
            yield Finding(
                f"`{rel}` is bundled but nothing in the skill references it: the agent will not know it exists; "
                f"reference it from SKILL.md with when to use it, or remove it{more}",
                Span.point(1),
                path=package.root / rel,
                related=tuple(
                    Related(f"named only by {rel}: {dependent}", package.root / dependent, Span.point(1))
                    for dependent in dependents[:MAX_RELATED]
                ),
            )


class ReferenceCaseMismatch(Rule):
    code = "SL305"
    name = "reference-case-mismatch"
    summary = "A referenced file exists only with different letter case"
    severity = severities("error: all; warning: skills-ref")
    content_rule = True
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.checks import NOUN, Places, case_fixed_path, reached_from, retarget, span

        where = Places(package)
        for ref in reference_graph(package).references:
            if ref.status != "missing" or not ref.case_match:
                continue
            if not ctx.admits(where(ref.source), ref.line):
                continue
            real = ref.case_match
            kind = package.inventory.entries.get(real)
            what = "folder" if kind is not None and kind.kind == "dir" else "file"
            message = (
                f"{NOUN[ref.kind]} `{ref.path}` matches the {what} `{real}` only ignoring letter case: "
                "it works on macOS and Windows but not on Linux, whose file names are case-sensitive"
            )
            related = [Related(f"the {what} is named `{real}`", package.root / real, Span.point(1))]
            related.extend(reached_from(package, ref.source))
            fixed = case_fixed_path(package, ref)
            yield Finding(
                message,
                span(ref),
                path=where(ref.source),
                fix=retarget(package, ref, fixed) if fixed else None,
                related=tuple(related),
            )


# -- SL306 / SL311 ------------------------------------------------------------------


class ReferenceIsDirectory(Rule):
    code = "SL306"
    name = "reference-is-directory"
    summary = "A reference names a folder, not a file"
    severity = severities("warning: all")
    content_rule = True
    # Opt-in since issue 36: of 70 findings read on public skills none was clearly a defect. Authors
    # link folders on purpose (a template folder to copy whole, a per-stack file chosen at run time,
    # partials a script includes), and following one costs an agent one listing.
    opt_in = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.generic_pointers import called_a_folder, generic_pointers, names_files_around
        from ...skill.references.checks import NOUN, Places, files_below, reached_from, span, written_target

        generic = {(f.source, f.line, f.column) for f in generic_pointers(package, ctx.memo)}
        where = Places(package)
        for ref in reference_graph(package).references:
            if ref.status != "ok" or ref.target_kind != "dir":
                continue
            if (ref.source, ref.line, ref.column) in generic:
                continue  # SL311 over SL306
            if not ref.explicit and ref.raw.endswith("/"):
                continue  # `references/` written as a folder is a mention of the folder (SL311 judges pointers)
            if names_files_around(package, ctx.memo, ref):
                continue  # "the templates under [templates/](templates/): [a.md](templates/a.md), …"
            if called_a_folder(package, ctx.memo, ref):
                continue  # "search the `./canvas-fonts` directory": the author knows it is a folder
            if not ctx.admits(where(ref.source), ref.line):
                continue
            noun = NOUN[ref.kind]
            count = files_below(package, ref.resolved)
            yield Finding(
                f"{noun} {written_target(ref)} is a folder, not a file ({count} file{'s' if count != 1 else ''} in it): "
                "an agent cannot read a folder; link the file it should load",
                span(ref),
                path=where(ref.source),
                related=reached_from(package, ref.source),
            )


# -- SL307 --------------------------------------------------------------------------


class AnchorMissing(Rule):
    code = "SL307"
    name = "anchor-missing"
    summary = "A `#anchor` names no heading of the target document"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.text import markdown
        from ...skill.references.anchors import LINE_ANCHOR, anchors_of, closest_anchor
        from ...skill.references.checks import MARKDOWN_DOCUMENTS, MOST_CANDIDATES, Places, reached_from, span

        anchors: dict[str, tuple[dict[str, markdown.Heading], set[str], set[str]] | None] = {}
        place = Places(package)
        for ref in reference_graph(package).references:
            fragment = ref.fragment
            if not fragment or ref.status != "ok" or ref.target_kind != "file" or ref.resolved is None:
                continue
            target = ref.resolved
            if not target.lower().endswith(MARKDOWN_DOCUMENTS) or LINE_ANCHOR.match(fragment):
                continue
            if target not in anchors:
                found = anchors_of(package, target)
                anchors[target] = None if found is None else (*found, {a.lower() for a in (*found[0], *found[1])})
            known = anchors[target]
            if known is None:
                continue
            headings, html, lowered = known
            wanted = fragment.removeprefix("user-content-")
            if wanted in headings or wanted in html or wanted.lower() in lowered:
                continue
            if not ctx.admits(place(ref.source), ref.line):
                continue  # over the cap per file: the closest heading would not be shown
            where = "this file" if target == ref.source else f"`{target}`"
            message = f"`#{fragment}`: no heading of {where} produces this anchor"
            related: list[Related] = []
            close = closest_anchor(wanted.lower(), list(headings)) if len(headings) <= MOST_CANDIDATES else []
            target_path = package.skill_md_path if target == package.skill_md_name else package.root / target
            if close:
                heading = headings[close[0]]
                message += f"; did you mean `#{close[0]}`?"
                related.append(Related(f"the heading '{heading.text}' has the anchor `#{close[0]}`", target_path, Span.point(heading.line)))
            elif not headings and not html:
                message += " (it has no headings)"
            related.extend(reached_from(package, ref.source))
            yield Finding(message, span(ref), path=place(ref.source), related=tuple(related))


RULES = [ReferenceMissing, ReferenceOutsidePackage, ReferenceTooDeep, ResourceUnreferenced, ReferenceCaseMismatch, ReferenceIsDirectory, AnchorMissing]

"""SL40x: containment and filesystem safety: symbolic links, special files, hard-coded user paths."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Iterator

from ...diagnostics import Finding, Related, Severity, Span, clipped
from ...fsafe import is_within, real_path, real_path_or_given
from ...skill.package import SkillPackage
from ...rule import Rule, RuleContext, severities


class SymlinkEscapesPackage(Rule):
    code = "SL401"
    name = "symlink-escapes-package"
    summary = "A symbolic link in the package resolves outside the skill folder"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.safety.containment import LINE_ONE, hop_notes, link_chain, own_entries, trace

        for entry in own_entries(package, ctx.memo, "links"):
            if entry.link is None or entry.link.status != "escapes":
                continue
            if entry.rel == package.skill_md_name and package.skill_md_dangles:
                continue  # it leads nowhere: one finding, SL403's or SL404's
            route = trace(package, entry.rel)
            via = f" (through {link_chain(route.hops[1:])})" if len(route.hops) > 1 else ""
            where = route.outside or entry.link.outside
            notes = hop_notes(package, route.hops)
            if where:
                notes.append(Related("where the link leads, outside the skill folder", Path(where), LINE_ONE))
            yield Finding(
                f"`{entry.rel}` is a symbolic link to `{entry.link.text}`{via}, which leads outside the skill "
                "folder: a copy installed or uploaded elsewhere dangles or picks up whatever is at that path, "
                "and archivers that follow links pack it into the skill; skilllint did not follow it",
                LINE_ONE,
                path=package.root / entry.rel,
                related=tuple(notes),
            )


class SymlinkInPackage(Rule):
    code = "SL402"
    name = "symlink-in-package"
    summary = "A symbolic link that stays inside the package"
    severity = severities("info: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.safety.containment import LINE_ONE, is_ancestor_cycle, own_entries

        for entry in own_entries(package, ctx.memo, "links"):
            if entry.link is None or entry.link.status != "inside" or is_ancestor_cycle(entry, package):
                continue
            if entry.rel == package.skill_md_name:
                continue  # a linked SKILL.md is SL405's
            real = entry.link.resolved or "."
            target = package.inventory.entries.get(real)
            noun = "folder" if real == "." or (target is not None and target.kind == "dir") else "file"
            yield Finding(
                f"`{entry.rel}` is a symbolic link to `{entry.link.text}` (the {noun} `{real}` in the skill): "
                + (
                    "it works here, but package_skill.py leaves a linked folder out of the archive, and a Windows "
                    "checkout without symlink support gets a text file holding the path"
                    if noun == "folder"
                    else "it works here, but archivers store either the link or a second copy, and a Windows "
                    "checkout without symlink support gets a text file holding the path"
                ),
                LINE_ONE,
                path=package.root / entry.rel,
                related=(Related(f"the link's target, `{real}`", package.root / real, LINE_ONE),),
            )


class SymlinkBroken(Rule):
    code = "SL403"
    name = "symlink-broken"
    summary = "A symbolic link whose target does not exist"
    severity = severities("error: all")
    needs_skill_md = False
    tree_links = ("dangling",)  # and the links to nothing where surfaces look for skill folders

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.safety.containment import LINE_ONE, hop_notes, link_chain, own_entries, skill_md_leads_nowhere, trace

        for entry in own_entries(package, ctx.memo, "links"):
            if entry.link is None or entry.link.status != "broken":
                continue
            route = trace(package, entry.rel)
            missing = route.real or entry.link.resolved
            notes = hop_notes(package, route.hops)
            if missing:
                notes.append(Related(f"nothing exists at `{missing}`", package.root / missing, LINE_ONE))
            if not entry.link.text:
                message = f"`{entry.rel}` is a symbolic link that cannot be read"
            else:
                parts = []
                if missing and missing != posixpath.normpath(entry.link.text):
                    parts.append(f"`{missing}` in the skill")
                if len(route.hops) > 1:
                    parts.append(f"through {link_chain(route.hops[1:])}")
                shown = f" ({', '.join(parts)})" if parts else ""
                message = (
                    f"`{entry.rel}` is a symbolic link to `{entry.link.text}`{shown}, which does not exist: "
                    "reading or running it fails"
                )
            yield Finding(message, LINE_ONE, path=package.root / entry.rel, related=tuple(notes))
        yield from skill_md_leads_nowhere(package, "missing")

    def check_tree_link(self, link) -> Finding:
        """A :class:`~skilllint.discovery.walk.TreeLink` to nothing in a folder where surfaces look for skills."""
        from ...skill.safety.containment import LINE_ONE, tree_relative

        shown = tree_relative(link.path, link.lint_root)
        top = Path(os.path.realpath(link.lint_root))
        missing = tree_relative(link.target, top)
        where = f" (`{missing}` in the linted tree)" if missing != posixpath.normpath(link.text) else ""
        return Finding(
            f"`{shown}` is a symbolic link to `{link.text}`{where}, which does not exist: a surface that looks "
            f"for skills in `{tree_relative(link.path.parent, link.lint_root)}/` finds no skill there",
            LINE_ONE,
            path=link.path,
            related=(Related(f"nothing exists at `{missing}`", link.target, LINE_ONE),),
        )


class SymlinkLoop(Rule):
    code = "SL404"
    name = "symlink-loop"
    summary = "A symbolic link that never resolves (a cycle of links) or links to a folder holding it"
    severity = severities("error: all")
    needs_skill_md = False
    tree_links = ("ancestor", "cycle", "chain")  # and the endless links outside every skill folder

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.safety.containment import LINE_ONE, hop_notes, is_ancestor_cycle, link_chain, own_entries, skill_md_leads_nowhere, trace

        for entry in own_entries(package, ctx.memo, "links"):
            if entry.link is None:
                continue
            if entry.link.status == "loop":
                route = trace(package, entry.rel)
                yield Finding(
                    f"`{entry.rel}` is a symbolic link that never resolves: a cycle of links "
                    f"({link_chain(route.hops)}); opening it fails with 'too many levels of symbolic links'",
                    LINE_ONE,
                    path=package.root / entry.rel,
                    related=tuple(hop_notes(package, route.hops)),
                )
            elif is_ancestor_cycle(entry, package):
                real = entry.link.resolved or "."
                shown = "the skill folder" if real == "." else f"`{real}`"
                name = posixpath.basename(entry.rel)
                yield Finding(
                    f"`{entry.rel}` is a symbolic link to `{entry.link.text}`, {shown}, which holds the link "
                    f"itself: anything that follows links walks `{entry.rel}/…/{name}/{name}/…` without end "
                    "(archivers, copies, searches, skill discovery)",
                    LINE_ONE,
                    path=package.root / entry.rel,
                    related=(Related("the folder it leads back to", package.root / real, LINE_ONE),),
                )
        yield from skill_md_leads_nowhere(package, "loop")

    def check_tree_link(self, link) -> Finding:
        """A :class:`~skilllint.discovery.walk.TreeLink`: an endless link outside every skill folder."""
        from ...skill.inventory import MAX_LINK_HOPS
        from ...skill.safety.containment import LINE_ONE, tree_relative

        shown = tree_relative(link.path, link.lint_root)
        if link.kind == "chain":
            return Finding(
                f"`{shown}` is a symbolic link to `{link.text}` that never resolves: it reaches a file only after "
                f"{link.hops} links, more than the {MAX_LINK_HOPS} the system follows; opening it fails with "
                "'too many levels of symbolic links'",
                LINE_ONE,
                path=link.path,
            )
        if link.kind == "cycle":
            return Finding(
                f"`{shown}` is a symbolic link to `{link.text}` that never resolves (a cycle of links): opening "
                "it fails with 'too many levels of symbolic links'",
                LINE_ONE,
                path=link.path,
            )
        top = Path(os.path.realpath(link.lint_root))
        held = "the linted tree's top folder" if link.target == top else f"`{tree_relative(link.target, top)}`"
        name = link.path.name
        return Finding(
            f"`{shown}` is a symbolic link to `{link.text}`, {held}, which holds the link itself: anything "
            f"that follows links walks `{shown}/…/{name}/{name}/…` without end (archivers, copies, searches, "
            "skill discovery); skilllint searched that folder once, under its real name",
            LINE_ONE,
            path=link.path,
            related=(Related("the folder it leads back to", link.target, LINE_ONE),),
        )


class SkillIsSymlink(Rule):
    code = "SL405"
    name = "skill-is-symlink"
    summary = "The skill folder or its SKILL.md is itself a symbolic link"
    severity = severities("info: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.safety.containment import LINE_ONE, shown_location

        lint_real = real_path_or_given(package.lint_root)
        root = package.root
        if os.path.islink(root):
            try:
                text = os.readlink(root)
                real = real_path(root)
            except OSError:  # a link we may not read: nothing to say where it leads
                text = None
            if text is not None:
                yield Finding(
                    f"the skill folder `{root.name}` is a symbolic link to `{text}` ({shown_location(real, lint_real)}): "
                    "surfaces follow it and load the skill from there, so skilllint judged containment at that "
                    "real location; a fresh clone or an archive that does not carry the target has no skill",
                    LINE_ONE,
                    path=root,
                    related=(Related("the real skill folder", Path(real), LINE_ONE),),
                )
        name = package.skill_md_name
        if name is None:
            return
        skill_md = root / name
        if not os.path.islink(skill_md) or package.skill_md_dangles:
            return  # a link leading nowhere is SL403's (missing target) or SL404's (cycle)
        try:
            text = os.readlink(skill_md)
            real = real_path(skill_md)
        except OSError:  # a link we may not read (SL013 says it cannot be read)
            return
        real_root = package.real_root
        if is_within(Path(real_root), Path(real)):
            inside = Path(real).relative_to(real_root).as_posix()
            where = "in the skill folder" if inside == posixpath.normpath(text) else f"`{inside}` in the skill folder"
        else:
            where = shown_location(real, lint_real)
        read = "skilllint read it at its real location" if package.readable else "skilllint did not read it (SL013)"
        skipping = [t for t in ctx.targets if t.skips_linked_skill_md]
        names = " and ".join(t.called for t in skipping)
        if skipping and len(skipping) == len(ctx.targets):
            effect = f"{names}'s skill discovery skips a linked SKILL.md, so {names} does not load this skill"
        elif skipping:
            effect = (
                f"surfaces that follow it load that file, but {names}'s skill discovery skips a linked SKILL.md "
                "and does not load this skill"
            )
        else:
            effect = "surfaces that follow it load that file; zip uploads and Windows checkouts may not keep the link"
        yield Finding(
            f"{name} is a symbolic link to `{text}` ({where}): {effect}; {read}",
            LINE_ONE,
            path=skill_md,
            severities={t.id: Severity.WARNING for t in skipping} or None,
            related=(Related("the file it stands for", Path(real), LINE_ONE),),
        )


class SpecialFile(Rule):
    code = "SL406"
    name = "special-file"
    summary = "A FIFO, socket or device node inside the package"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.safety.containment import LINE_ONE, SPECIAL_NAMES, own_entries

        for entry in own_entries(package, ctx.memo, "specials"):
            what = SPECIAL_NAMES.get(entry.kind, SPECIAL_NAMES["other"])
            yield Finding(
                f"`{entry.rel}` is {what}; an agent or tool that opens it hangs or fails, git does not store it "
                "and package_skill.py leaves it out; skilllint did not open it",
                LINE_ONE,
                path=package.root / entry.rel,
            )


class HardcodedUserPath(Rule):
    code = "SL407"
    name = "hardcoded-user-path"
    summary = "An absolute path in one user's home folder in the body"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.safety.containment import HomePath, advice, find_home_paths, loaded_from
        from ...skill.scripts.lexers import package_scripts

        graph = reference_graph(package)
        skill_md = package.skill_md_name or "SKILL.md"
        # The documents the agent reads, then the scripts it runs: a path in a script's code is
        # where it reads or writes when the agent runs it on another machine.
        texts = [(source, text, True) for source, text in graph.texts.items()]
        texts += [(script.rel, script.text, False) for script in package_scripts(package, ctx.memo) if script.rel not in graph.texts]
        for source, text, markdown in texts:
            first_line = package.body_start_line + 1 if source == skill_md else 1
            path = package.skill_md_path if source == skill_md else package.root / source
            by_home: dict[str, list[HomePath]] = {}
            for hit in find_home_paths(text, first_line, markdown):
                by_home.setdefault(hit.home.replace("\\\\", "\\"), []).append(hit)
            for home, hits in by_home.items():
                first = hits[0]
                message = (
                    f"`{clipped(first.text)}` is an absolute path in the home folder of one user (`{clipped(home)}`): "
                    "it exists only on that machine and names its owner"
                )
                message += f"; {advice(package, first)}"
                if len(hits) > 1:
                    message += f" ({len(hits) - 1} more mention{'s' if len(hits) > 2 else ''} of `{clipped(home)}` in this file)"
                notes = [
                    Related(f"also `{clipped(hit.text)}`", path, Span(hit.line, hit.column, hit.line, hit.end_column))
                    for hit in hits[1:6]
                ]
                if source != skill_md:
                    parent = graph.parents.get(source)
                    if parent is not None:
                        notes.insert(0, loaded_from(package, graph, parent, source, skill_md))
                yield Finding(
                    message,
                    Span(first.line, first.column, first.line, first.end_column),
                    path=path,
                    related=tuple(notes),
                )


RULES = [SymlinkEscapesPackage, SymlinkInPackage, SymlinkBroken, SymlinkLoop, SkillIsSymlink, SpecialFile, HardcodedUserPath]

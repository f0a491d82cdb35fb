"""The `catalog` and `eval` verbs: a surface's catalogs as it renders them, and how they route."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .status import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError
from ..output import safe_json_text, tell


def catalog_verb(args: argparse.Namespace) -> int:
    from ..app.catalog_preview import catalog_report, report_text
    from ..config.settings import ConfigError
    from ..discovery.walk import DiscoveryError

    cwd = Path(os.getcwd())
    try:
        settings = _one_configuration(args, cwd, "render")
        options = _catalog_options(args, settings.catalog)
        # Who wins on every surface (--explain): the same configuration, targets inferred
        inferred = _one_configuration(args, cwd, "render", targets=None) if args.explain else None
        report = catalog_report(args.paths or ["."], cwd, settings, args.target, options, explain=args.explain, tiers=args.tiers, inferred=inferred)
    except (ConfigError, DiscoveryError) as exc:
        tell("error", str(exc))
        return EXIT_ERROR
    if args.output_format == "json":
        sys.stdout.write(safe_json_text(json.dumps(report, indent=2, ensure_ascii=False)) + "\n")
    else:
        for warning in report["warnings"]:
            tell("warning", warning)
        sys.stdout.write(report_text(report, cwd))
    return EXIT_OK


def _one_configuration(args: argparse.Namespace, cwd: Path, verb: str, targets: list | None | str = "chosen"):
    """The settings of the one configuration the paths of a `catalog` or `eval` run use (a
    ConfigError when they use several: ``verb`` them in separate runs), for ``--target``'s surface
    (``targets=None``: every surface, as a run that infers its targets)."""
    from ..app.trees import plan_trees
    from ..config.settings import ConfigError
    from ..registry import registry

    overrides = {"targets": [args.target]} if targets == "chosen" else {}
    trees = plan_trees(registry(), args.paths, cwd, args.config, overrides, args.catalog_root)
    if len(trees) > 1:
        raise ConfigError(f"the paths use different configurations ({', '.join(str(t.settings.config_path or 'none') for t in trees)}); {verb} them in separate runs, or choose one with --config")
    return trees[0].settings


def _catalog_options(args: argparse.Namespace, configured: dict) -> dict:
    """The catalog settings of a `catalog` or `eval` run: the configured ones, with a budget
    given on the command line replacing the configured budget. Raises UsageError for a budget
    that cannot be."""
    for value, flag in ((args.context_window, "--context-window"), (args.budget_chars, "--budget-chars"), (args.budget_tokens, "--budget-tokens")):
        if value is not None and value <= 0:
            raise UsageError(f"{flag} must be a positive number")
    if args.target != "codex" and args.budget_tokens:
        raise UsageError("--budget-tokens is Codex's setting; use --budget-chars or --context-window")
    options = dict(configured)
    if args.context_window or args.budget_chars or args.budget_tokens:
        for key in ("context-window", "budget-chars", "budget-tokens"):
            options.pop(key, None)
        for key, value in (("context-window", args.context_window), ("budget-chars", args.budget_chars), ("budget-tokens", args.budget_tokens)):
            if value:
                options[key] = value
    return options


def eval_verb(args: argparse.Namespace) -> int:
    from ..app.agent_router import ROUTER_ERRORS, router_from_args
    from ..app.eval_report import report_github, report_json, report_text
    from ..app.selector_eval import EvalError, Thresholds, evaluate
    from ..catalog.lexical_router import LexicalRouter
    from ..config.settings import ConfigError
    from ..discovery.walk import DiscoveryError

    cwd = Path(os.getcwd())
    try:
        settings = _one_configuration(args, cwd, "evaluate")
        options = _catalog_options(args, settings.catalog)
        thresholds = Thresholds(
            args.min_recall if args.min_recall is not None else settings.eval.get("min-recall"),
            args.min_precision if args.min_precision is not None else settings.eval.get("min-precision"),
        )
        lexical = LexicalRouter()
        router = router_from_args(args, lexical)
        # Only a router that reads the rendered lines can say what a cut cost: an agent
        # renders its own catalog from the SKILL.md files, and a replay answers only as recorded.
        shortening = lexical if router.name == lexical.name else None
        report = evaluate(
            args.paths, cwd, settings, args.target, options, router, thresholds,
            eval_set=args.eval_set, skill_name=args.skill, shortening_router=shortening,
        )
    except (ConfigError, DiscoveryError, EvalError, *ROUTER_ERRORS) as exc:
        tell("error", str(exc))
        return EXIT_ERROR
    for warning in report.warnings:
        tell("warning", warning)
    stale = sum(len(skill.stale) for skill in report.skills)
    if stale:
        tell("warning", f"{stale} case{'s' if stale != 1 else ''} answered from a recording made against another catalog text, or never recorded: record again with --record")
    if args.output_format == "json":
        sys.stdout.write(safe_json_text(json.dumps(report_json(report), indent=2, ensure_ascii=False)) + "\n")
    elif args.output_format == "github":
        sys.stdout.write(report_github(report, cwd))
    else:
        sys.stdout.write(report_text(report, cwd))
    return EXIT_OK if report.passed else EXIT_FINDINGS

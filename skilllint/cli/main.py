"""Command line: argument parsing and verbs only; the work is elsewhere."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from .. import DISTRIBUTION, __version__
from .status import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError
from ..output import CHOICES, printable_lines, tell

VERBS = ("check", "rule", "config", "init", "catalog", "eval", "server")
# check's options that are settings (`config --show` takes them too)
SETTING_FLAGS = ("config", "target", "select", "extend_select", "ignore", "fail_on", "output_format", "no_respect_gitignore", "catalog_root")


class _Version(argparse.Action):
    """``--version``: the version and the distribution it was installed as, so that a user can
    tell this project from the PyPI project named "skilllint" (another tool, with the same
    command); and a warning when that distribution is installed here too."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"skilllint {__version__} ({DISTRIBUTION})")
        clash = _same_named_distribution()
        if clash:
            tell("warning", clash)
        parser.exit()


def _same_named_distribution() -> str | None:
    """What to do when a distribution named ``skilllint`` is installed in this environment:
    the other project, or this one under its former name. Either installs the ``skilllint``
    package and command too, so the two overwrite each other's files."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        other = distribution("skilllint")
    except PackageNotFoundError:
        return None
    from ..diagnostics import clipped

    summary = clipped(str(other.metadata.get("Summary") or "no summary"), 100)
    return (
        f"the distribution `skilllint` {clipped(str(other.version), 40)} ({summary}) is installed in this environment "
        f"too; it installs the same `skilllint` package and command, so the two overwrite each other's files: "
        f"`pip uninstall skilllint {DISTRIBUTION}`, then install {DISTRIBUTION} again"
    )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a one-line message, like ruff
        raise UsageError(message)


def build_parser(agent_options: bool = True) -> argparse.ArgumentParser:
    """The command line's parser. ``agent_options``: give ``eval`` the real-agent options,
    whose module (processes, threads) another verb does not need to import."""
    parser = _Parser(
        prog="skilllint",
        description="Lint Agent Skills the way each agent loads them.",
    )
    parser.add_argument("--version", action=_Version, help="show the version and the distribution it was installed as, then exit")
    verbs = parser.add_subparsers(dest="verb", parser_class=_Parser)

    check = verbs.add_parser("check", help="lint skill folders (the default verb)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="skill folders, collections or files (default: .)")
    check.add_argument("--target", action="append", metavar="ID", help="surface profile(s) to check against; repeat or comma-separate; `all` for every profile")
    check.add_argument("--select", metavar="CODES", help="comma-separated rule codes or prefixes to enable (ALL for every rule)")
    check.add_argument("--extend-select", metavar="CODES", help="add rules to the selection")
    check.add_argument("--ignore", metavar="CODES", help="comma-separated rule codes or prefixes to disable")
    check.add_argument("--output-format", choices=CHOICES, help="how to print findings (default: full; auto: github under GitHub Actions, else full)")
    check.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE instead of standard output")
    check.add_argument("--report", action="append", metavar="FORMAT=FILE", help="also write a report in FORMAT to FILE, from the same run (e.g. sarif=skilllint.sarif); repeatable")
    check.add_argument("--fail-on", choices=("error", "warning", "info"), help="lowest severity that makes the exit code 1 (default: error)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings reach --fail-on")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes, then report the problems that remain")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff also apply unsafe fixes; alone, show them as available")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff and write nothing (exit 1 when there is a diff)")
    check.add_argument("--statistics", action="store_true", help="print the count per rule instead of each finding")
    baseline = check.add_mutually_exclusive_group()
    baseline.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE, a baseline written by --write-baseline (default: `baseline` in the configuration)")
    baseline.add_argument("--no-baseline", action="store_true", help="ignore the configured baseline: report every finding")
    check.add_argument("--write-baseline", metavar="FILE", help="record every finding of this run in FILE as accepted (paths relative to its folder), print no report, and exit 0")
    check.add_argument("--config", metavar="FILE", help="configuration file (default: discovered)")
    check.add_argument("--force-exclude", action="store_true", help="apply exclude patterns to paths given explicitly too")
    check.add_argument("--no-respect-gitignore", action="store_true", help="do not skip files ignored by .gitignore")
    check.add_argument("--no-cache", action="store_true", help="lint every skill afresh, neither reading nor writing the result cache")
    check.add_argument("--cache-dir", metavar="DIR", help="where the result cache lives (default: .skilllint_cache at the git repository root; no cache outside a repository)")
    check.add_argument("-j", "--jobs", type=_job_count, metavar="N", help="worker processes for large trees (default: one per CPU when the tree is large enough; 1: none)")
    check.add_argument("--catalog-root", action="append", metavar="SCOPE=PATH", help="a folder of installed skills (scope user, admin or system) that joins the catalogs; repeatable")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    check.add_argument("-q", "--quiet", action="store_true", help="print nothing but findings")
    check.add_argument("--stdin-filename", metavar="PATH", help="lint standard input as the file PATH of its skill (give `-` as the path); --fix prints the fixed text")
    check.add_argument("--show-files", action="store_true", help="list the skills that would be linted, with their targets, and exit")
    check.set_defaults(stdin_file=None)

    rule = verbs.add_parser("rule", help="print the rule book page of a rule")
    rule.add_argument("code", nargs="?", help="rule code (SL106) or name (name-folder-mismatch)")
    rule.add_argument("--all", action="store_true", help="print every rule's page")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    catalog = verbs.add_parser("catalog", help="render the catalog a surface would show the model, with a receipt")
    catalog.add_argument("paths", nargs="*", metavar="PATH", help="skill folders or collections (default: .)")
    catalog.add_argument("--target", choices=("codex", "claude-code", "copilot"), default="codex", help="the surface whose catalog to render")
    catalog.add_argument("--context-window", type=int, metavar="TOKENS", help="the model's context window (default: unknown)")
    budget = catalog.add_mutually_exclusive_group()
    budget.add_argument("--budget-chars", type=int, metavar="N", help="a budget in characters")
    budget.add_argument("--budget-tokens", type=int, metavar="N", help="a budget in tokens (Codex's skills.max_context_tokens)")
    catalog.add_argument("--output-format", choices=("text", "json"), default="text")
    catalog.add_argument("--config", metavar="FILE", help="configuration file (default: discovered)")
    catalog.add_argument("--catalog-root", action="append", metavar="SCOPE=PATH", help="a folder of installed skills (scope user, admin or system) that joins the catalog; repeatable")
    catalog.add_argument("--explain", action="store_true", help="add the discovery log: the folders searched, the skills rejected and why, each candidate's fate (shadowed, hidden, shortened, omitted)")
    catalog.add_argument("--tiers", action="store_true", help="add each linted skill's disclosure ladder: its catalog line, its body's tokens, each referenced file's tokens and load condition")

    evaluate = verbs.add_parser("eval", help="route each skill's trigger set through the catalog its surface renders, and score it")
    evaluate.add_argument("paths", nargs="*", metavar="PATH", help="skill folders or collections (default: .)")
    evaluate.add_argument("--eval-set", metavar="FILE", help="evaluate this trigger set (a JSON list of {\"query\", \"should_trigger\"}) for the one skill under PATHS")
    evaluate.add_argument("--skill", metavar="NAME", help="evaluate only the skill of this name (with --eval-set: the skill the set is for)")
    evaluate.add_argument("--target", choices=("codex", "claude-code", "copilot"), default="codex", help="the surface whose catalog the queries are routed through")
    evaluate.add_argument("--context-window", type=int, metavar="TOKENS", help="the model's context window (default: unknown)")
    eval_budget = evaluate.add_mutually_exclusive_group()
    eval_budget.add_argument("--budget-chars", type=int, metavar="N", help="a catalog budget in characters")
    eval_budget.add_argument("--budget-tokens", type=int, metavar="N", help="a catalog budget in tokens (Codex's skills.max_context_tokens)")
    evaluate.add_argument("--min-recall", type=_share, metavar="SHARE", help="exit 1 when a skill's recall is below SHARE (default: eval.min-recall in the configuration, else none)")
    evaluate.add_argument("--min-precision", type=_share, metavar="SHARE", help="exit 1 when a skill's precision is below SHARE (default: eval.min-precision in the configuration, else none)")
    evaluate.add_argument("--output-format", choices=("full", "json", "github"), default="full")
    evaluate.add_argument("-j", "--jobs", type=_job_count, metavar="N", help="queries asked of an agent at once (the lexical router needs none)")
    evaluate.add_argument("--config", metavar="FILE", help="configuration file (default: discovered)")
    evaluate.add_argument("--catalog-root", action="append", metavar="SCOPE=PATH", help="a folder of installed skills (scope user, admin or system) that joins the catalog; repeatable")
    if agent_options:
        from ..app.agent_router import add_agent_arguments

        add_agent_arguments(evaluate)

    config = verbs.add_parser("config", help="show configuration facts")
    config.add_argument("--schema", action="store_true", help="print the configuration JSON Schema")
    config.add_argument("--show", action="store_true", help="print the settings that apply to PATHS and where each comes from")
    config.add_argument("paths", nargs="*", metavar="PATH", help="with --show: the paths whose settings to print (default: .)")
    for action in check._actions:  # the settings check takes on its command line, for --show
        if action.dest in SETTING_FLAGS:
            config._add_action(action)

    init = verbs.add_parser("init", help="write a commented starting configuration (skilllint.toml)")
    init.add_argument("folder", nargs="?", default=".", help="where to write it (default: .)")

    verbs.add_parser("server", help="run the language server on stdio (needs the `lsp` extra)")
    return parser


def run() -> None:
    """The ``skilllint`` command: :func:`main`, then leave without tearing the interpreter
    down. Freeing every object and module at exit is a noticeable part of a warm run, and
    nothing of ours waits for it: the cache and reports are written and closed by then."""
    code = main()
    if sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)  # coverage or a profiler runs us: it writes its data at exit
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left before the last buffer (`skilllint ... | head`)
        pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in VERBS and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "check")
    try:
        args = build_parser(agent_options=argv[0] == "eval").parse_args(argv)
        if args.verb == "rule":
            return _rule(args)
        if args.verb == "config":
            return _config(args)
        if args.verb == "catalog":
            from .catalog import catalog_verb

            return catalog_verb(args)
        if args.verb == "eval":
            from .catalog import eval_verb

            return eval_verb(args)
        if args.verb == "server":
            return _server()
        if args.verb == "init":
            from .init_file import init

            return init(args.folder, Path(os.getcwd()))
        if args.stdin_filename is not None or "-" in args.paths:
            from .stdin import check_stdin

            return check_stdin(args, _check, UsageError)
        return _check(args)
    except UsageError as exc:
        tell("error", str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `skilllint rule --all | head`: the reader left; say nothing more.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def _overrides(args: argparse.Namespace) -> dict:
    """The settings given on the command line (None: not given)."""
    return {
        "targets": args.target,
        "select": _split(args.select),
        "extend-select": _split(args.extend_select),
        "ignore": _split(args.ignore),
        "fail-on": args.fail_on,
        "output-format": args.output_format,
        "respect-gitignore": False if args.no_respect_gitignore else None,
    }


def _job_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes, at least 1, got {text!r}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1, got {text!r}")
    return value


def _check(args: argparse.Namespace) -> int:
    from ..config.settings import ConfigError  # a BaselineError is one
    from ..discovery.walk import DiscoveryError
    from ..output import display_path, resolve_format
    from ..output.formats import prepare, render
    from ..registry import registry
    from ..app.trees import fix_trees, lint_trees, plan_trees, run_settings

    cwd = Path(os.getcwd())
    reports = _reports(args.report, args.output_file)
    reg = registry()
    overrides = _overrides(args)
    try:
        trees = plan_trees(reg, args.paths, cwd, args.config, overrides, args.catalog_root)
        settings = run_settings(trees)
        if args.show_files:
            from .config_show import show_files

            return show_files(trees, cwd, args.force_exclude)
        # before linting: a bad baseline fails at once
        baseline = _open_baseline(args, settings, [tree.settings for tree in trees], cwd)
        run = None
        if args.fix or args.diff:
            run = fix_trees(trees, cwd, args.force_exclude, unsafe=args.unsafe_fixes, write=not args.diff, stdin=args.stdin_file)
            result = run.result
            result.fixed = dict(run.fixed) if not args.diff else {}
        else:
            if not args.statistics:
                prepare(settings.output_format)  # orjson for a JSON or SARIF report: the result cache reads with it too
            result = lint_trees(trees, cwd, args.force_exclude, args.no_cache, args.cache_dir, args.jobs)
        result.unsafe_fixes = args.unsafe_fixes
    except (ConfigError, DiscoveryError) as exc:
        tell("error", str(exc))
        return EXIT_ERROR
    if args.stdin_file is not None:
        args.stdin_file.keep_own(result)

    for problem in reg.plugin_errors:
        tell("warning", str(problem))
    if not args.quiet:
        for warning in result.warnings:
            tell("warning", warning)
        if run is None or args.diff:  # --fix removes them (fixes.report_run says so)
            for path in result.abandoned_fix_temps:
                shown = display_path(Path(path), cwd)
                tell("warning", f"{shown}: a temporary file left by an interrupted `skilllint check --fix`; `skilllint check --fix` removes it")

    fmt = resolve_format(settings.output_format)
    fix_failed = False
    if run is not None:
        from ..app.fixes import report_run

        status = report_run(run, args, cwd, fmt)
        if args.diff:
            return status
        fix_failed = status == EXIT_ERROR
    if baseline is not None and baseline.writes:
        return _write_baseline(baseline, result, args, fix_failed, _judged(args, settings, result, cwd))
    if baseline is not None:  # one filter before every output: reports, statistics and the exit code
        baseline.apply(result, _judged(args, settings, result, cwd))
    if args.statistics:
        text = _statistics(result, reg)
    else:
        color = args.color == "always" or (
            args.color == "auto" and not args.output_file and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        )
        text = render(fmt, result, cwd, color=color, settings=settings)
    if args.output_file:
        try:
            write_report(Path(args.output_file), text)
        except OSError as exc:
            tell("error", f"cannot write {args.output_file}: {exc.strerror or exc}")
            return EXIT_ERROR
    elif text and not (args.quiet and not result.diagnostics and fmt == "full"):
        sys.stdout.write(text)
    for report_format, report_file in reports:
        try:
            write_report(report_file, render(report_format, result, cwd, settings=settings))
        except OSError as exc:
            tell("error", f"cannot write {report_file}: {exc.strerror or exc}")
            return EXIT_ERROR
    sarif_written = (fmt == "sarif" and not args.statistics) or any(resolve_format(f) == "sarif" for f, _ in reports)
    if sarif_written and not args.quiet:  # a SARIF report over code scanning's limit says what it left out
        from ..output.sarif import left_out_note

        note = left_out_note(result.diagnostics)
        if note:
            print(f"skilllint: warning: {note}", file=sys.stderr)

    if result.baseline is not None and result.baseline.unmatched and not args.quiet:
        tell(None, result.baseline.unmatched_note())

    if result.internal_errors:
        _internal_errors(result)
        return EXIT_ERROR
    if fix_failed:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    failing = any(d.severity >= settings.fail_on for d in result.diagnostics)
    return EXIT_FINDINGS if failing else EXIT_OK


def write_report(path: Path, text: str) -> None:
    """Write a report to a file the user named (``-o``, ``--report``): the folders it names
    are made when missing, since the path is the user's choice, and a regular file is
    replaced atomically (:meth:`skilllint.safewrite.SafeFolder.write_atomic`; an existing file
    keeps its mode), so that a reader, such as an upload step, never sees half a report.
    A link (``-o /dev/stdout`` is one) is written through and a device or pipe written
    in place, as a plain open() would: neither is ever replaced."""
    import stat

    from ..safewrite import SafeFolder

    data = text.encode("utf-8", errors="surrogateescape")  # a non-UTF-8 file name keeps its bytes, as on stdout
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if os.path.islink(path) or (mode is not None and not stat.S_ISREG(mode)):
        with open(path, "wb") as handle:
            handle.write(data)
        return
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    with SafeFolder.trusted(str(folder)) as opened:
        opened.write_atomic(path.name, data, mode=0o666, temp_suffix=".skilllint-report")  # new: as open() makes it


def _internal_errors(result) -> None:
    for error in result.internal_errors:
        print(f"skilllint: {printable_lines(error)}", file=sys.stderr)
    print("skilllint: please report this bug with the skill that triggered it", file=sys.stderr)


class _Baseline:
    """The run's baseline: one to write (``--write-baseline``) or one read to filter the findings.

    Either way the run lints with the highest cap on findings per rule and file, so that
    the baseline records them all, and findings in it take no room from those that are
    not; the configured cap applies to what is reported."""

    def __init__(self, location, counts, settings, linted: list) -> None:
        from ..findingcap import HARD_LIMIT

        self.location, self.counts = location, counts
        self.writes = counts is None
        self.limit = settings.max_findings_per_rule_per_file
        self.lint_limit = max(self.limit, HARD_LIMIT)
        for each in (settings, *linted):  # the run's settings, and each linted tree's
            each.max_findings_per_rule_per_file = max(each.max_findings_per_rule_per_file, HARD_LIMIT)

    def apply(self, result, scope) -> None:
        from ..app.baseline import apply

        apply(result, self.counts, self.location, self.limit, self.lint_limit, scope)


def _judged(args: argparse.Namespace, settings, result, cwd: Path):
    """The run's :class:`skilllint.app.baseline.Scope`: the folders named (one that holds no skill
    any more still holds its entries), the skills linted, and the rules enabled."""
    from ..app.baseline import Scope

    named = {os.path.normpath(cwd / path) for path in args.paths or ["."] if os.path.isdir(cwd / path)}
    return Scope(frozenset(named | result.lint_roots), frozenset(rule.code for rule in settings.enabled_rules()))


def _open_baseline(args: argparse.Namespace, settings, linted: list, cwd: Path) -> _Baseline | None:
    """The baseline to write or read; ``settings`` the run's, ``linted`` each tree's (the cap
    on findings is raised in all of them)."""
    if not args.write_baseline and (args.no_baseline or not (args.baseline or getattr(settings, "baseline", None))):
        return None  # without loading the baseline code: most runs have none
    from ..app.baseline import locate, output_location, read

    if args.write_baseline:
        if args.diff:
            raise UsageError("--write-baseline records the findings of a run; --diff only shows fixes: use one of them")
        return _Baseline(output_location(args.write_baseline, cwd), None, settings, linted)
    location = locate(settings, cwd, args.baseline)
    return _Baseline(location, read(location), settings, linted) if location is not None else None


def _write_baseline(baseline: _Baseline, result, args: argparse.Namespace, fix_failed: bool, scope) -> int:
    """``--write-baseline``: record the run's findings, unless the run did not complete."""
    from ..app.baseline import BaselineError, write

    if result.internal_errors:
        _internal_errors(result)
        tell("error", f"{baseline.location.shown} not written: a rule failed, so its findings are unknown")
        return EXIT_ERROR
    if fix_failed:
        tell("error", f"{baseline.location.shown} not written: a fix could not be written")
        return EXIT_ERROR
    try:
        count, kept = write(baseline.location, result.diagnostics, scope)
    except BaselineError as exc:
        tell("error", str(exc))
        return EXIT_ERROR
    if not args.quiet:
        also = f" ({kept} kept for files or rules this run did not lint)" if kept else ""
        tell(None, f"wrote {count} baseline entr{'y' if count == 1 else 'ies'} to {baseline.location.shown}{also}")
        left_out = sum(result.left_out.values())
        if left_out:
            tell(
                "warning",
                f"{left_out} finding{'s' if left_out != 1 else ''} past {baseline.lint_limit} of one rule in one file "
                "could not be recorded; they will be reported",
            )
    return EXIT_OK


def _reports(values: list[str] | None, output_file: str | None) -> list[tuple[str, Path]]:
    """``--report FORMAT=FILE`` values, checked before any linting."""
    reports: list[tuple[str, Path]] = []
    seen = {os.path.abspath(output_file)} if output_file else set()
    for value in values or []:
        fmt, sep, file = value.partition("=")
        fmt = fmt.strip().lower()
        if not sep or not file:
            raise UsageError(f"--report {value!r}: expected FORMAT=FILE, e.g. sarif=skilllint.sarif")
        if fmt not in CHOICES:
            raise UsageError(f"--report {value!r}: unknown format {fmt!r}; choose from {', '.join(CHOICES)}")
        if os.path.abspath(file) in seen:
            raise UsageError(f"--report {value!r}: {file} is already written by another report")
        seen.add(os.path.abspath(file))
        reports.append((fmt, Path(file)))
    return reports


def _statistics(result, reg) -> str:
    counter = Counter(d.code for d in result.diagnostics)
    from ..output import fix_mark, left_out_note

    fixable = Counter(d.code for d in result.diagnostics if fix_mark(d, result))  # as `--fix` would apply them
    lines = []
    for code, count in sorted(counter.items(), key=lambda item: (-item[1], item[0])):
        rule = reg.rules.get(code)
        mark = "[*]" if fixable[code] else "[ ]"
        lines.append(f"{count:5d}\t{code}\t{mark} {rule.name if rule else ''}")
    total = sum(counter.values())
    from ..diagnostics import counted

    lines.append(f"Found {counted(total, 'problem')} in {counted(result.packages, 'skill')}.")
    note = left_out_note(result)
    if note:
        lines.append(note)
    if result.baseline is not None:
        lines.extend(result.baseline.notes())
    return "\n".join(lines) + "\n"


def _rule(args: argparse.Namespace) -> int:
    from ..registry import registry
    from ..rulebook import rule_page

    reg = registry()
    if args.all:
        rules = reg.sorted()
    elif args.code:
        rule = reg.rules.get(args.code.upper()) or reg.by_name(args.code)
        if rule is None:
            tell("error", f"no rule {args.code!r}; `skilllint rule --all` lists them")
            return EXIT_ERROR
        rules = [rule]
    else:
        print("skilllint: error: give a rule code or --all", file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "json":
        payload = [
            {
                "code": r.code,
                "name": r.name,
                "summary": r.summary,
                "severity": {t: str(s) for t, s in r.severity.items()},
                "fix": r.fixable,
                "opt_in": r.opt_in,
                "options": r.options_schema,
                "defaults": r.defaults,
                "documentation": rule_page(r.code),
                "source": {"module": r.source()[0], "class": r.source()[1]},
                "analysis": r.analysis(),
            }
            for r in rules
        ]
        print(json.dumps(payload if args.all else payload[0], indent=2))
        return EXIT_OK
    pages = []
    for r in rules:
        page = rule_page(r.code)
        module, name = r.source()
        text = page.rstrip() if page else f"# {r.code} {r.name}\n\n{r.summary}\n\n(no rule-book page found)"
        analysis = r.analysis()
        folders = sorted({path.rpartition("/")[0] + "/" for path in analysis})
        shown = f"\nAnalysis: {', '.join(folders)} ({', '.join(analysis)})" if analysis else ""
        pages.append(f"{text}\n\nSource: {module}, class {name}{shown}")
    print("\n\n---\n\n".join(pages))
    return EXIT_OK


def _config(args: argparse.Namespace) -> int:
    from ..config.settings import ConfigError, config_schema
    from ..registry import registry

    if args.schema:
        print(json.dumps(config_schema(registry()), indent=2))
        return EXIT_OK
    if args.show:
        from .config_show import show_settings
        from ..app.trees import plan_trees

        cwd = Path(os.getcwd())
        try:
            trees = plan_trees(registry(), args.paths, cwd, args.config, _overrides(args), args.catalog_root)
        except ConfigError as exc:
            tell("error", str(exc))
            return EXIT_ERROR
        sys.stdout.write(show_settings(trees, cwd))
        return EXIT_OK
    print("skilllint: error: nothing to show; try `skilllint config --show` or `skilllint config --schema`", file=sys.stderr)
    return EXIT_ERROR


def _server() -> int:
    try:
        from ..server.main import main as serve
    except ImportError as exc:
        # name the missing requirement itself: the lsp extra holds only it
        tell("error", f"the language server needs pygls 2 ({exc}): install skilllint's lsp extra, or pip install 'pygls>=2.0,<3'")
        return EXIT_ERROR
    return serve()

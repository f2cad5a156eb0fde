"""``privaudit remediate``: transform a failing release until its re-audit passes, or list the methods."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from privaudit.cli.outputs import (
    add_report_arguments,
    check_outputs,
    policy_files,
    progress_bar,
    render_reports,
    report_outputs,
    write_all,
)
from privaudit.cli.terminal import print_audit, print_lost, printable
from privaudit.common.formats import PARQUET_SUFFIXES
from privaudit.core.errors import PrivauditError
from privaudit.pipeline.arguments import MAX_CANDIDATES, METHODS, UTILITY, optional

#: What remediate (with or without --explore) says of an input that already passes.
NO_CHANGE = "no change needed: the table already passes the policy"
#: --out: Parquet by suffix, the statistical packages' files (privaudit/io/office_write.py), else CSV
OUT_FORMATS = (".csv", ".tsv", ".txt", *PARQUET_SUFFIXES, ".sav", ".zsav", ".por", ".dta", ".xpt")


def add_parser(sub) -> None:
    remediate = sub.add_parser("remediate", help="transform a failing release until its re-audit passes")
    remediate.add_argument("released", nargs="?", help="the released table (CSV, Parquet, SPSS, Stata, SAS, Excel ...)")
    remediate.add_argument("--list", action="store_true", help="list the remediation methods and exit")
    remediate.add_argument("--policy", help="policy YAML file (its checks are the targets)")
    remediate.add_argument("--method", help="remediation method (default: the policy's remediation.method)")
    remediate.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a method option (repeatable), e.g. --option max_suppression=0.05; with --explore, the values to "
        "try, e.g. --option max_suppression=0,0.05 (METHOD.NAME=... for one method)",
    )
    remediate.add_argument(
        "--out",
        help="where to write the remediated table (only when its re-audit passes): .csv, .parquet, or an SPSS, "
        "Stata or SAS transport file (.sav, .zsav, .por, .dta, .xpt) keeping the input's labels",
    )
    remediate.add_argument(
        "--side-files",
        metavar="DIR",
        help="where the files written beside the table go (built hierarchies, published matrices, the policy it "
        "audits again with); default: beside --out, nowhere for --out - or a device",
    )
    remediate.add_argument(
        "--explore",
        action="store_true",
        help="evaluate a family of candidate releases and draw the risk-utility map; with --out, "
        "write the recommended one",
    )
    remediate.add_argument(
        "--recipe",
        metavar="RECIPE.yaml",
        help="run these methods in sequence, each step audited again (steps: [{method: NAME, options: {...}}]); "
        "the output is written only when the last step passes",
    )
    remediate.add_argument(
        "--original",
        metavar="FILE",
        help="--recipe: the original table every step is audited against (default: the recipe's input)",
    )
    remediate.add_argument(
        "--write-recipe",
        metavar="RECIPE.yaml",
        help="--explore: write the recommended candidate as a recipe file, which --recipe runs again",
    )
    remediate.add_argument(
        "--even-if-passing",
        action="store_true",
        help="remediate and write --out even when the table already passes the policy (default: no change "
        "needed, nothing written)",
    )
    remediate.add_argument(
        "--methods",
        help="--explore: the candidate methods, comma-separated (default: every registered remediation method; "
        "--method NAME: that one's)",
    )
    remediate.add_argument(
        "--max-candidates",
        metavar="N",
        help="--explore: at most N candidates (default 30)",
    )
    remediate.add_argument(
        "--utility",
        metavar="NAME",
        help="--explore: the utility axis (default granularity, ARX's Loss: a deleted variable costs its share)",
    )
    remediate.add_argument(
        "--sheet", metavar="NAME", help="the sheet of an .xlsx or .ods file to read (default: the first)"
    )
    add_report_arguments(remediate)


def _list(registry) -> int:
    for name in sorted(registry.remediators):
        r = registry.remediators[name]
        fields = ", ".join(
            f"{f}={info.default!r}" if not info.is_required() else f for f, info in r.options.model_fields.items()
        )
        print(f"{name:<16} {r.description}\n{'':<16} options: {fields or '(none)'}")
    return 0


def run(args) -> int:
    from privaudit.pipeline.plugins import get_registry

    registry = get_registry()
    if args.list:
        return _list(registry)
    if args.policy is not None:
        from privaudit.pipeline.arguments import POLICY

        POLICY.value(args.policy, api=False)  # as the API validates policy=
    _refuse_combinations(args)
    if args.explore:
        return _explore(args, registry)
    for flag, value in (
        ("--methods", args.methods),
        ("--max-candidates", args.max_candidates),
        ("--utility", args.utility),
    ):
        if value is not None:
            raise PrivauditError(f"{flag} is an option of --explore")
    if not args.released or not args.policy or not args.out:
        raise PrivauditError("remediate needs RELEASED, --policy and --out (or --list)")
    check_out_format(args.out)
    recipe = None
    if args.recipe is not None:
        from privaudit.pipeline.recipe import load_recipe

        recipe = load_recipe(args.recipe, registry)  # refused before any work
    inputs = [args.released, args.policy, *policy_files(args.policy), *([args.recipe] if args.recipe else [])]
    inputs += [args.original] if args.original else []
    check_outputs([args.out, *report_outputs(args)], inputs)
    bar = progress_bar(args)
    try:
        outcome = _remediated(args, registry, recipe, bar)
    finally:
        bar.close()
    rendered = render_reports(outcome.after, args)
    if outcome.offered:
        rendered.insert(0, (args.out, outcome.output))
        rendered += outcome.side_files
        check_outputs([path for path, _ in rendered], inputs)  # the side files' names are known only now
    write_all(rendered)
    if outcome.no_change_needed:
        if not args.quiet:
            print(f"{NO_CHANGE}; {printable(args.out)} not written (--even-if-passing remediates it anyway)")
            print_audit(outcome.before, sys.stdout)
        return 0
    if not args.quiet:
        _print_outcome(outcome, args.out)
    return 0 if outcome.offered else (2 if outcome.after.errored else 1)


def _remediated(args, registry, recipe, bar):
    """The outcome of ``--recipe`` (``recipe``: loaded) or of one method."""
    from privaudit.cli.options import parse_options
    from privaudit.pipeline.remediate import remediate

    if recipe is not None:
        from privaudit.pipeline.recipe import run_recipe

        return run_recipe(
            args.released,
            args.policy,
            args.out,
            recipe,
            original=args.original,
            registry=registry,
            progress=bar,
            allow_outside_paths=args.allow_outside_paths,
            check_timeout=args.check_timeout,
            side_dir=_side_dir(args),
            even_if_passing=getattr(args, "even_if_passing", False),
        )
    return remediate(
        args.released,
        args.policy,
        args.out,
        method=args.method,
        options=parse_options(args.option),
        registry=registry,
        progress=bar,
        allow_outside_paths=args.allow_outside_paths,
        check_timeout=args.check_timeout,
        side_dir=_side_dir(args),
        even_if_passing=getattr(args, "even_if_passing", False),
    )


def _refuse_combinations(args) -> None:
    """One line for flags that do not go together: a recipe names its methods and their options."""
    if args.recipe is not None:
        if args.method is not None:
            raise PrivauditError("--recipe names its methods in its steps: give --recipe or --method, not both")
        if args.explore:
            raise PrivauditError(
                "--recipe runs given steps, --explore searches for them: give one (--explore --write-recipe "
                "FILE writes the recommended one as a recipe)"
            )
        if args.option:
            raise PrivauditError("--option with --recipe: give each step's options in the recipe's steps")
    elif args.original is not None:
        raise PrivauditError("--original is an option of --recipe")
    if args.write_recipe is not None and not args.explore:
        raise PrivauditError("--write-recipe is an option of --explore")


def check_out_format(out: str) -> None:
    """``--out``'s suffix names a format privaudit writes and reads again (a device or FIFO, no suffix: CSV);
    ``.sas7bdat``, which no writer writes, is one line naming ``.xpt``."""
    from privaudit.io.office_write import refuse_unwritable

    suffix = Path(out).suffix.lower() if out != "-" else ""
    refuse_unwritable(out)
    if suffix and suffix not in OUT_FORMATS:
        raise PrivauditError(
            f"--out {out}: unknown format {suffix!r}; use .csv, .parquet, or an SPSS, Stata or SAS transport file "
            "(.sav, .zsav, .por, .dta, .xpt): a table privaudit can read again"
        )


def _side_dir(args) -> str | None:
    """``--side-files DIR``, refused when it is not a folder."""
    if args.side_files is None:
        return None
    if not Path(args.side_files).is_dir():
        raise PrivauditError(f"--side-files {args.side_files}: not a folder")
    return args.side_files


def print_audit_again(outcome, out: str) -> None:
    """How to audit the written table again as it was re-audited: with the policy written beside it, else (no
    column's type or hierarchy changed) with the given policy, so the line is there whichever method won."""
    if not outcome.offered or out == "-":
        return
    rem = outcome.after.remediation or {}
    skipped = [c for c, b in (rem.get("built_hierarchies") or {}).items() if b.get("file") is None]
    given = getattr(outcome.before.policy, "path", None)
    policy = outcome.policy_file or (str(given) if not skipped and given and Path(given).is_file() else None)
    if policy:
        original = " --original " + str(outcome.before.table.path) if outcome.needs_original else ""
        outside = " --allow-outside-paths" if outcome.outside_paths else ""
        print(
            f"audit it again: privaudit audit {printable(out)} --policy {printable(policy)}"
            + printable(original)
            + outside
        )
    elif skipped:
        print(
            "  note: the hierarchies built for "
            + ", ".join(printable(c) for c in skipped)
            + " were not written (give --side-files DIR): without them the table does not audit again"
        )


def _explore(args, registry) -> int:
    from privaudit.cli.options import parse_options
    from privaudit.pipeline.explore import DEFAULT_MAX_CANDIDATES, explore_options, explore_release, parse_methods

    if args.method and args.methods:
        raise PrivauditError("--explore: give --method NAME (one method's candidates) or --methods a,b, not both")
    if getattr(args, "even_if_passing", False):
        raise PrivauditError("--even-if-passing is an option of --method: --explore leaves a passing table alone")
    if not args.released or not args.policy:
        raise PrivauditError("remediate --explore needs RELEASED and --policy")
    # the API's validation, naming the flag given (--method NAME: that method's candidates only)
    methods = optional(
        replace(METHODS, flag="--method") if args.method else METHODS, args.method or args.methods, False
    )
    methods = parse_methods(methods, registry)
    options = parse_options(args.option)  # NAME=V1,V2: the values explored (split by the explore driver)
    explore_options(options, methods, registry)
    max_candidates = optional(MAX_CANDIDATES, args.max_candidates, api=False)
    utility = optional(UTILITY, args.utility, api=False)
    if args.out is not None:
        check_out_format(args.out)
    inputs = [args.released, args.policy, *policy_files(args.policy)]
    extra = [p for p in (args.out, args.write_recipe) if p]
    check_outputs([*extra, *report_outputs(args)], inputs)
    bar = progress_bar(args)
    try:
        found = explore_release(
            args.released,
            args.policy,
            args.out,
            methods,
            max_candidates or DEFAULT_MAX_CANDIDATES,
            utility,
            registry=registry,
            progress=bar,
            allow_outside_paths=args.allow_outside_paths,
            side_dir=_side_dir(args),
            options=options,
            check_timeout=args.check_timeout,
        )
    finally:
        bar.close()
    rendered = render_reports(found.report, args)
    if found.offered:
        rendered.insert(0, (args.out, found.outcome.output))
        rendered += found.outcome.side_files
    recipe = _recipe_of(found, args, registry) if args.write_recipe is not None else None
    if recipe is not None:
        rendered.append((args.write_recipe, recipe))
    if rendered:
        check_outputs([path for path, _ in rendered], inputs)
    write_all(rendered)
    if not args.quiet:
        _print_exploration(found, args.out)
        if args.write_recipe is not None:
            print(
                f"wrote {printable(args.write_recipe)}"
                if recipe is not None
                else "no recipe written: nothing recommended"
            )
    if found.exploration.no_change_needed:
        return 0
    if found.exploration.recommended is None:
        return 1
    return 0 if (args.out is None or found.offered) else 1


def _recipe_of(found, args, registry) -> bytes | None:
    """The recommended candidate as a recipe file (None: nothing is recommended, nothing written)."""
    from privaudit.pipeline.recipe import recipe_of_candidate, write_recipe

    ex = found.exploration
    if ex.recommended is None or ex.no_change_needed:
        return None
    c = ex.candidates[ex.recommended]
    recipe = recipe_of_candidate(c.method, c.options, registry)
    comment = (
        f"the candidate privaudit remediate --explore recommended for {Path(args.released).name} under "
        f"{Path(args.policy).name}\nrun it again: privaudit remediate DATA --policy POLICY --recipe "
        f"{Path(args.write_recipe).name} --out OUT"
    )
    return write_recipe(recipe, comment)


def _print_exploration(found, out: str | None) -> None:
    ex = found.exploration
    print(
        f"explored {len(ex.candidates)} candidates: risk = {found.report.explore['risk_measure']}, "
        f"utility = {ex.utility_measure}"
    )
    print(f"  {'#':>3} {'method':<15} {'risk':>8} {'utility':>8}  pass  frontier  {'cells kept':>10}  deleted  options")
    for i, c in enumerate(ex.candidates):
        if c.failure is not None:  # a remediator that failed: its row says so, naming its package
            print(f"  {i:>3} {c.method:<15} {printable(c.failure)}")
            continue
        mark = "*" if i == ex.recommended else " "
        utility = "-" if c.utility is None else f"{c.utility:.4f}"
        options = ", ".join(f"{k}={v}" for k, v in c.options.items() if k not in ("seed", "write_hierarchies"))
        cells = c.lost.get("cells") or 0
        kept = "-" if not cells else f"{100 * (1 - c.lost.get('cells_changed', 0) / cells):.1f} %"
        print(
            f"{mark} {i:>3} {c.method:<15} {c.risk:>8.4f} {utility:>8}  {'yes' if c.passes else 'no ':<4}  "
            f"{'yes' if c.frontier else 'no':<8}  {kept:>10}  {printable(', '.join(c.deleted)) or '-':<7}  "
            f"{printable(options)}"
        )
    for note in ex.notes:
        print(f"  note: {printable(note)}")
    if ex.no_change_needed:
        print(f"{NO_CHANGE}; nothing written")
        return
    if ex.recommended is None:
        print("no candidate passes the policy: nothing recommended")
        return
    c = ex.candidates[ex.recommended]
    print(f"recommended: #{ex.recommended} ({c.method}), risk {c.risk:.4f}, utility {c.utility:.4f}")
    print_lost(c.lost, sys.stdout)
    if out is None:
        print("give --out FILE to write it")
    elif found.offered:
        print(f"wrote {out}")
        print_audit_again(found.outcome, out)
    else:
        print("no remediated table written: its re-audit does not pass (see the report)")


def _print_recipe(recipe: dict) -> None:
    """The recipe's table: the input, then each step's re-audit (as the report's Recipe chapter)."""
    from privaudit.report.recipe_table import recipe_rows

    headers, rows = recipe_rows(recipe)
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    for line in [headers, *rows]:
        print("  " + "  ".join(printable(str(v)).ljust(w) for v, w in zip(line, widths, strict=True)).rstrip())
    failing = recipe.get("failing_step")
    if failing is not None:
        step = recipe["steps"][failing]
        print(f"  step {failing} ({printable(step['method'])}) fails: nothing written")


def _print_outcome(outcome, out: str) -> None:
    rem = outcome.after.remediation
    if rem.get("recipe"):
        _print_recipe(rem["recipe"])
    print(
        f"before: {'PASS' if outcome.before.passed else 'FAIL'} "
        f"({len(outcome.before.failed)} failed)  ->  after {rem['method']}: "
        f"{'PASS' if outcome.offered else 'FAIL'} ({len(outcome.after.failed)} failed)"
    )
    if rem.get("lost"):
        print_lost(rem["lost"], sys.stdout)
    for key, value in rem["loss"].items():
        if not isinstance(value, (dict, list)):  # nested figures are in the reports
            print(f"  {key}: {value:.6g}" if isinstance(value, float) else f"  {key}: {value}")
    for note in rem["notes"]:
        print(f"  note: {printable(note)}")
    print(
        f"wrote {out}"
        if outcome.offered
        else "no remediated table written: its re-audit does not pass (see the report)"
    )
    print_audit_again(outcome, out)
    print_audit(outcome.after, sys.stdout)

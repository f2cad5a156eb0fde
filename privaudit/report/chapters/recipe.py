"""The report's "Recipe" chapter, after ``privaudit remediate --recipe``: the steps in order and, for the input
and each step's output as re-audited, the verdict, the failing checks' values, the prosecutor's average risk,
granularity and what was lost -- each step beside the input's and the previous step's, as sdcApp compares a
step with the original (Templ, Kowarik & Meindl, J. Statistical Software 67(4), 2015, section 5) and the
ESSnet handbook measures risk and loss after each method (Hundepool et al., *Statistical Disclosure Control*,
Wiley 2012, section 3.6). Built from the JSON report's ``remediation.recipe``."""

from __future__ import annotations

from typing import Any

from privaudit.plugin.chapter import Bullets, Callout, Chapter, ChapterContent, ChapterInput, Paragraph, Table
from privaudit.plugin.hookspecs import hookimpl
from privaudit.plugin.sections import DataTable


def _options(options: dict[str, Any]) -> str:
    """A step's options in one line (the method's defaults left out, as the recipe file gives them)."""
    if not options:
        return "its defaults"
    parts = []
    for key, value in options.items():
        if isinstance(value, dict):
            text = ", ".join(f"{k}: {v}" for k, v in value.items())
        elif isinstance(value, list):
            text = ", ".join(str(v) for v in value)
        else:
            text = str(value)
        parts.append(f"{key} = {text}")
    return "; ".join(parts)


def build(report: ChapterInput) -> ChapterContent | None:
    """The chapter: which steps ran, the table of their re-audits, and whether the last one passes."""
    from privaudit.report.recipe_table import recipe_rows

    rem = report.data.get("remediation")
    recipe = rem.get("recipe") if isinstance(rem, dict) else None
    if not isinstance(recipe, dict) or not recipe.get("steps"):
        return None
    steps = list(recipe["steps"])
    headers, rows = recipe_rows(recipe)
    failing = recipe.get("failing_step")
    if failing is None:
        verdict = Callout(
            "PASSES",
            f"the last of the {len(steps) - 1} steps passes every error check",
            "offer offered",
            "recipe-verdict",
        )
    else:
        verdict = Callout(
            "FAILS",
            f"step {failing} ({steps[failing]['method']}) fails the policy: nothing was written",
            "offer not-offered",
            "recipe-verdict",
        )
    numeric = frozenset(range(3, len(headers)))
    blocks: list[Any] = [
        Paragraph(
            (
                f"The recipe {recipe.get('source')} ran {len(steps) - 1} remediation methods in sequence, each on "
                "the previous step's output, and audited the table again with the policy after every step, "
                "against the original table (--original when given, else the recipe's input).",
            )
        ),
        Bullets(
            tuple(
                f"Step {i}: {s['title']} ({s['method']}): {_options(s.get('options') or {})}"
                for i, s in enumerate(steps)
                if i
            )
        ),
        verdict,
        Table(
            DataTable(
                headers,
                rows,
                caption="The input (step 0) and each step's output as audited again: risk is the prosecutor's "
                "average re-identification risk, granularity what the table keeps of the input's detail; cells "
                "changed since the input, and by the step itself",
                note="✗ marks a check that fails. Risk measures of perturbed (PRAM) values count the released "
                "values, which may not be the records' own (sdcMicro's warning).",
                numeric=numeric,
            )
        ),
    ]
    if recipe.get("description"):
        blocks.insert(1, Paragraph((str(recipe["description"]),), style="note"))
    return ChapterContent(blocks=tuple(blocks))


@hookimpl
def privaudit_report_chapters() -> list[Chapter]:
    return [Chapter("recipe", "Recipe: the steps and their re-audits", build, place="front", rank=15)]

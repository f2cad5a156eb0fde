"""Make the bundled example release from the original Adult extract (run from the repository root).

    python examples/adult/make_release.py

Steps (full-domain generalization with the ARX hierarchies in policies/hierarchies/adult/, then
record suppression):
1. generalize each quasi-identifier to a fixed hierarchy level: age -> 10-year bands (level 2),
   race -> * (level 1), marital-status -> spouse present / not present (level 1), education -> level 1
   (Undergraduate, High School ...), native-country -> continent (level 1), workclass -> level 1
   (Government, Non-Government, Unemployed); sex is kept;
2. suppress (replace by ``*``) every quasi-identifier of the records whose generalized class still has
   fewer than K = 5 records or fewer than P = 2 distinct values of a sensitive column (the policy's
   error-severity checks: 5-anonymity and 2-sensitive 5-anonymity); with the policy's default
   ``missing_qi: value`` those records form one class of their own.
The sensitive columns (occupation, salary-class) are released unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from privaudit.core.hierarchy import Hierarchy

HERE = Path(__file__).resolve().parent
HIERARCHIES = HERE.parents[1] / "policies" / "hierarchies" / "adult"
LEVELS = {"sex": 0, "age": 2, "race": 1, "marital-status": 1, "education": 1, "native-country": 1, "workclass": 1}
K = 5
P = 2
SENSITIVE = ("occupation", "salary-class")


def make_release(original: pd.DataFrame) -> pd.DataFrame:
    release = original.copy()
    for column, level in LEVELS.items():
        hierarchy = Hierarchy.from_csv(HIERARCHIES / f"{column}.csv")
        release[column] = hierarchy.generalize(original[column], level).to_numpy()
    qi = list(LEVELS)
    groups = release.groupby(qi, sort=False)
    violating = groups[qi[0]].transform("size") < K
    for column in SENSITIVE:
        violating |= groups[column].transform("nunique") < P
    release.loc[violating, qi] = "*"
    return release


def main() -> None:
    original = pd.read_csv(HERE / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    release = make_release(original)
    release.to_csv(HERE / "release.csv", sep=";", index=False)
    suppressed = int((release["age"] == "*").sum())
    print(f"wrote {HERE / 'release.csv'}: {len(release)} rows, {suppressed} records suppressed")


if __name__ == "__main__":
    main()

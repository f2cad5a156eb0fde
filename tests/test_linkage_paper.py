"""Distance-based record linkage as Torra's lecture slides define it (the source papers, seeds/001, "Distance-based
record linkage"): d^2(a, b) = WM_p(diff_1(a, b), ..., diff_n(a, b)) with
diff_i(a, b) = ((a_i - mean(a_i)) / sd(a_i) - (b_i - mean(b_i)) / sd(b_i))^2 -- each file standardized by
its own mean and standard deviation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privaudit.risk.linkage import AttributeSpec, distance_linkage
from privaudit.risk.linkage.encoding import _standardized

CASC = "tests/data/casc/CASCrefmicrodata.csv"
ATTRS = [AttributeSpec(c, "numeric") for c in ("TAXINC", "POTHVAL", "FEDTAX")]


@pytest.fixture(scope="module")
def casc() -> pd.DataFrame:
    data = pd.read_csv(CASC)[["TAXINC", "POTHVAL", "FEDTAX"]].astype(float)
    rng = np.random.default_rng(1)
    return data + rng.normal(scale=0.2 * data.std().to_numpy(), size=data.shape)  # a noise-masked release


def test_each_file_is_standardized_by_its_own_statistics():
    x = np.array([[1.0, 10.0], [2.0, np.nan], [3.0, 30.0], [6.0, 20.0]])
    z = _standardized(x)
    assert np.allclose(z[:, 0], (x[:, 0] - 3.0) / np.std(x[:, 0], ddof=1))
    assert z[1, 1] == 0.0  # missing: the file's own mean
    assert np.allclose(_standardized(3 * x + 40), z)  # an affine rescaling changes no z-score


def test_a_rescaled_release_links_as_the_release_does(casc):
    """A release with one attribute rescaled (x -> 3x + 40) links exactly as before: by the original's
    statistics (the earlier convention) its records would all lie far from their own and the rate
    would be understated (about 0.002 where the definition gives about 0.09 in the issue's example)."""
    original = pd.read_csv(CASC)[["TAXINC", "POTHVAL", "FEDTAX"]].astype(float)
    plain = distance_linkage(original, casc, ATTRS, seed=3)
    rescaled_release = casc.assign(FEDTAX=3 * casc["FEDTAX"] + 40)
    rescaled = distance_linkage(original, rescaled_release, ATTRS, seed=3)
    assert rescaled.rate == pytest.approx(plain.rate) and plain.rate > 0.05
    # by the original's statistics the rescaled attribute would dominate every distance
    o = original.to_numpy()
    mean, sd = o.mean(axis=0), o.std(axis=0, ddof=1)
    zo, zr = (o - mean) / sd, (rescaled_release.to_numpy() - mean) / sd
    d_own = ((zo - zr) ** 2).sum(axis=1)
    d_swapped = ((zo - np.roll(zr, 1, axis=0)) ** 2).sum(axis=1)
    assert np.median(d_own) > np.median(d_swapped) / 2  # own records no longer stand out


def test_worst_case_linkage_is_reported_as_a_bound(casc):
    """The worst-case (maximum-knowledge) weights are a bound, not an expected attack: the report says so
    and the check's value is the larger of the two rates."""
    from privaudit.testing import audit_frame, check_result, report_section

    original = pd.read_csv(CASC)[["TAXINC", "POTHVAL", "FEDTAX"]].astype(float).iloc[:300]
    release = casc.iloc[:300].round(0)
    policy = {
        "columns": {c: {"role": "quasi_identifier", "type": "numeric"} for c in ("TAXINC", "POTHVAL", "FEDTAX")},
        "checks": [{"assessor": "record_linkage", "max_rate": 0.5, "worst_case": True}],
    }
    result = audit_frame(release, policy, original=original)
    check = check_result(result, "record_linkage")
    d = check["details"]
    assert d["worst_case_rate"] >= d["rate"] and check["value"] == max(d["worst_case_rate"], d["rate"])
    text = " ".join(report_section(result, "record_linkage").paragraphs)
    assert "upper bound" in text and "not an attack one is expected to run" in text

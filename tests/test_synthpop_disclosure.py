"""synthpop_disclosure: synthpop 1.9's disclosure measures (Raab, Nowok & Dibben 2024), against synthpop itself.

Golden figures: synthpop 1.9-3 (github.com/bnowok/synthpop commit 9cc308184cd906d5176ff87b70d6c240ea0676c4),
``disclosure(syn, orig, keys, target, ...)`` on SD2011 and ``syn(ods, seed = 8564, cont.na = list(income = -8))``
(tests/data/synthpop, written and read back by tests/peers/synthpop_disclosure.R, which lists each call);
synthpop's percentages, 10 significant digits. A small table checks the definitions by hand.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import DATA

from privaudit.risk.synthetic.synthpop_disclosure import Options, disclosure
from privaudit.testing import run_cli

SD = DATA / "synthpop"
NUMERIC = {"age", "depress", "income"}
KEYS4 = ["sex", "age", "region", "placesize"]
MEASURES = ("UiO", "UiS", "UiOiS", "repU", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")
CAPS = ("baseCAPd", "CAPd", "CAPs", "DCAP", "TCAP")
# call -> ((ident, attrib and CAP figures in %), max_denom, mean_denom, Nexclusions "original", Nexclusions "DiSCO")
GOLDEN = {
    "depress": (
        (
            48.38,
            37.34,
            22.68,
            14.86,
            53.3,
            46.26,
            64.9,
            34.18,
            9.54,
            6.14,
            9.808648,
            74.14609524,
            69.77534632,
            16.38624675,
            14.69953775,
        ),
        3,
        1.163414634,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;477",
    ),
    "marital": (
        (
            48.38,
            37.34,
            22.68,
            14.86,
            79.24,
            71.58,
            64.9,
            48.94,
            35.18,
            29.52,
            43.066504,
            90.25504762,
            87.48995382,
            43.65673449,
            54.20647149,
        ),
        5,
        1.484388186,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;1759",
    ),
    "workab": (
        (
            48.38,
            37.34,
            22.68,
            14.86,
            90.9,
            87.4,
            64.9,
            57.42,
            52.1,
            48.82,
            79.405472,
            95.93304762,
            94.78261905,
            56.55707143,
            80.27734977,
        ),
        7,
        1.566446182,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;2605",
    ),
    "workab_not_NO": (
        (
            8.1,
            6.74,
            4.62,
            1.22,
            7.44,
            6.06,
            7.58,
            5.88,
            2.46,
            1.98,
            79.405472,
            11.3,
            10.69466667,
            3.945333333,
            58.57142857,
        ),
        5,
        1.5375,
        "4432;0;0;0;0;568",
        "2482;0;0;0;0;123",
    ),
    "ls_noNA": (
        (
            48.3,
            37.34,
            22.7,
            14.86,
            58.34,
            49.24,
            64.84,
            35.7,
            13.78,
            8.76,
            29.805216,
            78.42504762,
            73.06846609,
            23.07546465,
            21.25231339,
        ),
        4,
        1.177777778,
        "0;8;0;0;0;4992",
        "0;0;0;0;0;689",
    ),
    "marital_denom1": (
        (
            51.1,
            41.34,
            25.12,
            17,
            48.38,
            37.34,
            32.28,
            26.26,
            15.4,
            13.1,
            43.066504,
            55.92,
            45.72,
            12.70166667,
            64.00665004,
        ),
        1,
        1,
        "0;0;0;0;1952;3048",
        "0;0;0;0;989;770",
    ),
    "marital_denom5": (
        (
            48.4,
            37.56,
            22.7,
            14.86,
            78.98,
            69.76,
            64.52,
            48.94,
            35.18,
            29.52,
            43.066504,
            89.90933333,
            84.16647619,
            41.61304762,
            55.4015748,
        ),
        5,
        1.484388186,
        "0;0;0;0;19;4981",
        "0;0;0;0;0;1759",
    ),
    "marital_excl": (
        (
            43.5,
            33.88,
            20.94,
            12.76,
            68.52,
            61.98,
            55.98,
            41.52,
            29.52,
            24.44,
            43.066504,
            79.38371429,
            77.69831746,
            38.02806349,
            54.20492104,
        ),
        5,
        1.448478901,
        "0;0;0;657;0;4343",
        "0;0;0;283;0;1476",
    ),
    "workab_edu_keysNA": (
        (
            0.84,
            1.2,
            0.5,
            0.22,
            48.08,
            48.66,
            98.8,
            51.16,
            48.58,
            31.82,
            79.405472,
            86.16942529,
            86.59720319,
            84.38715909,
            49.17004049,
        ),
        25,
        7.810289389,
        "0;0;7;0;0;4993",
        "0;0;2;0;0;2429",
    ),
    "workab_edu": (
        (
            0.98,
            1.34,
            0.54,
            0.26,
            48.22,
            48.8,
            98.84,
            51.2,
            48.62,
            31.86,
            79.405472,
            86.30942529,
            86.73720319,
            84.42715909,
            49.19061109,
        ),
        25,
        7.766773163,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;2431",
    ),
    "income_groups": (
        (
            48.38,
            37.34,
            22.68,
            14.86,
            52.34,
            43.3,
            64.9,
            32.34,
            6.14,
            3.68,
            7.04068,
            73.20771429,
            66.68197258,
            11.06201154,
            9.460708783,
        ),
        5,
        1.171755725,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;307",
    ),
    "depress_age_groups": (
        (
            3.5,
            4.04,
            2.18,
            1.18,
            5.54,
            6.12,
            96.4,
            9.14,
            2.5,
            0.84,
            9.808648,
            32.27303917,
            34.31214406,
            17.86377515,
            2.593360996,
        ),
        9,
        1.602564103,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;125",
    ),
    "ls_income_key": (
        (0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 29.805216, 30.80618885, 31.11062051, 30.85695667, 0),
        0,
        None,
        "0;0;0;0;0;5000",
        "0;0;0;0;0;0",
    ),
}
CALLS = {
    "depress": (KEYS4, "depress", Options()),
    "marital": (KEYS4, "marital", Options()),
    "workab": (KEYS4, "workab", Options()),
    "workab_not_NO": (KEYS4, "workab", Options(not_targetlev=("NO",))),
    "ls_noNA": (KEYS4, "ls", Options(usetargetNA=False)),
    "marital_denom1": (KEYS4, "marital", Options(denom_lim=1, exclude_ov_denom_lim=True)),
    "marital_denom5": (KEYS4, "marital", Options(exclude_ov_denom_lim=True)),
    "marital_excl": (KEYS4, "marital", Options(exclude=(("sex", "MALE", "SINGLE"),))),
    "workab_edu_keysNA": (["sex", "age", "edu"], "workab", Options(usekeysNA=(False, False, False))),
    "workab_edu": (["sex", "age", "edu"], "workab", Options()),
    "income_groups": (KEYS4, "income", Options(ngroups={"income": 20}, cont_na={"income": (-8,)})),
    "depress_age_groups": (KEYS4, "depress", Options(ngroups={"age": 8})),
    "ls_income_key": (["sex", "income"], "ls", Options(ngroups={"income": 5})),
}


@pytest.fixture(scope="module")
def sd2011():
    return pd.read_csv(SD / "sd2011_original.csv"), pd.read_csv(SD / "sd2011_synthetic.csv")


@pytest.mark.parametrize("call", sorted(CALLS))
def test_the_figures_are_synthpops(sd2011, call):
    original, synthetic = sd2011
    keys, target, options = CALLS[call]
    got = disclosure(original, synthetic, keys, target, NUMERIC, options)
    figures, max_denom, mean_denom, ex_original, ex_disco = GOLDEN[call]
    for name, expected in zip(MEASURES + CAPS, figures, strict=True):
        assert getattr(got, name) * 100 == pytest.approx(expected, rel=1e-8, abs=1e-9), name
    assert got.max_denom == max_denom
    assert (got.mean_denom is None and mean_denom is None) or got.mean_denom == pytest.approx(mean_denom, rel=1e-8)
    assert ";".join(map(str, got.exclusions["original"].values())) == ex_original
    assert ";".join(map(str, got.exclusions["DiSCO"].values())) == ex_disco


def test_the_flags_are_synthpops(sd2011):
    """synthpop: workab's level NO is flagged by the 1-way check with 26 pairs by the 2-way check; marital 4 pairs;
    without NO the 1-way check flags "Missing" (disclosure()$check1 / $check2 of the calls above)."""
    original, synthetic = sd2011
    flags = {}
    for call in ("workab", "marital", "depress", "workab_not_NO", "marital_excl", "workab_edu"):
        keys, target, options = CALLS[call]
        got = disclosure(original, synthetic, keys, target, NUMERIC, options)
        flags[call] = (got.check_1way and got.check_1way["level"], len(got.check_2way))
    assert flags == {
        "workab": ("NO", 26),
        "marital": (None, 4),
        "depress": (None, 0),
        "workab_not_NO": ("Missing", 0),
        "marital_excl": (None, 3),
        "workab_edu": ("NO", 65),
    }


def test_the_definitions_on_a_small_table():
    """By hand: keys a..d; the release replicates unique a (same target) and unique b (other target)."""
    original = pd.DataFrame({"k": ["a", "b", "c", "c", "d"], "t": ["x", "y", "x", "x", "y"]})
    release = pd.DataFrame({"k": ["a", "b", "c", "c", "c", "e"], "t": ["x", "x", "x", "x", "y", "y"]})
    got = disclosure(original, release, ["k"], "t", set())
    assert got.UiO == pytest.approx(3 / 5)  # a, b, d
    assert got.repU == pytest.approx(2 / 5)  # a, b
    assert got.UiS == pytest.approx(3 / 6)  # a, b, e
    assert got.Dorig == pytest.approx(5 / 5)  # every original key holds one target value
    assert got.iS == pytest.approx(4 / 5)  # d is not in the release
    assert got.DiS == pytest.approx(2 / 5)  # a and b hold one value in the release; c does not
    assert got.DiSCO == pytest.approx(1 / 5)  # only a's value is the original's
    assert got.TCAP == pytest.approx(1 / 4)  # of the 4 original records whose key is in the release
    leave_out = disclosure(original, release, ["k"], "t", set(), Options(not_targetlev=("x",)))
    assert leave_out.DiSCO == 0 and leave_out.exclusions["original"]["excluded_target"] == 3


def _policy(tmp_path, **check):
    columns = {
        "sex": {"role": "quasi_identifier", "type": "nominal"},
        "age": {"role": "quasi_identifier", "type": "numeric"},
        "region": {"role": "quasi_identifier", "type": "nominal"},
        "placesize": {"role": "quasi_identifier", "type": "nominal"},
        "depress": {"role": "sensitive", "type": "numeric"},
        "income": {"role": "other", "type": "numeric"},
        "ls": {"role": "other", "type": "nominal"},
        "marital": {"role": "sensitive", "type": "nominal"},
        "workab": {"role": "sensitive", "type": "nominal"},
        "edu": {"role": "other", "type": "nominal"},
    }
    policy = {
        "version": 1,
        "name": "sd2011",
        "columns": columns,
        "checks": [{"assessor": "synthpop_disclosure", **check}],
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps(policy))
    return path


def _check(report: dict) -> dict:
    return next(c for c in report["checks"] if c["assessor"] == "synthpop_disclosure")


@pytest.mark.slow
def test_the_command_line_reports_synthpops_figures(tmp_path):
    out = tmp_path / "r.json"
    run = run_cli(
        "audit",
        SD / "sd2011_synthetic.csv",
        "--original",
        SD / "sd2011_original.csv",
        "--policy",
        _policy(tmp_path, max_share=0.2),
        "--json",
        out,
        "--html",
        tmp_path / "r.html",
        "--quiet",
    )
    assert run.code == 1  # workab's DiSCO 52.1% > 20%
    check = _check(json.loads(out.read_text()))
    d = check["details"]
    assert d["identity"]["UiO"] * 100 == pytest.approx(48.38) and d["identity"]["repU"] * 100 == pytest.approx(14.86)
    disco = {t["target"]: round(t["DiSCO"] * 100, 6) for t in d["targets"]}
    assert disco == {"depress": 9.54, "marital": 35.18, "workab": 52.1}
    assert (check["status"], d["worst_measure"], d["worst_target"]) == ("fail", "DiSCO", "workab")
    html = (tmp_path / "r.html").read_text()
    assert "replicated uniques" in html and "level &#39;NO&#39; makes" in html  # 2,482 disclosive records: named


@pytest.mark.slow
def test_the_api_with_synthpops_exclusions(tmp_path):
    """not.targetlev = "NO" for workab: synthpop's DiSCO 2.46%, repU 1.22% (call workab_not_NO)."""
    import privaudit

    policy = _policy(tmp_path, max_share=0.15, target="workab", not_target_levels={"workab": ["NO"]})
    report = privaudit.audit(SD / "sd2011_synthetic.csv", policy, original=SD / "sd2011_original.csv")
    check = next(c for c in report.checks if c.assessor == "synthpop_disclosure")
    (t,) = check.details["targets"] if isinstance(check.details, dict) else check.details.targets
    t = t if isinstance(t, dict) else t.model_dump()
    assert t["DiSCO"] * 100 == pytest.approx(2.46) and t["repU"] * 100 == pytest.approx(1.22)
    assert check.status == "pass" and check.value == pytest.approx(0.1486)  # repU from the keys alone


@pytest.mark.slow
@pytest.mark.parametrize(
    ("check", "expected"),
    [
        ({"keys": ["nope"]}, "keys: 'nope' is not a column of the policy"),
        ({"target": "sex"}, "target: 'sex' is also a key"),
        ({"ngroups_keys": {"sex": 4}}, "ngroups: 'sex' is not numeric"),
        ({"exclude": [{"key": "edu", "key_level": "x", "target_level": "y"}]}, "exclude[0].key: 'edu' is not one of"),
        ({"not_target_levels": {"workab": ["MAYBE"]}}, "not_target_levels: 'workab' has no level 'MAYBE'"),
    ],
)
def test_bad_parameters_are_one_line(tmp_path, check, expected):
    run = run_cli(
        "audit",
        SD / "sd2011_synthetic.csv",
        "--original",
        SD / "sd2011_original.csv",
        "--policy",
        _policy(tmp_path, max_share=0.2, **check),
        "--quiet",
    )
    assert run.code == 2 and expected in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow
def test_the_synthetic_chapter_shows_the_measures_beside_the_attacks(tmp_path, sd2011):
    """With an attack the "Synthetic release" chapter exists; it then gives synthpop's short print, each figure
    against max_share (the first 1,000 records of each table; a holdout of the next 1,000)."""
    original, synthetic = sd2011
    original.head(1000).to_csv(tmp_path / "o.csv", index=False)
    original.iloc[1000:2000].to_csv(tmp_path / "h.csv", index=False)
    synthetic.head(1000).to_csv(tmp_path / "s.csv", index=False)
    policy = _policy(tmp_path, max_share=0.2)
    spec = json.loads(policy.read_text())
    spec["checks"].append({"assessor": "inference", "max_risk": 0.5, "n_attacks": 100, "secret": "marital"})
    policy.write_text(json.dumps(spec))
    out = tmp_path / "r.html"
    run = run_cli(
        "audit", tmp_path / "s.csv", "--original", tmp_path / "o.csv", "--control", tmp_path / "h.csv",
        "--policy", policy, "--html", out, "--quiet",
    )  # fmt: skip
    assert run.code == 1
    html = out.read_text()
    chapter = html[html.index('<section id="synthetic" class="chapter">') :]
    assert "disclosure measures (shares of the original records)" in chapter.split("</section>")[0]
    assert chapter.count("over max_share") == 1  # workab's DiSCO (21.4%) alone exceeds 20%


@pytest.mark.slow
def test_the_policy_groups_a_numeric_target_as_synthpop(tmp_path):
    """ngroups_target = 20 with cont.na income = -8: synthpop's DiSCO 6.14%, Dorig 52.34% (call income_groups);
    use_keys_na false on edu (call workab_edu_keysNA): repU 0.22%, DiSCO 48.58%."""
    import privaudit

    grouped = _policy(tmp_path, max_share=0.5, target="income", ngroups_target=20, cont_na={"income": [-8]})
    report = privaudit.audit(SD / "sd2011_synthetic.csv", grouped, original=SD / "sd2011_original.csv")
    (t,) = next(c for c in report.checks if c.assessor == "synthpop_disclosure").details["targets"]
    assert (round(t["DiSCO"] * 100, 6), round(t["Dorig"] * 100, 6)) == (6.14, 52.34)
    no_na = _policy(tmp_path, max_share=0.5, keys=["sex", "age", "edu"], target="workab", use_keys_na={"edu": False})
    report = privaudit.audit(SD / "sd2011_synthetic.csv", no_na, original=SD / "sd2011_original.csv")
    (t,) = next(c for c in report.checks if c.assessor == "synthpop_disclosure").details["targets"]
    assert (round(t["repU"] * 100, 6), round(t["DiSCO"] * 100, 6)) == (0.22, 48.58)


def test_a_copy_discloses_what_the_original_does(sd2011):
    """A release that copies the original (shuffled) replicates every unique and discloses exactly Dorig:
    repU = UiO, DiSCO = DiSDiO = Dorig (Raab et al. 2024: the original's figures are the copy's)."""
    original, _ = sd2011
    copy = original.sample(frac=1, random_state=3)
    got = disclosure(original, copy, KEYS4, "marital", NUMERIC)
    assert got.repU == got.UiO == pytest.approx(0.4838)
    assert got.DiSCO == got.DiSDiO == got.Dorig == pytest.approx(0.7924)
    alone = disclosure(original, copy, KEYS4, None, NUMERIC)  # the identity figures need no target
    assert (alone.UiO, alone.repU, alone.check_2way) == (got.UiO, got.repU, [])


def test_a_perturbed_release_loses_uniques(sd2011):
    """A perturbed release (every age moved by one year, seeded) beside its original: fewer uniques survive
    than in a copy, and none beyond the original's own."""
    import numpy as np

    original, _ = sd2011
    moved = original.assign(age=original["age"] + np.random.default_rng(5).choice([-1, 1], len(original)))
    got = disclosure(original, moved, KEYS4, "marital", NUMERIC)
    assert 0 < got.repU < got.UiO and 0 < got.DiSCO < got.Dorig

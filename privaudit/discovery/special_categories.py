"""Sensitive attributes by header and by value labels: the special categories of personal data (GDPR
Article 9(1)), criminal convictions and offences (Article 10), and the usual confidential economics.

* Article 9(1): "personal data revealing racial or ethnic origin, political opinions, religious or
  philosophical beliefs, or trade union membership, and the processing of genetic data, biometric data for
  the purpose of uniquely identifying a natural person, data concerning health or data concerning a natural
  person's sex life or sexual orientation";
* Article 10: "personal data relating to criminal convictions and offences";
* economics: income, wages, debt, benefits, savings and expenditure -- not a special category, but the
  confidential variables of the IHSN/World Bank practice guide (Benschop, Machingauta and Welch, "sensitive
  variables") and sdcMicro's ``numVars`` (``expend``, ``income``, ``savings`` in its testdata).

Racial or ethnic origin and religion are also key variables (an intruder can observe them): the draft makes
such a column a quasi-identifier and says it is a special category (:mod:`privaudit.discovery.draft`).
Headers are matched as :mod:`privaudit.discovery.key_variables` does, in English, German, French, Spanish,
Italian and Dutch, in codebook spellings (``pid7na``, ``famincr``, ``churchatd``:
:mod:`privaudit.discovery.codebook`); a column whose header says nothing is recognised by its value labels
where a codebook style makes them plain (``Catholic``/``Protestant``/``None``, ``Democrat``/``Republican``).
Political opinions include the vote, party identification and ideology; religious beliefs their practice
(church attendance, prayer, being born again: :func:`religious_practice`); health includes drinking, smoking
and drug use, sex life contraception.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from privaudit.discovery.codebook import Codebook
from privaudit.discovery.headers import matches, tokens, transliterated


@dataclass(frozen=True)
class Special:
    key: str  # the policy's ``special_category`` value
    label: str  # plain words for comments and reports
    article: str  # "GDPR Art. 9", "GDPR Art. 10" or "" (confidential, not a special category)
    words: frozenset[str]
    stems: tuple[str, ...] = ()
    values: frozenset[str] = frozenset()  # value labels that reveal the category

    @property
    def text(self) -> str:
        return f"{self.label}, {self.article}" if self.article else self.label


def _s(key, label, article, words, stems="", values=""):
    return Special(key, label, article, transliterated(words.split()), tuple(stems.split()), frozenset(values.split()))


SPECIAL_CATEGORIES: tuple[Special, ...] = (
    _s(
        "sex_life",
        "sex life or sexual orientation",
        "GDPR Art. 9",
        "sexual sexlife sexuality orientation sexualorientation affair affairs infidelity extramarital adultery "
        "paramour lover sexpartners nsexpartners homosexual gay lesbian lgbt lgbtq bisexual sexualitaet "
        "seitensprung orientationsexuelle sexualite adultere infidelidad orientacionsexual sexualidad "
        "infedelta orientamentosessuale sessualita seksualiteit seksuele overspel vreemdgaan "
        "contraceptive contraceptives contraception birthcontrol condom condoms verhuetung contraception "
        "anticoncepcion contraccezione anticonceptie",
        "sexual extramarit contracep",
        "heterosexual homosexual bisexual gay lesbian asexual straight",
    ),
    _s(
        "health",
        "health",
        "GDPR Art. 9",
        "health healthy diagnosis diagnose diagnosed disease diseases illness ill sick sickness condition "
        "hiv aids cancer tumor tumour diabetes asthma treatment therapy medication medicine drug drugs "
        "disability disabled handicap impairment bmi smoker smoking alcohol pregnancy pregnant mental "
        "depression psychiatric icd icd10 icd9 hospital hospitalisation hospitalization symptom symptoms "
        "physlim ndisease hlthg hlthf hlthp mdvis gesundheit krankheit erkrankung behinderung sante maladie "
        "salud enfermedad discapacidad salute malattia disabilita gezondheid ziekte aandoening "
        "drink drinks drinking drank drunk binge alcoholic cannabis marijuana cocaine heroin opioid opioids "
        "substance tobacco cigarette cigarettes cigs smoke smokes chronic adl adls iadl iadls",
        "diagnos hlth health krankh erkrank malad enferm malatt ziek medic",
        "diabetes asthma cancer hiv depression hypertension influenza flu bronchitis gastritis",
    ),
    _s(
        "religion",
        "religious or philosophical beliefs",
        "GDPR Art. 9",
        "religion religious religiosity faith church denomination confession konfession "
        "religionszugehoerigkeit kirche culte confesion religione religie kerk kerkgenootschap belief beliefs "
        "weltanschauung bornagain prayer prayers pray worship churchgoing spiritual",
        "religi",
        "catholic protestant christian muslim islam jewish judaism hindu buddhist atheist agnostic orthodox "
        "evangelical lutheran baptist methodist anglican sikh mormon",
    ),
    _s(
        "political",
        "political opinions",
        "GDPR Art. 9",
        "political politics party partisan pid partyid partyidentification vote voted voting votes ballot "
        "election ideology ideological leftright selflr lrself lrscale liberal conservative partei wahl "
        "wahlabsicht politisch politique parti vote partido voto politica partito partij stem politiek",
        "politi ideolog vote",
        "democrat republican labour tory libdem green socialist communist liberal conservative",
    ),
    _s(
        "trade_union",
        "trade union membership",
        "GDPR Art. 9",
        "union unions unionmember unionised unionized tradeunion gewerkschaft syndicat syndique syndical "
        "sindicato sindicado sindacato iscrittosindacato vakbond vakbondslid",
        "gewerksch syndic sindac vakbond",
    ),
    _s(
        "ethnicity",
        "racial or ethnic origin",
        "GDPR Art. 9",
        "race racial ethn ethnic ethnicity ethnie ethnique raza etnia etnico etnicita etniciteit herkomst afkomst "
        "migrationshintergrund",
        "ethni etni",
        "white black asian hispanic latino latina caucasian african amer-indian-eskimo asian-pac-islander "
        "indigenous aboriginal cauc afam nonwhite",
    ),
    _s(
        "genetic",
        "genetic data",
        "GDPR Art. 9",
        "genetic gene genes genotype genome dna snp allele alleles haplotype genetisch genetique genetico",
        "genom genot",
    ),
    _s(
        "biometric",
        "biometric data",
        "GDPR Art. 9",
        "biometric biometrics fingerprint fingerprints faceprint iris retina voiceprint faceid "
        "biometrisch biometrique biometrico",
        "biometr",
    ),
    _s(
        "criminal",
        "criminal convictions and offences",
        "GDPR Art. 10",
        "criminal crime crimes conviction convictions convicted offence offences offense offenses offender "
        "arrest arrested prison prisoner jail incarceration incarcerated probation parole felony "
        "vorstrafe vorstrafen straftat straffaellig casier judiciaire condamnation delit antecedentes "
        "penales delito condena condanna reato casellario veroordeling strafblad delict misdrijf",
        "crimin convict",
    ),
    _s(
        "economic",
        "income, wealth or benefits",
        "",
        "income incomes inc hhinc faminc earnings earning wage wages salary salaries pay payment debt debts "
        "loan loans mortgage benefit benefits welfare pension pensions savings saving wealth assets "
        "expenditure expenditures expend expenses consumption spending allowance subsidy "
        "einkommen lohn gehalt verdienst schulden kredit vermoegen ersparnisse rente sozialhilfe ausgaben "
        "revenu revenus salaire dette dettes epargne allocation allocations depenses patrimoine "
        "ingreso ingresos salario sueldo deuda ahorro subsidio gastos reddito stipendio salario debito "
        "risparmio sussidio spese inkomen loon salaris schuld schulden spaargeld uitkering uitgaven vermogen "
        # the US Current Population Survey's codebook names (CASC's reference file): taxes, earnings, transfers
        "tax taxes taxinc fedtax statetax agi fica wsalval pearnval ernval intval ptotval pothval emcontrb",
        "income salar einkomm revenu ingres reddit inkom",
    ),
)
_BY_KEY = {s.key: s for s in SPECIAL_CATEGORIES}
#: special categories an intruder can also observe: drafted as quasi-identifiers, flagged special
OBSERVABLE = ("religion", "ethnicity")
#: the policy's ``special_category`` values, with their words for reports
LABELS = {s.key: s.text for s in SPECIAL_CATEGORIES if s.article}


@cache
def _codebook() -> Codebook:
    """The categories' codebook spellings; no beginning of a key variable's word is one (``state`` is not
    ``statetax``). Built on first use: the key variables' module reads this one's words."""
    from privaudit.discovery.key_variables import KEY_VARIABLES

    return Codebook({s.key: s.words for s in SPECIAL_CATEGORIES}, others=(w for c in KEY_VARIABLES for w in c.words))


_NOT_BEGINNINGS = frozenset({"condition", "condom", "condoms"})
#: words of six letters or more begin the names a codebook makes of them (``churchatd``, ``prayerfreq``)
#: (not words that begin common words: condition-al, condom-inium)
_LONG = {s.key: tuple(w for w in s.words if len(w) >= 6 and w not in _NOT_BEGINNINGS) for s in SPECIAL_CATEGORIES}
#: what makes a religion header one of practice or belief (attendance, prayer, importance, born again): not
#: the affiliation a neighbour knows, but what a person would not want known
PRACTICE = ("atd", "attend", "pray", "worship", "imp", "again", "freq", "belief", "faith", "spiritual")


def special_category(header: str) -> Special | None:
    """The first category ``header`` names (Article 9 and 10 before economics), or None: by a word (or stem)
    of it, a word of six letters or more beginning a token, or a codebook spelling of a word
    (:mod:`privaudit.discovery.codebook`: ``pid7na``, ``famincr``)."""
    parts = tokens(header)
    for special in SPECIAL_CATEGORIES:
        if matches(parts, special.words, special.stems):
            return special
    for special in SPECIAL_CATEGORIES:
        if any(p.startswith(w) for p in parts for w in _LONG[special.key]):
            return special
    coded = _codebook().match(parts)
    return _BY_KEY[coded[0]] if coded is not None else None


def religious_practice(header: str) -> bool:
    """Whether a religion header names a practice or belief (``churchatd``, ``religimp``, ``bornagain``)."""
    joined = "".join(tokens(header))
    return any(marker in joined for marker in PRACTICE)


def special_by_values(distinct: np.ndarray, counts: np.ndarray) -> tuple[Special, float] | None:
    """The Article 9 category a column's value labels reveal (at least two distinct labels of the category
    and half the values), with the share of values; None for codes, numbers and ordinary words."""
    if not 2 <= len(distinct) <= 200:
        return None
    labels = (
        pd.Series(distinct, dtype=object).astype(str).str.strip().str.lower().str.replace(r"[\s_]+", "-", regex=True)
    )
    total = max(int(np.sum(counts)), 1)
    for special in SPECIAL_CATEGORIES:
        if not special.values:
            continue
        hit = labels.isin(special.values).to_numpy(dtype=bool)
        share = float(np.sum(counts[hit])) / total
        if hit.sum() >= 2 and share >= 0.5:
            return special, share
    return None


def special(key: str) -> Special:
    return _BY_KEY[key]


def special_columns(declared: dict[str, str | None]) -> list[dict]:
    """The special categories of a table's columns, for reports: ``declared`` maps each column to the
    ``special_category`` its policy gives (or None). A column without one whose header names an Article 9
    or 10 category is listed too, ``by: "header"`` (a hand-written policy need not say it)."""
    out = []
    for column, key in declared.items():
        by = "policy"
        if key is None:
            found = special_category(column)
            if found is None or not found.article:
                continue
            key, by = found.key, "header"
        s = _BY_KEY[key]
        out.append({"column": column, "category": key, "label": s.label, "article": s.article, "by": by})
    return out

"""Key variables (quasi-identifiers) by header: the variables an intruder can observe or find in other sources.

The categories are the disclosure-control literature's lists of key variables:

* Benschop, Machingauta and Welch, *Statistical Disclosure Control: A Practice Guide* (IHSN / World Bank),
  section "Classifying variables" -- identifying variables: age, sex, marital status, household size and
  composition, region and urban/rural, education, occupation and employment status, religion, ethnicity,
  dwelling characteristics;
* Hundepool et al., *Statistical Disclosure Control* (ESSnet SDC handbook, Wiley 2012), section 3.3
  ("identifying variables"): variables that are visible or recorded in registers -- geography, sex, age,
  marital status, household composition, occupation and industry, nationality, dates of events. A job's
  rank, field and length of service are part of the occupation an employer's directory or a CV shows
  (they are drafted as a category of their own, ``career``, so that the draft's comment says which).

Each category lists header words in English, German, French, Spanish, Italian and Dutch, the codebook
abbreviations surveys use (``educ``, ``yrs_married``, ``marstat``, ``nchild``, ``hhsize``, ``urbrur``,
``ethnic``, sdcMicro's ``hhcivil``, ``relat``, ``electcon``), and a few stems for words with many endings
(``religi`` for religion, religious, religione, religie ...). A header naming an opinion or a rating
(``rate_marriage``, ``satisfaction_job``) is not an observable fact: :data:`OPINION` words veto the match; a
header naming a quantity of a key variable (``hrs_work``, ``time_to_work``: :data:`QUANTITY`) matches only
weakly, and is no key variable. Codebook spellings (``empl``, ``yedu``, ``yearborn``, ``racef``) are read by
:mod:`privaudit.discovery.codebook`, and a two-valued dummy is named after one category of its variable
(``nwhite``, ``catholic``, ``female``, ``south``, ``clerocc``).
"""

from __future__ import annotations

from dataclasses import dataclass

from privaudit.discovery.codebook import Codebook, subparts
from privaudit.discovery.headers import matches, tokens, transliterated
from privaudit.discovery.special_categories import SPECIAL_CATEGORIES


@dataclass(frozen=True)
class Category:
    key: str  # a short name: scenarios and tests use it
    label: str  # plain words for the draft's comment
    words: frozenset[str]
    stems: tuple[str, ...] = ()


def _c(key: str, label: str, words: str, stems: str = "") -> Category:
    return Category(key, label, transliterated(words.split()), tuple(stems.split()))


KEY_VARIABLES: tuple[Category, ...] = (
    _c(
        "age",
        "age or date of birth",
        "age ages agegroup agegrp ageyrs agecat alter alters alterskl altersklasse altersgruppe edad eta leeftijd "
        "birth birthdate birthday birthyear dob yob born geburt geburtsdatum geburtsjahr geburtstag naissance "
        "datenaissance anneenaissance nacimiento fechanacimiento nascita datanascita geboortedatum geboortejaar",
        "agegr",
    ),
    _c("sex", "sex or gender", "sex gender male female geschlecht sexe genre sexo genero sesso genere geslacht"),
    _c(
        "marital",
        "marital status or years married",
        "marital married marriage marstat marst maritalstatus civil civilstatus hhcivil spouse widowed divorced "
        "yrsmarried familienstand verheiratet etatcivil situationfamiliale matrimonial estadocivil casado "
        "statocivile coniugato burgerlijkestaat gehuwd",
        "marit",
    ),
    _c(
        "education",
        "education",
        "educ edu education educational school schooling degree diploma qualification literacy literate "
        "bildung schulabschluss abschluss ausbildung bildungsabschluss etudes diplome scolarite niveauetudes "
        "estudios escolaridad educacion nivelestudios istruzione titolostudio scolarita opleiding onderwijs "
        "opleidingsniveau schoolniveau isced phd doctorate doctoral promotion doctorat doctorado dottorato "
        "college university highschool graduate edlevel educlevel ed grade",
        "educ bildung scolar escolar istruz opleid",
    ),
    _c(
        "occupation",
        "occupation, industry or employment status",
        "occupation occ occup occucode prioccu job jobs profession workclass industry industr sector branch branche nace isic "
        "isco employment employed unemployed employ empstat emplstat work worker labour labor lfs "
        "beruf berufsgruppe taetigkeit erwerb erwerbsstatus erwerbstaetigkeit erwerbstatus arbeit wirtschaftszweig profession metier emploi "
        "travail secteur ocupacion profesion empleo trabajo occupazione professione lavoro "
        "settore impiego beroep werk arbeid bedrijfstak werkzaam",
        "occup occu beruf profes employ ocupac occupaz",
    ),
    _c(
        "career",
        "job rank, field or length of service",
        "rank academicrank jobrank paygrade payscale salarygrade jobgrade seniority department discipline faculty "
        "specialty speciality specialisation specialization jobtitle experience exper potexper yrsexper "
        "workexperience yearsexperience yrsservice yearsservice yearsofservice lengthofservice serviceyears "
        "dienstgrad dienstalter dienstjahre berufserfahrung fachbereich fakultaet fachrichtung anciennete "
        "faculte specialite antiguedad experiencia facultad especialidad anzianita esperienza facolta "
        "specialita dienstjaren werkervaring faculteit specialisme",
    ),
    _c(
        "citizenship",
        "citizenship or nationality",
        "nationality citizenship citizen native nativecountry countryofbirth birthplace birthcountry foreign "
        "foreigner foreignborn nativeborn "
        "staatsangehoerigkeit staatsbuergerschaft geburtsland nationalite paysnaissance nacionalidad "
        "paisnacimiento nazionalita cittadinanza nationaliteit geboorteland",
    ),
    _c(
        "geography",
        "geography (region, place, urban/rural)",
        "region regio regione regiao state province provincia provincie county district municipality municipio "
        "comune gemeente gemeinde kreis landkreis bundesland canton kanton commune departement dept city town "
        "village ville ciudad citta stad stadt ort wohnort woonplaats residence domicile zip zipcode postcode "
        "postal plz cp codepostal postalcode postleitzahl codicepostale codigopostal country pays pais paese land "
        "area geo geography location locality latitude longitude lat lon lng coordinates geocode "
        "urban rural urbrur urbrural urbanrural urbanity metro metropolitan smsa msa cbsa puma stratum barrio "
        "quartier neighbourhood neighborhood buurt wijk",
        "municip provin urban",
    ),
    _c(
        "household",
        "household size or composition",
        "hhsize hhsz householdsize hhmembers famsize familysize persons npers nperson npersons nmembers "
        "children child nchild nchildren numchild kids kid nkids dependents relat relation relationship "
        "relhead reltohead headrel kinder kinderzahl kinderanzahl haushaltsgroesse haushaltsgrosse enfants "
        "nbenfants taillemenage hijos numhijos figli numfigli kinderen aantalkinderen huishoudgrootte",
        "nchild",
    ),
    _c(
        "ethnicity",
        "ethnicity or race",
        "race racial ethn ethnic ethnicity ethnie ethnique raza etnia etnico etnicita etniciteit herkomst afkomst "
        "migration migrant immigrant migrationshintergrund origin origine",
        "ethni etni",
    ),
    _c(
        "religion",
        "religion",
        "religion religious religiosity faith church denomination confession konfession religionszugehoerigkeit "
        "kirche culte confesion religione religie kerk kerkgenootschap",
        "religi",
    ),
    _c("date", "a date of an event", "date datum fecha dateof admission discharge admitted discharged"),
    _c(
        "dwelling",
        "a visible dwelling characteristic",
        "dwelling housing house roof walls wall floor toilet water electricity electcon rooms nrooms tenure "
        "wohnung wohnflaeche dach logement toit vivienda techo abitazione tetto woning dak",
    ),
)
_BY_KEY = {c.key: c for c in KEY_VARIABLES}

#: words that make a header an opinion or a rating, not an observable fact (``rate_marriage``)
OPINION = frozenset(
    "rate rating rated satisfaction satisfied happy happiness opinion attitude agree importance "
    "trust feel feeling ideal preferred desired wanted zufriedenheit satisfaction bewertung meinung opinion "
    "satisfaccion soddisfazione tevredenheid mening".split()
)

#: words that make a key variable's header a quantity of it (hours worked, minutes of commute, visits): a
#: neighbour or a register knows that a person works, not how many hours last week
QUANTITY = frozenset(
    "hrs hr hours hour hrsweek min mins minute minutes time times duration commute freq frequency often "
    "visits visit weekly daily perweek distance km miles".split()
)

#: the categories of the "demographics only" attacker scenario
DEMOGRAPHIC = ("age", "sex", "geography")

#: a 0/1 dummy named after one category of a key variable (``female``, ``nwhite``, ``catholic``, ``evermarr``)
_DUMMY_LABELS = {
    "sex": "female male woman women man men fem girl boy",
    "ethnicity": "white black asian hispanic latino latina caucasian african afam cauc nonwhite indigenous "
    "aboriginal amerindian pacific islander mestizo",
    "religion": "catholic protestant christian muslim islam jewish judaism hindu buddhist atheist agnostic "
    "orthodox evangelical lutheran baptist methodist anglican sikh mormon spirit spiritual spiritualist",
    "marital": "married single divorced widowed widow separated cohabiting cohabit nevermarried evermarried partnered",
    "geography": "north south east west northeast northwest southeast southwest midwest northcen southcen central "
    "reg city metro rural urban",
    "occupation": "construc construction manuf manufacturing agric agriculture mining retail wholesale trade "
    "services finance transport utilities profserv clerical sales manager professional self selfemployed selfemp "
    "unemployed",
}


@dataclass(frozen=True)
class KeyMatch:
    """A key-variable category a header names, how (for the draft's comment), and whether only weakly: the
    header names a quantity of it (``hrs_work``), which is no key variable."""

    category: Category
    how: str
    weak: str | None = None


_CODEBOOK = Codebook({c.key: c.words for c in KEY_VARIABLES}, others=(w for s in SPECIAL_CATEGORIES for w in s.words))
_DUMMIES = Codebook({key: words.split() for key, words in _DUMMY_LABELS.items()})


def key_variable_match(header: str, dummy: bool = False, first: bool = False) -> KeyMatch | None:
    """The key-variable category ``header`` names: by a word of it (:func:`key_variable`), or in a codebook's
    spelling (:class:`~privaudit.discovery.codebook.Codebook`: ``empl``, ``yedu``, ``yearborn``); for a 0/1
    column (``dummy``) also by one of its categories (``nwhite``, ``catholic``). A header that also names a
    :data:`QUANTITY` is returned ``weak``; an opinion's header names none. ``first``: the category of the first
    word that names one (a label's words are a phrase: "children ever born" is of children)."""
    parts = tokens(header)
    if any(p in OPINION for p in parts):
        return None
    found: KeyMatch | None = None
    # a compound a category lists whole names it, before its parts name another: ``native_born`` and
    # ``nativeBorn`` are the category of ``nativeborn`` (citizenship), not of ``born`` (age)
    whole = "".join(parts)
    if not first and len(parts) > 1:
        found = next((KeyMatch(c, "its header") for c in KEY_VARIABLES if whole in c.words), None)
    starts = () if found is not None else range(len(parts)) if first else (0,)
    for start in starts:  # a label's first key word: "children ever born"
        for category in KEY_VARIABLES:
            if matches(parts[start : start + 1] if first else parts, category.words, category.stems):
                found = KeyMatch(category, "its header")
                break
        if found is not None:
            break
    if found is None and first:
        return key_variable_match(header, dummy)
    if found is None and (coded := _CODEBOOK.match(parts)) is not None:
        found = KeyMatch(_BY_KEY[coded[0]], f"its header in codebook spelling: {coded[1]}")
    if found is None and dummy and (label := _DUMMIES.match(parts) or _dummy_word(parts)) is not None:
        found = KeyMatch(_BY_KEY[label[0]], f"a 0/1 dummy of one category ({label[1]})")
    if found is None:
        return None
    quantity = sorted({p for p in parts if p in QUANTITY})
    if quantity:
        return KeyMatch(found.category, found.how, f"{', '.join(quantity)}: a quantity, not who the person is")
    return found


def _dummy_word(parts: list[str]) -> tuple[str, str] | None:
    """A dummy's category: one of its category words (``south``, ``reg661``), or a key variable's word after a
    few letters (``clerocc``: clerical occupation; ``outwork``: out of work)."""
    for p in subparts(parts):
        if p in _DUMMIES.words:
            return _DUMMIES.words[p], f"{p!r}"
        for i in range(2, min(len(p) - 2, 6)):
            word = _CODEBOOK.words.get(p[i:])
            if word is not None and word not in ("age", "date"):
                return word, f"{p!r} ends in {p[i:]!r}"
    return None


def key_variable(header: str) -> Category | None:
    """The first key-variable category ``header`` names (not weakly), or None (an opinion's header names none)."""
    found = key_variable_match(header)
    return found.category if found is not None and found.weak is None else None


def category(key: str) -> Category:
    return _BY_KEY[key]

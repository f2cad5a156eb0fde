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
(``rate_marriage``, ``satisfaction_job``) is not an observable fact: :data:`OPINION` words veto the match.
"""

from __future__ import annotations

from dataclasses import dataclass

from privaudit.discovery.headers import matches, tokens, transliterated


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
        "opleidingsniveau schoolniveau isced phd doctorate doctoral promotion doctorat doctorado dottorato",
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
        "nationality citizenship citizen native nativecountry countryofbirth birthplace birthcountry "
        "staatsangehoerigkeit staatsbuergerschaft geburtsland nationalite paysnaissance nacionalidad "
        "paisnacimiento nazionalita cittadinanza nationaliteit geboorteland",
    ),
    _c(
        "geography",
        "geography (region, place, urban/rural)",
        "region regio regione regiao state province provincia provincie county district municipality municipio "
        "comune gemeente gemeinde kreis landkreis bundesland canton kanton commune departement dept city town "
        "village ville ciudad citta stad stadt ort wohnort woonplaats residence domicile zip zipcode postcode "
        "postal plz cp codepostal country pays pais paese land area geo geography location locality "
        "urban rural urbrur urbrural urbanrural urbanity stratum barrio quartier neighbourhood neighborhood "
        "buurt wijk",
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
    "trust feel feeling zufriedenheit satisfaction bewertung meinung opinion satisfaccion "
    "soddisfazione tevredenheid mening".split()
)

#: the categories of the "demographics only" attacker scenario
DEMOGRAPHIC = ("age", "sex", "geography")


def key_variable(header: str) -> Category | None:
    """The first key-variable category ``header`` names, or None (an opinion's header names none)."""
    parts = tokens(header)
    if any(p in OPINION for p in parts):
        return None
    for category in KEY_VARIABLES:
        if matches(parts, category.words, category.stems):
            return category
    return None


def category(key: str) -> Category:
    return _BY_KEY[key]

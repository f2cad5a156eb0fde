"""Codebook spellings of a vocabulary's words: how surveys abbreviate and compound variable names.

A codebook names variables in a few letters, and the rules it follows are few (the IHSN/World Bank
practice guide's and the DDI codebooks' examples; Wooldridge's and the R data packages' survey extracts):

* a *prefix* of the word (``empl`` for employ, ``marr`` for married, ``ideo`` for ideology): at least four
  letters and half of a word of six to ten letters (a longer one is a compound), and no other vocabulary's word begins so;
* its *consonant skeleton* (``fml`` for female, ``cnty`` for county, ``chld`` for child): the first letter
  and the consonants after it, doubled letters once (three letters only of a word of six or more);
* a *compound* of the word with a modifier that qualifies without changing what is named: before it
  ``n``/``non`` (not: ``nwhite``), ``y``/``yrs`` (years of: ``yedu``), ``ever`` (``evermarr``), ``year``/``mnth``
  (of birth: ``yearborn``), ``h``/``hh``/``hus`` (the husband's or household's: ``heduc``, ``husage``),
  ``young``/``old`` (``youngkids``); after it ``sq`` (squared: ``agesq``), ``f``/``r``/``c`` (factor, recode,
  code: ``racef``, ``famincr``), ``cat``/``grp`` (a grouping), ``ed`` (``collegeed``), ``lt``/``ge`` (less
  than, at least: ``kidslt6``), ``vis`` (visits: ``hospvis``); or of two words of the same kind (``ethrace``). Digits split a name (``pid7na``,
  ``ethrace2a``).

A modifier must stand beside a whole word of at least three letters, so ``wage`` is not ``w`` + ``age``
nor ``usage`` ``us`` + ``age``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: letters before a word that qualify it without changing its kind
PREFIX_MODIFIERS = frozenset(
    "n non not y yr yrs year years mnth month mo num nr no ever h hh fam tot total ln log l cur curr young old "
    "younger older hus husb wife spouse sp".split()
)
#: letters after a word that qualify it without changing its kind
SUFFIX_MODIFIERS = frozenset(
    "sq sqr squared cat cats grp gr group f fac factor r rc recode c cd code d dum lvl level n num yr yrs ed "
    "na a b x lt le gt ge vis".split()
)
#: words of their own that begin a vocabulary word: never taken for its abbreviation
_COMMON = frozenset(
    "stat dist part cond cons cont rate star stag test temp last less over main mean more most prop resp real "
    "sign spec tran rest char term life line list form free full high home hour live open play post pres prev "
    "prim prod publ read seco self serv sing some stud tota unit user vari week with disc pens seni expe "
    "deri cult assi bene mort prov depa depar fact ment sala wate wall flo floo inco code data doctor coll comm "
    "conf cant casa depe dipl bran count coun head special speci specia service servic senior senio nation "
    "national nationa kind kinde gene villa vill liter lite local loca orig origi sect secte strat stra grad gradu "
    "pers perso quart quar mars spou trav sett raci niveau domi resid reside depen depend promo promot promoti "
    "admi admit elec elect bild str ltd mtr prc tch fth brt cmn csd dtf gcd prio prioc stdt alte "
    "trade face hand para taxi voice medi ball reti ther subs pear offe adult adul allow ahor patri wors opd hero "
    "mala".split()
)


def skeleton(word: str) -> str:
    """The first letter and the consonants after it, each run of one letter once (``female`` -> ``fml``)."""
    return re.sub(r"(.)\1+", r"\1", word[0] + re.sub(r"[aeiou]", "", word[1:]))


def subparts(parts: list[str]) -> list[str]:
    """A header's tokens split at digits (``pid7na`` -> ``pid``, ``na``), digits dropped."""
    return [s for p in parts for s in re.split(r"\d+", p) if s]


class Codebook:
    """The codebook spellings of one vocabulary (``groups``: a key, say a key-variable category, to its
    words); ``others`` are the words of the other vocabularies, whose prefixes are no abbreviation here."""

    def __init__(self, groups: Mapping[str, Iterable[str]], others: Iterable[str] = ()):
        self.words: dict[str, str] = {}
        for key, words in groups.items():
            for w in words:
                if len(w) >= 3:
                    self.words.setdefault(w, key)
        foreign = {w for w in others if w not in self.words}
        found: dict[str, set[str]] = {}
        for w, key in self.words.items():
            if not 5 <= len(w) <= 10:
                continue  # a long word is a compound (countryofbirth): its beginnings are other words
            if len(w) >= 6:
                for i in range(max(4, (len(w) + 1) // 2), len(w) - 1):
                    found.setdefault(w[:i], set()).add(key)
            s = skeleton(w)
            if s != w and (len(s) >= 4 or (len(s) == 3 and 6 <= len(w) <= 7)):
                found.setdefault(s, set()).add(key)
        clash = {w[:i] for w in foreign for i in range(4, len(w) + 1)} | {skeleton(w) for w in foreign}
        self._starts: dict[str, set[str]] = {}
        for w, key in self.words.items():
            for i in range(3, len(w)):
                self._starts.setdefault(w[:i], set()).add(key)
        self.abbreviations = {
            a: next(iter(keys))
            for a, keys in found.items()
            if len(keys) == 1 and a not in _COMMON and a not in self.words and a not in clash
        }

    def _named(self, text: str) -> tuple[str, str] | None:
        """The key ``text`` names as a whole word or an abbreviation, and the word's evidence."""
        if text in self.words:
            return self.words[text], text
        if text in self.abbreviations:
            return self.abbreviations[text], text
        return None

    def match(self, parts: list[str]) -> tuple[str, str] | None:
        """The key a header's tokens name in codebook spelling, and how (for the draft's comment); None."""
        split = subparts(parts)
        for p in split if split != parts else ():
            if p in self.words:
                return self.words[p], f"{p!r} is a word of it"
        for p in split:
            if p in self.abbreviations:
                return self.abbreviations[p], f"{p!r} abbreviates a word of it"
            for i in range(1, len(p)):
                head, tail = p[:i], p[i:]
                if head in PREFIX_MODIFIERS and (named := self._named(tail)) is not None:
                    return named[0], f"{p!r} is {head!r} + {named[1]!r}"
                if tail in SUFFIX_MODIFIERS and (named := self._named(head)) is not None:
                    return named[0], f"{p!r} is {named[1]!r} + {tail!r}"
                if len(head) >= 3 and (first := self._named(head) or self._prefix(head)) is not None:
                    second = self._named(tail)
                    if second is not None and second[0] == first[0]:
                        return first[0], f"{p!r} is {head!r} + {second[1]!r}"
        return None

    def _prefix(self, text: str) -> tuple[str, str] | None:
        """A three-letter or longer beginning of a word, beside a whole word of the same kind (``eth`` + ``race``)."""
        keys = self._starts.get(text, set())
        return (next(iter(keys)), text) if len(keys) == 1 else None

"""Disclosure-risk mathematics, independent of policies and reports: Earth Mover's Distances,
l-diversity measures, population and individual risk models, interval disclosure, randomized response,
and record linkage (:mod:`.linkage`). Assessors wrap these functions."""

"""What every package shares and none owns, importing nothing else of privaudit: the base of parameter
models (:mod:`.params`), comparisons with a threshold and the tie tolerance of distances
(:mod:`.thresholds`), numbers written for people (:mod:`.numbers`). Assessors, remediators, the
mathematics and the reports all read them from here, so none of those packages imports another for them."""

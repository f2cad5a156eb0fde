# Golden figures of synthpop's disclosure() for tests/test_synthpop_disclosure.py.
#
# Peer: synthpop 1.9-3, github.com/bnowok/synthpop at commit 9cc308184cd906d5176ff87b70d6c240ea0676c4
# (R/disclosure.R: disclosure.data.frame -> disclosure.synds; R/synorig.compare.R). Built from that snapshot
# with R CMD INSTALL into /tmp/synthdisc-Rlib after dropping the imports mipfp and broman (not in Debian;
# used only by syn(method = "ipf") and a smoothing helper, neither reached here) from DESCRIPTION/NAMESPACE.
#
# Run: R_LIBS=/tmp/synthdisc-Rlib Rscript tests/peers/synthpop_disclosure.R tests/data/synthpop
# Writes sd2011_original.csv (SD2011, synthpop's data/SD2011.rda, 10 columns), sd2011_synthetic.csv
# (syn(ods, seed = 8564, cont.na = list(income = -8)), CART, as in the disclosure vignette) and
# disclosure_golden.csv (one row per call below: ident, attrib, allCAPs, Nexclusions of the DiSCO table).
suppressMessages(library(synthpop))
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else "."
ods <- SD2011[, c("sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab", "edu")]
s1 <- syn(ods, seed = 8564, print.flag = FALSE, cont.na = list(income = -8))
write.csv(ods, file.path(out, "sd2011_original.csv"), row.names = FALSE, na = "")
write.csv(s1$syn, file.path(out, "sd2011_synthetic.csv"), row.names = FALSE, na = "")
# read back as privaudit reads them: the figures must come from the two CSV files themselves
orig <- read.csv(file.path(out, "sd2011_original.csv"), stringsAsFactors = TRUE, na.strings = "")
syn1 <- read.csv(file.path(out, "sd2011_synthetic.csv"), stringsAsFactors = TRUE, na.strings = "")
for (v in c("sex", "region", "placesize", "ls", "marital", "workab", "edu")) {
  orig[[v]] <- factor(orig[[v]]); syn1[[v]] <- factor(syn1[[v]])
}
keys4 <- c("sex", "age", "region", "placesize")
calls <- list(
  depress = list(keys = keys4, target = "depress"),
  marital = list(keys = keys4, target = "marital"),
  workab = list(keys = keys4, target = "workab"),
  workab_not_NO = list(keys = keys4, target = "workab", not.targetlev = "NO"),
  ls_noNA = list(keys = keys4, target = "ls", usetargetNA = FALSE),
  marital_denom1 = list(keys = keys4, target = "marital", denom_lim = 1, exclude_ov_denom_lim = TRUE),
  marital_denom5 = list(keys = keys4, target = "marital", exclude_ov_denom_lim = TRUE),
  marital_excl = list(keys = keys4, target = "marital", exclude.keys = "sex",
                      exclude.keylevs = "MALE", exclude.targetlevs = "SINGLE"),
  workab_edu_keysNA = list(keys = c("sex", "age", "edu"), target = "workab", usekeysNA = FALSE),
  workab_edu = list(keys = c("sex", "age", "edu"), target = "workab"),
  income_groups = list(keys = keys4, target = "income", ngroups_target = 20, cont.na = list(income = -8)),
  depress_age_groups = list(keys = keys4, target = "depress", ngroups_keys = c(0, 8, 0, 0)),
  ls_income_key = list(keys = c("sex", "income"), target = "ls", ngroups_keys = c(0, 5))
)
rows <- list()
for (name in names(calls)) {
  a <- calls[[name]]
  d <- do.call(disclosure, c(list(object = syn1, data = orig, print.flag = FALSE), a))
  ex <- d$Nexclusions[[1]]
  rows[[name]] <- data.frame(
    call = name, d$ident, d$attrib, d$allCAPs,
    check1 = d$check1, check2 = if (length(d$check2) == 1) d$check2 else "",
    ex_orig = paste(ex["original", ], collapse = ";"), ex_disco = paste(ex["DiSCO", ], collapse = ";")
  )
}
res <- do.call(rbind, rows)
write.csv(res, file.path(out, "disclosure_golden.csv"), row.names = FALSE)
print(res[, c("call", "UiO", "repU", "Dorig", "DiSCO", "TCAP")])

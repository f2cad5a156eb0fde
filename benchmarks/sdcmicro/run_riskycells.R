# Golden figures for tests/test_risky_cells.py: sdcMicro's riskyCells (R/riskyCells.R, data.frame method) on
# its own `testdata` (tests/data/sdcmicro/testdata.csv), sdcMicro 5.8.1 (sdcTools/sdcMicro commit
# cf3251017482bb215f0a9abf4a930f502399fb72). Needs an installed sdcMicro; none of its code is copied here.
#
#   R_LIBS=/path/to/Rlib Rscript run_riskycells.R
#
# prints one line per combination: "setting;var1+var2+...;threshold;unsafe_cells".
# riskyCells calls a cell unsafe when N <= threshold: privaudit's k is threshold + 1.
suppressMessages(library(sdcMicro))
data(testdata)
keys <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
show <- function(setting, res) {
  dims <- grep("^dim", names(res), value = TRUE)
  for (i in seq_len(nrow(res))) {
    vars <- unlist(res[i, dims, with = FALSE])
    vars <- vars[!is.na(vars)]
    cat(setting, paste(vars, collapse = "+"), res$threshold[i], res$unsafe_cells[i], sep = ";")
    cat("\n")
  }
}
# 1. the Dutch public-use rule: every 1-, 2-, 3-way combination, a threshold per dimension
show("dims", riskyCells(testdata, keyVars = keys, threshold = c(50, 25, 10), useIdentificationLevel = FALSE, maxDim = 3))
# 2. identification levels (riskyCells tabulates every combination up to the number of levels in use)
show("levels", riskyCells(testdata, keyVars = keys, threshold = 5, useIdentificationLevel = TRUE,
                          level = c(1, 1, 2, 3, 3, 4, 4)))
# 3. combs = c(4, 3, 2) with k = c(10, 20, 40): thresholds 9, 19, 39 for dimensions 4, 3, 2
show("combs", riskyCells(testdata, keyVars = keys, threshold = c(0, 39, 19, 9), useIdentificationLevel = FALSE, maxDim = 4))
# 4. missing values: NA injected at fixed rows (1-based) into three key variables, every 1- and 2-way combination
td <- testdata
td$roof[seq(1, nrow(td), by = 37)] <- NA
td$relat[seq(5, nrow(td), by = 53)] <- NA
td$walls[seq(2, nrow(td), by = 101)] <- NA
show("missing", riskyCells(td, keyVars = keys, threshold = c(3, 2), useIdentificationLevel = FALSE, maxDim = 2))
# 5. localSuppression(combs = c(4, 3, 2), k = c(10, 20, 40)), key variables as factors, default importance:
#    cells suppressed per key variable ("localSuppression;supps;...")
tf <- testdata
for (v in keys) tf[[v]] <- as.factor(tf[[v]])
ls <- localSuppression(tf, keyVars = keys, k = c(10, 20, 40), combs = c(4, 3, 2))
cat("localSuppression", "supps", paste(unlist(ls$supps), collapse = ","), sep = ";")
cat("\n")

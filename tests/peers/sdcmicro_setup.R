# The sdcMicro fixtures of tests/test_import_sdcmicro.py (privaudit init --from-sdcmicro).
# Run from the repository's root: R_LIBS=/work/Rlib Rscript tests/peers/sdcmicro_setup.R
# sdcMicro 5.8.1 (CRAN; github.com/sdcTools/sdcMicro), its testdata (the first 300 records, 14 columns).
# Writes, in tests/data/sdcmicro/:
#   testdata300.csv    the data (NA as an empty cell)
#   setup.rds          the sdcMicroObj of createSdcObj(), saved with saveRDS (an S4 object: pyreadr skips it)
#   setup.roles.rds    the workaround: the setup exported as a data frame (variable, role), which pyreadr reads
#   figures.csv        sdcMicro's own risk figures of the setup (measure_risk through createSdcObj)
suppressMessages(library(sdcMicro))
out <- "tests/data/sdcmicro"
data(testdata)
d <- testdata[1:300, c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "age", "hhcivil",
                       "expend", "income", "savings", "ori_hid", "sampling_weight")]
write.csv(d, file.path(out, "testdata300.csv"), row.names = FALSE, na = "")
sdc <- createSdcObj(d, keyVars = c("urbrur", "roof", "sex", "age"), numVars = c("expend", "income", "savings"),
                    weightVar = "sampling_weight", hhId = "ori_hid", sensibleVar = "income", pramVars = "walls")
saveRDS(sdc, file.path(out, "setup.rds"))
# The workaround docs/import.md gives, as one line of R:
s <- readRDS(file.path(out, "setup.rds")); v <- names(s@origData); r <- function(i, role) if (length(i)) data.frame(variable = v[i], role = role); saveRDS(do.call(rbind, list(r(s@keyVars, "key"), r(s@numVars, "numeric"), r(s@weightVar, "weight"), r(s@hhId, "household_id"), r(s@strataVar, "strata"), r(s@sensibleVar, "sensitive"), r(s@pramVars, "pram"))), file.path(out, "setup.roles.rds"))
g <- sdc@risk$global
write.csv(data.frame(figure = c("risk", "risk_ER", "hier_risk", "hier_risk_ER", "sample_uniques"),
                     value = c(g$risk, g$risk_ER, g$hier_risk, g$hier_risk_ER, sum(sdc@risk$individual[, "fk"] == 1))),
          file.path(out, "figures.csv"), row.names = FALSE)
writeLines(paste("sdcMicro", packageVersion("sdcMicro")), file.path(out, "VERSION"))

# sdcMicro's own utility code run on two tables: dUtilityWORK (R/dUtility.R: IL1s, eigen) and
# summary.micro (R/microaggregation.R: amean, devvar, acor), parsed from the files of an sdcMicro checkout
# (github:sdcTools/sdcMicro; none of its code is copied here). Needs base R only.
#
#   Rscript run_dutility.R SDCMICRO_R_DIR ORIGINAL.csv MASKED.csv
#
# prints "name value" lines (17 digits).
args <- commandArgs(trailingOnly = TRUE)
pick <- function(file, name) {
  exprs <- parse(file)
  for (e in exprs) if (is.call(e) && identical(as.character(e[[1]]), "<-") && identical(as.character(e[[2]]), name)) return(eval(e))
  stop(name)
}
dUtilityWORK <- pick(file.path(args[1], "dUtility.R"), "dUtilityWORK")
summary.micro <- pick(file.path(args[1], "microaggregation.R"), "summary.micro")
# summary.micro also calls these; only their figures (not used here) depend on them
dUtility <- function(x, xm, method = "IL1s") dUtilityWORK(x, xm, method)
dRisk <- function(...) NA
dRiskRMD <- function(...) list(risk1 = NA, risk2 = NA, wrisk1 = NA, wrisk2 = NA)
x <- read.csv(args[2]); xm <- read.csv(args[3])
options(digits = 17)
cat("il1s", format(dUtilityWORK(x, xm, method = "IL1s"), digits = 17), "\n")
cat("eigen", format(dUtilityWORK(x, xm, method = "eigen"), digits = 17), "\n")
s <- summary.micro(list(x = x, mx = xm, fot = 1))
for (n in c("meanx", "meanxm", "amean", "devvar", "acor")) if (!is.null(s[[n]])) cat(n, format(s[[n]], digits = 17), "\n")

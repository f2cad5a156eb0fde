# sdcMicro 5.8.1's pram and topBotCoding (sdcTools/sdcMicro commit cf3251017482bb215f0a9abf4a930f502399fb72,
# R/pram.R, R/topBotCoding.R) timed on the table benchmarks/bench_perturbation.py writes, for comparison with
# privaudit's pram and top_bottom_coding on the same records (that script runs this one and prints the ratios).
# None of sdcMicro's code is copied here.
#
#   R_LIBS=/work/Rlib Rscript benchmarks/sdcmicro/perturbation.R TABLE.csv
#
# prints one "name seconds" line per run (elapsed seconds of system.time around the one sdcMicro call).
suppressMessages({library(sdcMicro); library(data.table)})
args <- commandArgs(trailingOnly = TRUE)
x <- as.data.frame(fread(args[1]))
x$region <- factor(x$region); x$occupation <- factor(x$occupation)
x$keep_region <- x$region
timed <- function(name, expr) cat(name, system.time(expr)[["elapsed"]], "\n")
q99 <- function(v) quantile(v, 0.99, type = 1, names = FALSE)
q01 <- function(v) quantile(v, 0.01, type = 1, names = FALSE)
# top coding of age and income at their 99th percentiles (as privaudit's top_quantile=0.99 on both)
timed("topBotCoding_top99_age_income", {
  y <- topBotCoding(x, value = q99(x$age), replacement = q99(x$age), kind = "top", column = "age")
  y <- topBotCoding(y, value = q99(x$income), replacement = q99(x$income), kind = "top", column = "income")
})
# top and bottom coding of age, income and weight (six calls)
timed("topBotCoding_top_bottom_3", {
  y <- x
  for (v in c("age", "income", "weight")) {
    y <- topBotCoding(y, value = q99(x[[v]]), replacement = q99(x[[v]]), kind = "top", column = v)
    y <- topBotCoding(y, value = q01(x[[v]]), replacement = q01(x[[v]]), kind = "bottom", column = v)
  }
})
set.seed(1)
timed("pram_region_occupation", p <- pram(x, variables = c("region", "occupation"), pd = 0.8, alpha = 0.5))
timed("pram_strata_region", p <- pram(x, variables = "occupation", strata_variables = "region", pd = 0.8, alpha = 0.5))
# per-category pd (a list element holding a vector: runif(L, min = pd, max = 1) per category)
timed("pram_pd_per_category", p <- pram(x, variables = "occupation", pd = list(seq(0.5, 0.95, length.out = 40)), alpha = 0.5))
# a given transition matrix (rows the original categories, rows summing to 1): keep 0.8, the rest spread
L <- nlevels(x$occupation)
m <- matrix(0.2 / (L - 1), L, L); diag(m) <- 0.8; m <- m / rowSums(m)
rownames(m) <- colnames(m) <- levels(x$occupation)
timed("pram_matrix", p <- pram(x, variables = "occupation", pd = m))

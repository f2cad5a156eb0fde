# sdcMicro's localSuppression (R/localSuppression.R, data.frame method, alpha = 1, default importance) timed on
# adult-like tables (';'-separated, '?' missing), for benchmarks/bench_local_suppression.py. Needs an installed
# sdcMicro (the library directory is the first argument); none of its code is copied here.
#
#   Rscript run_localsuppression.R SDCMICRO_LIB TABLE.csv K
#
# prints "rows N cells C per c1,c2,... seconds S".
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(sdcMicro, lib.loc = args[1]))
x <- read.csv(args[2], sep = ";", na.strings = "?", stringsAsFactors = TRUE, check.names = TRUE)
keys <- c("sex", "age", "race", "marital.status", "education", "native.country", "workclass", "salary.class")
for (v in keys) x[[v]] <- as.factor(x[[v]])
t <- system.time(ls <- localSuppression(x, keyVars = keys, k = as.integer(args[3])))
cat("rows", nrow(x), "cells", sum(unlist(ls$supps)), "per", paste(unlist(ls$supps), collapse = ","), "seconds", t[["elapsed"]], "\n")

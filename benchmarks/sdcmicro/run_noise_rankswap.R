# sdcMicro 5.8.1's addNoise (R/addNoise.r) and rankSwap (R/rankSwap.R, src/RankSwapping.h) on two data sets,
# for the figures in tests/test_noise_rank_swap.py and for benchmarks/bench_perturbation.py. Needs an installed
# sdcMicro (the library directory is the first argument); none of its code is copied here.
#
#   Rscript run_noise_rankswap.R SDCMICRO_LIB figures     # the figures the tests hold
#   Rscript run_noise_rankswap.R SDCMICRO_LIB time N [M]   # seconds of addNoise on N rows, rankSwap on M
#
# The synthetic table (built the same way in tests/test_noise_rank_swap.py) holds whole-number arithmetic
# only, so R and NumPy hold the same doubles.
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(sdcMicro, lib.loc = args[1]))

synthetic <- function(n) {
  i <- 0:(n - 1)
  data.frame(
    x1 = ((i * 7919) %% n) / 10 + 20,
    x2 = ((i * 7919) %% n) / 20 + ((i * 104729) %% 997) / 10,
    x3 = ((i * 31) %% 101) * 3 + (i %% 7)
  )
}

ranks_apart <- function(before, after) {
  # largest rank distance between a record's value and the value it received, over the values swapped
  r <- rank(before, ties.method = "first")
  value_rank <- setNames(r, before)
  moved <- after != before
  if (!any(moved)) return(0)
  max(abs(r[moved] - value_rank[as.character(after[moved])]))
}

if (args[2] == "figures") {
  x <- synthetic(2000)
  v <- c("x1", "x2", "x3")
  cat("restr noise=150 first rows:\n")
  print(format(head(addNoise(x, variables = v, noise = 150, method = "restr")$xm, 3), digits = 15))
  # additive and correlated2: the released variance over the original one, mean of 200 seeds
  for (m in c("additive", "correlated2")) {
    ratios <- t(sapply(1:200, function(s) {
      set.seed(s)
      xm <- addNoise(x, variables = v, noise = 150, method = m)$xm
      c(apply(xm, 2, var) / apply(x, 2, var), cor(xm)[1, 2] / cor(x)[1, 2])
    }))
    cat(m, "variance ratios and cor(x1,x2) ratio:", format(colMeans(ratios), digits = 6), "\n")
  }
  # rankSwap: the coded means are deterministic; the largest rank distance over 30 seeds
  xs <- x[, c("x1", "x3")]
  for (call in list(list(), list(P = 0.10), list(P = 0.10, TopPercent = 0, BottomPercent = 0), list(K0 = 0.1))) {
    dists <- sapply(1:30, function(s) {
      out <- suppressMessages(do.call(rankSwap, c(list(xs, variables = "x1", seed = s), call)))
      coded_top <- if (is.null(call$TopPercent)) sum(out$x1 == max(out$x1)) else 0
      coded_bottom <- if (is.null(call$BottomPercent)) sum(out$x1 == min(out$x1)) else 0
      keep <- rank(-xs$x1) > coded_top & rank(xs$x1) > coded_bottom  # the records not grouped to a mean
      ranks_apart(xs$x1[keep], out$x1[keep])
    })
    out <- suppressMessages(do.call(rankSwap, c(list(xs, variables = "x1", seed = 1), call)))
    cat("rankSwap", deparse(call), "max(x1)", format(max(out$x1), digits = 15), "min(x1)",
        format(min(out$x1), digits = 15), "grouped", sum(out$x1 == max(out$x1)), sum(out$x1 == min(out$x1)),
        "largest rank distance over 30 seeds", max(dists),
        "sorted values equal to the original's:", identical(sort(out$x1), sort(xs$x1)), "\n")
  }
} else {
  # addNoise on N rows, rankSwap on M rows (default N): sdcMicro's RankSwap loops over every candidate rank
  # of every value, so its time grows with the square of the rows
  n <- as.integer(args[3])
  m <- if (length(args) > 3) as.integer(args[4]) else n
  set.seed(0)
  table <- function(rows) data.frame(age = sample(0:99, rows, replace = TRUE), income = round(rlnorm(rows, 10, 1)))
  x <- table(n)
  for (method in c("additive", "correlated2")) {
    t <- system.time(addNoise(x, variables = c("age", "income"), method = method))
    cat("addNoise", method, "rows", n, "seconds", t[["elapsed"]], "\n")
  }
  x <- table(m)
  t <- system.time(suppressMessages(rankSwap(x, variables = c("age", "income"), seed = 1)))
  cat("rankSwap R0=0.95 rows", m, "seconds", t[["elapsed"]], "\n")
  t <- system.time(suppressMessages(rankSwap(x, variables = c("age", "income"), P = 0.05, seed = 1)))
  cat("rankSwap P=0.05 rows", m, "seconds", t[["elapsed"]], "\n")
}

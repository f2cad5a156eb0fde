# sdcMicro 5.8.1's recordSwap (sdcTools/sdcMicro commit cf32510, R/recordSwap.R, src/recordSwap/recordSwap.cpp)
# on its own synthetic census, createDat(), for comparison with privaudit's record_swap
# (benchmarks/bench_record_swap.py runs this script and prints both side by side).
#
# Usage: R_LIBS=/work/Rlib Rscript benchmarks/sdcmicro/record_swap.R MODE N OUT_CSV [SEEDS]
#   MODE "figures": set.seed(2021); dat <- createDat(N); writes dat to OUT_CSV, then for each scenario below and
#                   each seed 1..SEEDS prints one line: scenario, seed, households, households swapped
#                   (hid != hid_swapped), households in the log of those with no donor, and whether the
#                   households' counts per area of every hierarchy level and per (area, similarity profile)
#                   are kept (TRUE/FALSE), and the number of households that must be swapped per level.
#   MODE "time":    set.seed(2021); dat <- createDat(N); writes dat to OUT_CSV, prints the seconds of one
#                   recordSwap call (scenario "k3_lau2") as "time <seconds> <records> <households>".
suppressMessages({library(sdcMicro); library(data.table)})
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1]; N <- as.integer(args[2]); out <- args[3]
seeds <- if (length(args) >= 4) as.integer(args[4]) else 5L
set.seed(2021)
dat <- sdcMicro::createDat(N)
fwrite(dat, out)

scenarios <- list(
  k1_nuts3 = list(hier = c("nuts1", "nuts2", "nuts3"), similar = list("hsize"), k = 1, rv = c("ageGroup", "national"), rate = 0.05),
  k1_rate25 = list(hier = c("nuts1", "nuts2", "nuts3"), similar = list("hsize"), k = 1, rv = c("ageGroup", "national"), rate = 0.25),
  k3_nuts3 = list(hier = c("nuts1", "nuts2", "nuts3"), similar = list("hsize"), k = 3, rv = c("ageGroup", "national"), rate = 0.05),
  k2_nuts2 = list(hier = c("nuts1", "nuts2"), similar = list("hsize"), k = 2, rv = c("ageGroup", "national", "hsize"), rate = 0.05),
  k3_lau2 = list(hier = c("nuts1", "nuts2", "nuts3", "lau2"), similar = list("hsize"), k = 3, rv = c("ageGroup", "national"), rate = 0.05),
  k0_profiles = list(hier = c("nuts1", "nuts2"), similar = list("hsize", c("hsize", "htype")), k = 0, rv = c("ageGroup", "national"), rate = 0.05)
)

run <- function(s, seed) {
  log <- tempfile(fileext = ".txt")
  dat_s <- suppressMessages(recordSwap(data = dat, hid = "hid", hierarchy = s$hier, similar = s$similar,
    swaprate = s$rate, k_anonymity = s$k, risk_variables = s$rv, carry_along = NULL,
    return_swapped_id = TRUE, log_file_name = log, seed = seed))
  failed <- if (file.exists(log)) length(readLines(log)) - 2L else 0L
  list(dat_s = dat_s, failed = failed)
}

levels_of <- function(s) {
  cn <- colnames(dat)
  idx <- function(x) sdcMicro:::checkIndexString(x, cnames = cn, minLength = 1)
  risk <- sdcMicro:::setRisk_cpp(transpose(dat), idx(s$hier), idx(s$rv), idx("hid"))
  thr <- if (s$k == 0) 2 else 1 / s$k
  lv <- sdcMicro:::setLevels_cpp(risk, thr)
  first <- !duplicated(dat$hid)
  tabulate(lv[first] + 1L, nbins = length(s$hier) + 1L)
}

kept <- function(dat_s, cols) {
  a <- unique(dat, by = "hid")[, .(n_before = .N), keyby = cols]
  b <- unique(dat_s, by = "hid")[, .(n_after = .N), keyby = cols]
  m <- merge(a, b, by = cols, all = TRUE)
  isTRUE(all(m$n_before == m$n_after, na.rm = FALSE))
}

if (mode == "figures") {
  for (name in names(scenarios)) {
    s <- scenarios[[name]]
    lv <- paste(levels_of(s), collapse = "/")
    for (seed in seq_len(seeds)) {
      r <- run(s, seed)
      d <- r$dat_s
      swapped <- d[hid != hid_swapped, uniqueN(hid)]
      geo_kept <- all(sapply(seq_along(s$hier), function(h) kept(d, s$hier[1:h])))
      prof_kept <- kept(d, c(s$hier, s$similar[[1]]))
      cat(name, seed, uniqueN(dat$hid), swapped, r$failed, geo_kept, prof_kept, lv, "\n")
    }
  }
} else {
  s <- scenarios$k3_lau2
  t <- system.time(r <- run(s, 1L))[["elapsed"]]
  cat("time", t, nrow(dat), uniqueN(dat$hid), "\n")
}

# R's e1071 svm() as eps-regression with its defaults (radial kernel, gamma = 1/p,
# cost 1, epsilon 0.1, tolerance 0.001, features and target scaled): the reference of
# `crates/xai-models/tests/e1071_svr.rs`.
#
# 150 training and 50 test rows of U(-2, 2)^3 with y = sin(x1) + 0.5 x2^2 - x3 +
# N(0, 0.3^2), drawn with set.seed(20261128); every number written with 17
# significant digits, so Rust reads the same doubles. Two fits: shrinking = FALSE (the
# plain SMO, as ours) and the default shrinking = TRUE; for each the predictions at
# all 200 rows and the number of support vectors.
#
#   apt-get install r-base-core r-cran-e1071
#   Rscript scripts/peers/e1071_svr.R crates/xai-models/tests/fixtures/e1071_svr.csv
suppressMessages(library(e1071))
out <- commandArgs(trailingOnly = TRUE)[1]
set.seed(20261128)
n <- 200
x <- matrix(runif(3 * n, -2, 2), ncol = 3)
y <- sin(x[, 1]) + 0.5 * x[, 2]^2 - x[, 3] + rnorm(n, sd = 0.3)
train <- 1:150
test <- 151:200
fits <- list(
  plain = svm(x[train, ], y[train], type = "eps-regression", shrinking = FALSE),
  shrinking = svm(x[train, ], y[train], type = "eps-regression")
)
fmt <- function(v) sprintf("%.17g", v)
lines <- c(
  sprintf("# R %s, e1071 %s; scripts/peers/e1071_svr.R", getRversion(), packageVersion("e1071")),
  sprintf("# support vectors: plain %d, shrinking %d", fits$plain$tot.nSV, fits$shrinking$tot.nSV),
  "row,set,x1,x2,x3,y,plain,shrinking"
)
pred <- lapply(fits, function(f) predict(f, x))
for (i in 1:n) {
  set <- if (i <= 150) "train" else "test"
  lines <- c(lines, paste(c(i - 1, set, fmt(x[i, ]), fmt(y[i]), fmt(pred$plain[i]), fmt(pred$shrinking[i])), collapse = ","))
}
writeLines(lines, out)

"""Classification benchmark as ARX's ``StatisticsClassification`` runs it: how well a model trained on the
release predicts a target, relative to a model trained on the original and to the trivial ZeroR model.

Source: ARX 3.9, ``org/deidentifier/arx/aggregates/StatisticsClassification.java`` (the cross-validation),
``aggregates/classification/ClassificationDataSpecification.java`` (classes, features),
``MultiClassLogisticRegression.java``, ``MultiClassRandomForest.java``, ``MultiClassZeroR.java`` (the models and
their featurisation), ``ARXClassificationConfiguration.java`` and ``ClassificationConfiguration*.java`` (the
defaults) and the GUI's ``ViewStatisticsClassificationOutput.java`` (the relative accuracy). The scheme:

1. Up to ``max_records`` (ARX: 100,000) rows are drawn at random (seeded; ARX is deterministic by default) and
   cut into ``k = min(folds, rows)`` folds (ARX: 10) of ``rows // k`` rows, the last fold taking the rest.
2. For each fold as the evaluation set, three models are trained on the other folds: on the **original**'s
   features (ARX's "original accuracy", the ceiling), on the **release**'s features, skipping the records the
   release suppressed as a whole (ARX: ``!outputHandle.isOutlier(index)``), and ZeroR (the majority class of
   the training rows; ties go to the first class in sorted order, as ARX's class map is sorted). The original
   model classifies the fold's original rows; the release model the fold's **release** rows (ARX classifies
   ``outputHandle``: a model of generalized values meets generalized values), or with
   ``evaluate_on="original"`` the original rows (the issue's "test on the original").
3. Accuracy = correct classifications / classifications, over all folds; ARX's average error (mean of 1 - the
   probability given to the true class) and Brier score (mean over records of sum_c (p_c - [c = true])^2) beside.
4. ``value`` is ARX's **relative accuracy** (``ViewStatisticsClassificationOutput``):
   (accuracy - ZeroR) / (original accuracy - ZeroR), or accuracy / ZeroR when the original model does no better
   than ZeroR. It is 1 when the release trains as good a model as the original, 0 when no better than guessing
   the majority class; like ARX's it is not clipped (a release may train a slightly better model, > 1, or a
   worse one than ZeroR, < 0). ``raw`` is the plain accuracy of the release-trained model.

Featurisation (ARX's ``encodeFeatures``): without a feature-scaling function ARX treats every feature as
categorical: logistic regression gets one indicator per (attribute, value) word, the random forest one column
per attribute holding the value's identifier. privaudit does the same with exact one-hot columns (ARX hashes
the words into 1,000 slots) and identifiers in sorted value order (numerically when every value is a number).
A suppressed or generalized value ("*", "[20-30[") is just another value. ``numeric_features`` are ARX's scaled
numeric attributes (identity scaling): the parsed number, and for the values that do not parse an indicator
(logistic) or a value below the column's range (random forest).

Class labels are the release's target values (ARX builds its class map from the output handle), a cell equal to
the suppression token taking the original's value (ARX reads the class ignoring suppression).

Deviations, documented: the learners are scikit-learn's, not Mahout's online SGD (L1 prior, lambda 1e-5) and
SMILE's forest, so figures agree with ARX's in kind, not to the digit. Logistic regression is
``LogisticRegression(C=1, lbfgs, max_iter=1000)``; the random forest keeps SMILE's/ARX's defaults (500 trees,
at most 100 leaves, at least 5 records per leaf, floor(sqrt(features)) features per split, bootstrap samples,
Gini). The folds come from numpy's generator, not Java's ``Collections.shuffle``. A release record suppressed
as a whole is classified with its released ("*") values: ARX reads the generalized values under its suppression
flag, which a released file no longer holds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.core.errors import PrivauditError
from privaudit.utility.inputs import UtilityInputs

__all__ = ["MODELS", "classification_accuracy", "arx_folds", "relative_accuracy", "zero_r_accuracy"]

MODELS = ("logistic", "random_forest")
DEFAULT_FOLDS = 10  # ARXClassificationConfiguration.DEFAULT_NUMBER_OF_FOLDS
DEFAULT_MAX_RECORDS = 100_000  # ARXClassificationConfiguration.DEFAULT_MAX_RECORDS
DEFAULT_TREES = 500  # ClassificationConfigurationRandomForest.DEFAULT_NUMBER_OF_TREES
_MAX_LEAF_NODES = 100  # DEFAULT_MAXMIMUM_NUMBER_OF_LEAF_NODES
_MIN_LEAF_SIZE = 5  # DEFAULT_MINIMUM_SIZE_OF_LEAF_NODES


def _sklearn():
    try:
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise PrivauditError(
            "the classification benchmark needs scikit-learn: pip install 'privaudit[utility]'"
        ) from None
    return LogisticRegression, RandomForestClassifier


def arx_folds(
    n_rows: int, *, folds: int = DEFAULT_FOLDS, max_records: int = DEFAULT_MAX_RECORDS, seed: int = 0
) -> list[np.ndarray]:
    """ARX's ``getFolds``: shuffle the row indices, keep the first ``min(n_rows, max_records)``, cut into
    ``min(folds, kept)`` folds of ``kept // k`` rows (at least 1), the last fold taking the rest."""
    samples = min(n_rows, max_records) if max_records > 0 else n_rows
    k = min(folds, samples)
    rows = np.random.default_rng(seed).permutation(n_rows)[:samples]
    size = max(samples // k, 1)
    return [rows[i * size : (samples if i == k - 1 else (i + 1) * size)] for i in range(k)]


def relative_accuracy(accuracy: float, original_accuracy: float, zero_r_accuracy: float) -> float:
    """ARX's relative accuracy (ViewStatisticsClassificationOutput): (acc - ZeroR) / (original - ZeroR), or
    acc / ZeroR when the original model is no better than ZeroR; nan when that ratio is undefined."""
    if original_accuracy - zero_r_accuracy == 0.0:
        return accuracy / zero_r_accuracy if zero_r_accuracy else math.nan
    return (accuracy - zero_r_accuracy) / (original_accuracy - zero_r_accuracy)


# ------------------------------------------------------------------------------------------------------------
# featurisation


def _text(series: pd.Series) -> pd.Series:
    """Values as text, a number written the same whichever way the table was read (39, 39.0 and "39" agree)."""
    text = series.astype("string").fillna("")
    if (
        pd.api.types.is_bool_dtype(series)
        or pd.api.types.is_datetime64_any_dtype(series)
        or pd.api.types.is_timedelta64_dtype(series)
    ):
        return text.astype(object)
    numbers = to_numeric(series, errors="coerce")
    whole = numbers.notna() & np.isfinite(numbers) & (numbers == np.round(numbers)) & (numbers.abs() < 2**53)
    if whole.any():
        text = text.where(~whole, numbers[whole].astype("int64").astype("string"))
    return text.astype(object)


def _sorted_vocabulary(values: pd.Series) -> list:
    uniques = pd.unique(values)
    numbers = to_numeric(pd.Series(uniques), errors="coerce")
    if numbers.notna().all():
        return [uniques[i] for i in np.argsort(numbers.to_numpy(), kind="stable")]
    return sorted(uniques, key=str)


class _Design:
    """The feature matrices of the original and the release, on one shared encoding."""

    def __init__(self, original: pd.DataFrame, release: pd.DataFrame, features: list[str], numeric: set[str]):
        from scipy import sparse

        n = len(original)
        blocks_lr: list[Any] = []
        columns_rf: list[np.ndarray] = []
        for name in features:
            both = pd.concat([_text(original[name]), _text(release[name])], ignore_index=True)
            if name in numeric:
                numbers = to_numeric(both, errors="coerce").to_numpy(dtype=float)
                parsed = np.isfinite(numbers)
                if parsed.any():
                    centre = float(numbers[parsed].mean())
                    scale = float(numbers[parsed].std()) or 1.0
                    low = float(numbers[parsed].min()) - 1.0
                else:
                    centre, scale, low = 0.0, 1.0, -1.0
                blocks_lr.append(sparse.csr_matrix(np.where(parsed, (numbers - centre) / scale, 0.0)[:, None]))
                words = both.where(~parsed, None)
                if (~parsed).any():
                    codes, _ = pd.factorize(words)  # -1 for parsed values: no indicator
                    blocks_lr.append(_onehot(codes, 2 * n))
                columns_rf.append(np.where(parsed, numbers, low))
            else:
                vocabulary = _sorted_vocabulary(both)
                codes = pd.Categorical(both, categories=vocabulary).codes.astype(np.int64)
                blocks_lr.append(_onehot(codes, 2 * n))
                columns_rf.append(codes.astype(float))
        if blocks_lr:
            onehot = sparse.hstack(blocks_lr, format="csr")
            ordinal = np.column_stack(columns_rf)
        else:  # ARX: "special case where there are no features": a constant feature
            onehot = sparse.csr_matrix(np.ones((2 * n, 1)))
            ordinal = np.zeros((2 * n, 1))
        self.logistic = (onehot[:n], onehot[n:])
        self.random_forest = (ordinal[:n], ordinal[n:])
        self.n_features = max(len(features), 1)


def _onehot(codes: np.ndarray, n_rows: int):
    from scipy import sparse

    present = codes >= 0
    width = int(codes.max()) + 1 if present.any() else 1
    rows = np.flatnonzero(present)
    return sparse.csr_matrix((np.ones(rows.size), (rows, codes[present])), shape=(n_rows, width))


# ------------------------------------------------------------------------------------------------------------
# the benchmark


class _Tally:
    """Correct classifications, summed errors and Brier terms of one model over the folds."""

    def __init__(self) -> None:
        self.correct = 0.0
        self.error = 0.0
        self.brier = 0.0

    def add(self, proba: np.ndarray, truth: np.ndarray) -> None:
        rows = np.arange(truth.size)
        top = proba.max(axis=1)
        predicted = proba.argmax(axis=1)
        # ARX's LR/forest results: the arg-max class; ZeroR's and an untrained model's proba are handled alike
        self.correct += float(np.count_nonzero((predicted == truth) & (top > 0)))
        self.error += float((1.0 - proba[rows, truth]).sum())
        onehot = np.zeros_like(proba)
        onehot[rows, truth] = 1.0
        self.brier += float(((proba - onehot) ** 2).sum())


def _zero_r_fold(tally: _Tally, y_train: np.ndarray, truth: np.ndarray, n_classes: int) -> None:
    """ARX's ZeroR on one fold: predicts the training folds' majority class (ties: the first in sorted class
    order), with the training class shares as confidences (Brier score); its error is 0 or 1
    (MultiClassZeroRClassificationResult.error)."""
    counts = np.bincount(y_train, minlength=n_classes).astype(float)
    majority = int(np.argmax(counts))
    wrong = float(np.count_nonzero(truth != majority))
    tally.correct += truth.size - wrong
    tally.error += wrong
    proba = counts / counts.sum()
    # sum over records of sum_c (p_c - [c = truth])^2 = sum_c p_c^2 - 2 p_truth + 1 per record
    tally.brier += float(truth.size * (proba**2).sum() - 2.0 * proba[truth].sum() + truth.size)


def zero_r_accuracy(
    labels: Sequence, *, folds: int = DEFAULT_FOLDS, max_records: int = DEFAULT_MAX_RECORDS, seed: int = 0
) -> float:
    """The accuracy of ARX's ZeroR baseline under ARX's cross-validation, for one column of class labels."""
    codes = pd.factorize(pd.Series(list(labels), dtype=object).map(str), sort=True)[0]
    fold_rows = arx_folds(len(codes), folds=folds, max_records=max_records, seed=seed)
    tally = _Tally()
    n_classes = int(codes.max()) + 1
    for e, evaluation in enumerate(fold_rows):
        training = np.concatenate([f for i, f in enumerate(fold_rows) if i != e])
        _zero_r_fold(tally, codes[training], codes[evaluation], n_classes)
    return tally.correct / sum(f.size for f in fold_rows)


def _fit_predict(
    kind: str, x_train, y_train: np.ndarray, x_test, n_classes: int, *, seed: int, trees: int, n_features: int
) -> np.ndarray:
    """Class probabilities (n_test x n_classes) of a model trained on (x_train, y_train)."""
    n_test = x_test.shape[0]
    proba = np.zeros((n_test, n_classes))
    if y_train.size == 0:  # ARX: an output classifier that saw no record is not used (counts as wrong)
        return proba
    seen = np.unique(y_train)
    if seen.size == 1:
        proba[:, seen[0]] = 1.0
        return proba
    logistic_cls, forest_cls = _sklearn()
    if kind == "logistic":
        model = logistic_cls(C=1.0, max_iter=1000)
    else:
        model = forest_cls(
            n_estimators=trees,
            max_leaf_nodes=_MAX_LEAF_NODES,
            min_samples_leaf=_MIN_LEAF_SIZE,
            max_features=max(1, int(math.floor(math.sqrt(n_features)))),
            bootstrap=True,
            criterion="gini",
            random_state=seed,
            n_jobs=1,
        )
    model.fit(x_train, y_train)
    proba[:, model.classes_] = model.predict_proba(x_test)
    return proba


@dataclasses.dataclass(frozen=True)
class _Settings:
    """One run of the benchmark: what to predict from what, with which models and folds."""

    target: str
    features: Sequence[str] | None  # None: every column both tables share but the target (_validate resolves it)
    models: Sequence[str]
    folds: int
    max_records: int
    seed: int
    evaluate_on: str
    numeric_features: Sequence[str]
    suppressed: Sequence[bool] | np.ndarray | None
    suppression_token: str
    trees: int


def _validate(release: pd.DataFrame, original: pd.DataFrame, settings: _Settings) -> _Settings:
    """``settings`` with the features resolved (every shared column but the target by default), or one line
    saying what is wrong."""
    target, features, models = settings.target, settings.features, settings.models
    folds, max_records, trees = settings.folds, settings.max_records, settings.trees
    evaluate_on, numeric_features, suppressed = settings.evaluate_on, settings.numeric_features, settings.suppressed
    for table, frame in (("release", release), ("original", original)):
        if not isinstance(frame, pd.DataFrame):
            raise PrivauditError(f"the {table} table must be a pandas DataFrame, not {type(frame).__name__}")
        if target not in frame.columns:
            raise PrivauditError(f"classification target {target!r} is not a column of the {table} table")
    if len(release) != len(original):
        raise PrivauditError(
            f"the classification benchmark needs the release and the original row-aligned: the release has "
            f"{len(release)} rows, the original {len(original)}"
        )
    if len(release) < 2:
        raise PrivauditError("the classification benchmark needs at least 2 rows to cross-validate")
    if features is None:
        features = [c for c in release.columns if c in original.columns and c != target]
    else:
        features = list(features)
        for name in features:
            for table, frame in (("release", release), ("original", original)):
                if name not in frame.columns:
                    raise PrivauditError(f"classification feature {name!r} is not a column of the {table} table")
        features = [c for c in dict.fromkeys(features) if c != target]  # ARX drops the class from the features
    for name in numeric_features:
        if name not in features:
            raise PrivauditError(f"numeric feature {name!r} is not one of the classification features")
    unknown = [m for m in models if m not in MODELS]
    if unknown or not models:
        raise PrivauditError(
            f"unknown classification model {unknown[0] if unknown else '(none)'!r}; choose from {', '.join(MODELS)}"
        )
    if not isinstance(folds, int) or isinstance(folds, bool) or folds < 2:
        raise PrivauditError(f"folds must be an integer of at least 2, not {folds!r}")
    if not isinstance(max_records, int) or isinstance(max_records, bool) or max_records < 2:
        raise PrivauditError(f"max_records must be an integer of at least 2, not {max_records!r}")
    if not isinstance(trees, int) or isinstance(trees, bool) or trees < 1:
        raise PrivauditError(f"trees must be a positive integer, not {trees!r}")
    if evaluate_on not in ("release", "original"):
        raise PrivauditError(f"evaluate_on must be 'release' or 'original', not {evaluate_on!r}")
    if suppressed is not None and len(suppressed) != len(release):
        raise PrivauditError(f"suppressed marks {len(suppressed)} rows but the release has {len(release)}")
    return dataclasses.replace(settings, features=features)


def classification_accuracy(
    release: pd.DataFrame,
    original: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    *,
    models: Sequence[str] = MODELS,
    folds: int = DEFAULT_FOLDS,
    max_records: int = DEFAULT_MAX_RECORDS,
    seed: int = 0,
    evaluate_on: str = "release",
    numeric_features: Sequence[str] = (),
    suppressed: Sequence[bool] | np.ndarray | None = None,
    suppression_token: str = "*",
    trees: int = DEFAULT_TREES,
) -> list[dict]:
    """ARX's classification benchmark (see the module docstring): one figure per model.

    ``release`` and ``original`` are row-aligned (row i of each is the same person); ``features`` defaults to
    every column both tables share except ``target``. ``suppressed`` marks the release records suppressed as a
    whole (skipped when training on the release); by default a record whose every feature equals
    ``suppression_token`` is one. Each figure is ``{"measure": "classification_accuracy", "column": target,
    "value": relative accuracy, "raw": accuracy, "details": {...}}`` with the model, the original and ZeroR
    accuracies, average errors, Brier scores, ARX's Brier skill score, and the run's folds, records and seed.
    Raises :class:`PrivauditError` (one line) for a target or feature that is not a column, tables that are
    not row-aligned, an unknown model, bad parameters, or scikit-learn missing.
    """
    settings = _Settings(
        target,
        features,
        models,
        folds,
        max_records,
        seed,
        evaluate_on,
        numeric_features,
        suppressed,
        suppression_token,
        trees,
    )
    settings = _validate(release, original, settings)
    _sklearn()
    with _one_blas_thread():
        return _run(release, original, settings)


def _one_blas_thread():
    """The fits are small: parallel BLAS threads only contend for the cores."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn depends on threadpoolctl
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def _run(release: pd.DataFrame, original: pd.DataFrame, s: _Settings) -> list[dict]:
    fold_rows = arx_folds(len(release), folds=s.folds, max_records=s.max_records, seed=s.seed)
    sample = np.concatenate(fold_rows)  # only the drawn records are encoded (ARX's max_records bounds the work)
    bounds = np.cumsum([0] + [f.size for f in fold_rows])
    fold_rows = [np.arange(bounds[i], bounds[i + 1]) for i in range(len(fold_rows))]
    release = release.iloc[sample].reset_index(drop=True)
    original = original.iloc[sample].reset_index(drop=True)
    n = len(release)

    labels_release = _text(release[s.target])
    labels = labels_release.where(labels_release != s.suppression_token, _text(original[s.target]))
    classes = sorted(pd.unique(labels), key=str)
    y = pd.Categorical(labels, categories=classes).codes.astype(np.int64)
    n_classes = len(classes)

    if s.suppressed is None:
        if s.features:
            outlier = np.logical_and.reduce([_text(release[c]).to_numpy() == s.suppression_token for c in s.features])
        else:
            outlier = np.zeros(n, dtype=bool)
    else:
        outlier = np.asarray(s.suppressed, dtype=bool)[sample]

    design = _Design(original, release, s.features, set(s.numeric_features))

    zero_r = _Tally()
    tallies = {m: (_Tally(), _Tally()) for m in s.models}  # (original-trained, release-trained)
    measurements = 0
    for e, evaluation in enumerate(fold_rows):
        training = np.concatenate([f for i, f in enumerate(fold_rows) if i != e])
        truth = y[evaluation]
        measurements += evaluation.size
        _zero_r_fold(zero_r, y[training], truth, n_classes)
        kept = training[~outlier[training]]
        for model in s.models:
            x_orig, x_rel = getattr(design, model)
            on_original, on_release = tallies[model]
            common = dict(seed=s.seed, trees=s.trees, n_features=design.n_features)
            on_original.add(
                _fit_predict(model, x_orig[training], y[training], x_orig[evaluation], n_classes, **common), truth
            )
            x_test = x_rel[evaluation] if s.evaluate_on == "release" else x_orig[evaluation]
            on_release.add(_fit_predict(model, x_rel[kept], y[kept], x_test, n_classes, **common), truth)

    return [
        _measurement(s, model, *tallies[model], zero_r, measurements, n_classes, fold_rows, outlier)
        for model in s.models
    ]


def _measurement(
    s: _Settings,
    model: str,
    on_original: _Tally,
    on_release: _Tally,
    zero_r: _Tally,
    measurements: int,
    n_classes: int,
    fold_rows: list[np.ndarray],
    outlier: np.ndarray,
) -> dict:
    """The ``classification_accuracy`` measurement of ``model`` from its tallies over the folds: trained on
    the original, on the release, and ZeroR's (ARX's relative accuracy, average error and Brier scores)."""
    zr_accuracy = zero_r.correct / measurements
    accuracy = on_release.correct / measurements
    original_accuracy = on_original.correct / measurements
    value = relative_accuracy(accuracy, original_accuracy, zr_accuracy)
    brier = on_release.brier / measurements
    original_brier = on_original.brier / measurements
    return {
        "measure": "classification_accuracy",
        "column": s.target,
        "value": None if math.isnan(value) else float(value),
        "raw": float(accuracy),
        "details": {
            "model": model,
            "accuracy": float(accuracy),
            "original_accuracy": float(original_accuracy),
            "zero_r_accuracy": float(zr_accuracy),
            "average_error": on_release.error / measurements,
            "original_average_error": on_original.error / measurements,
            "zero_r_average_error": zero_r.error / measurements,
            "brier_score": brier,
            "original_brier_score": original_brier,
            "zero_r_brier_score": zero_r.brier / measurements,
            # ARX getBrierSkillScore: 1 - brier(output) / brier(input), 0 when the output's is 0
            "brier_skill_score": 0.0 if brier == 0.0 else (1.0 - brier / original_brier if original_brier else None),
            "classes": n_classes,
            "measurements": measurements,
            "folds": len(fold_rows),
            "records": int(sum(f.size for f in fold_rows)),
            "suppressed_records": int(np.count_nonzero(outlier)),  # among the records drawn
            "features": list(s.features),
            "numeric_features": [c for c in s.features if c in set(s.numeric_features)],
            "evaluate_on": s.evaluate_on,
            "seed": s.seed,
            **({"trees": s.trees} if model == "random_forest" else {}),
        },
    }


#: The options a policy gives the family (``utility: [{classification_accuracy: {target: COLUMN, ...}}]``).
OPTIONS = ("target", "features", "models", "folds", "max_records", "seed", "evaluate_on", "numeric_features", "trees")


def measure(inputs: UtilityInputs) -> list[dict]:
    """The audit's family: :func:`classification_accuracy` of the release against the row-aligned original, the
    target from the policy's ``utility: [{classification_accuracy: {target: COLUMN}}]``, the features by default
    the quasi-identifiers (ARX's usual choice: what generalization changed), a record suppressed as a whole
    being one whose every quasi-identifier is suppressed (ARX's outlier)."""
    options = dict(inputs.options.get("classification_accuracy", {}))
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise PrivauditError(
            f"utility: classification_accuracy has no option {unknown[0]!r} (options: {', '.join(OPTIONS)})"
        )
    target = options.pop("target", None)
    if target is None:
        raise PrivauditError(
            "utility: classification_accuracy needs a target: utility: [{classification_accuracy: {target: COLUMN}}]"
        )
    features = options.pop("features", None)
    if features is None:
        features = [q for q in inputs.quasi_identifiers if q != target]
    summary = inputs.summary
    suppressed = None
    if summary.class_of is not None:
        suppressed = inputs.suppressed_classes[np.asarray(summary.class_of)]
    return classification_accuracy(inputs.release, inputs.original, target, features, suppressed=suppressed, **options)

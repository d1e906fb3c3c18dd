"""A privacy audit: a Monte Carlo lower confidence bound on a mechanism's hockey-stick divergence.

For adjacent inputs c, c' a mechanism M is (eps, delta)-DP only if, for every
measurable set T and in both orders of the two inputs,
P(M(c) in T) - e^eps P(M(c') in T) <= delta  (Definition 4).
The audit draws samples of M(c) and M(c') -- of the mechanism itself, not of a
formula -- and looks for a set T that breaks the claim:

1. the mechanism's outputs are checked: an array of shape (size, n), real and
   finite; a mechanism that returns anything else is an error, not a pass;
2. on half of the samples it chooses, in each order of the two inputs, the
   candidate set with the largest lower confidence bound on that half (Wilson
   bounds, cheap; the estimate p - e^eps q would favour sets whose few hits under
   the second input are then multiplied by e^eps):
   - T = {s(x) > t} and T = {s(x) < t} for a statistic s (by default the
     log-ratio of the two coordinates in which c and c' differ), every t;
   - atoms: outputs that repeat exactly (a whole output vector, or the value of
     one coordinate, seen at least twice in either sample).  A continuous law
     repeats a double with negligible probability, so a repeated output marks
     a point mass, e.g. a mechanism that sometimes releases the true shares;
     T is the union of the atoms more frequent (by more than e^eps) under the
     first input;
3. the other half, independent of that choice, gives Clopper-Pearson bounds on
   both probabilities, hence a one-sided lower confidence bound on the
   hockey-stick divergence at level 1 - alpha.

If the lower bound exceeds the claimed delta, the claim is refuted at
confidence 1 - alpha, whichever set was chosen (the choice used only the first
half).  A lower bound below the claim refutes nothing; the book's chapter
"Privacy audit" (book/privacy_audit) shows which broken mechanisms the audit
catches, at which sample size, and compares it with Theorem 1 and the tight
profile.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, betaincc, betainccinv, betaincinv, expit, ndtri

from . import _checks
from ._pairs import adjacent_indices_named
from .mechanism import privatize

#: the two orders of the inputs: "c" means P = law of M(c), Q = law of M(c').
DIRECTIONS = ("c", "c'")
#: the kinds of candidate set.
KINDS = ("above", "below", "atoms")


@dataclass(frozen=True)
class AuditResult:
    """Outcome of ``audit_hockey_stick`` for one epsilon.

    The chosen set T is described by ``direction`` (which input plays P), ``kind``
    ("above": T = {s > t}; "below": T = {s < t}; "atoms": T a finite set of repeated
    outputs), ``threshold`` (t, or None for atoms) and ``coordinate`` (for atoms: the
    coordinate whose value repeats, or None for whole output vectors).
    """
    epsilon: float
    threshold: float | None   # t of the threshold set, chosen on the first half
    p_hat: float              # estimate of P(M(first input) in T) on the second half
    q_hat: float              # estimate of P(M(second input) in T) on the second half
    estimate: float           # p_hat - e^eps q_hat
    lower_bound: float        # one-sided (1 - alpha) lower confidence bound on the divergence
    alpha: float
    samples: int              # samples per input in the second half
    direction: str = "c"      # "c": P = M(counts), Q = M(counts_adjacent); "c'": swapped
    kind: str = "above"
    coordinate: int | None = None
    atoms: int = 0            # number of atoms in T (kind "atoms")
    default_statistic: bool = True

    def refutes(self, claimed_delta: float) -> bool:
        """True when the lower confidence bound exceeds ``claimed_delta``."""
        return self.lower_bound > float(_checks.as_float_array("claimed_delta", claimed_delta))


@_checks.public
def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided (1 - alpha) binomial confidence interval (Clopper-Pearson).

    For s successes in n trials: the lower end is the alpha/2 quantile of Beta(s, n - s + 1)
    (0 if s = 0), the upper end the 1 - alpha/2 quantile of Beta(s + 1, n - s) (1 if s = n),
    by ``scipy.special.betaincinv`` and ``betainccinv`` (the upper tail given as alpha/2, not
    as 1 - alpha/2, which rounds to 1 below alpha = 1e-16).  Both keep their accuracy in the
    far tail (alpha near 1e-100), where ``scipy.stats.beta.ppf`` can be off by orders of
    magnitude.
    ``successes`` and ``trials`` are ints with 0 <= successes <= trials and trials >= 1,
    ``alpha`` is in (0, 1).  Where no finite quantile exists in double precision (alpha
    far below 1e-150 for some designs) ``NumericalFailure`` is raised.
    """
    trials = _checks.whole("trials", trials, 1)
    successes = _checks.whole("successes", successes, 0, highest=trials)
    alpha = _checks.scalar("alpha", alpha)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must be in (0, 1)")
    lo, hi = _clopper_pearson_ends(successes, successes, trials, alpha)
    return float(lo), float(hi)


def _clopper_pearson_ends(hits_p, hits_q, trials, alpha):
    """The lower ``clopper_pearson`` limit of each count in hits_p and the upper limit of
    each in hits_q (checked whole counts), from one ``betaincinv`` and one ``betainccinv``
    call for all of them: ``clopper_pearson``'s formula, and the audit's for every epsilon."""
    hp, hq = np.asarray(hits_p, float), np.asarray(hits_q, float)
    lo = betaincinv(np.where(hp == 0, 1.0, hp), trials - hp + 1, alpha / 2)   # 0 hits: 0
    hi = betainccinv(hq + 1, np.where(hq == trials, 1.0, trials - hq), alpha / 2)
    return np.where(hp == 0, 0.0, lo), np.where(hq == trials, 1.0, hi)


@_checks.public
def log_ratio_statistic(counts, counts_adjacent):
    """s(x) = log x_j - log x_i, where c' = c + e_i - e_j (the record moves from j to i).

    Large s means "looks like c" (more mass on j).  Only the difference of the two
    inputs is used, not the mechanism's density.  s = +inf or -inf where one of the
    two coordinates is 0, and s = 0 where both are (no evidence either way).
    """
    i, j = adjacent_indices_named(counts, counts_adjacent, "counts_adjacent")

    def statistic(x):
        xi, xj = x[..., i], x[..., j]
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.log(xj) - np.log(xi)
        return np.where((xi == 0) & (xj == 0), 0.0, s)
    return statistic


def _outputs(mechanism, counts, size, gen, n):
    """The mechanism's samples, checked: real, finite, shape (size, n)."""
    out = mechanism(counts, size, gen)
    arr = np.asarray(out)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"the mechanism returned dtype {arr.dtype}: its outputs must be real "
                        "numbers")
    arr = arr.astype(float)
    if arr.shape != (size, n):
        raise ValueError(f"the mechanism returned shape {arr.shape} for size={size}: it must "
                         f"return ({size}, {n}), one output vector per sample")
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)][0]
        raise ValueError(f"the mechanism returned {bad!r}: every output must be finite")
    return arr + 0.0                                   # -0.0 -> 0.0, so atoms compare by bytes


def _statistic_values(stat, x, size):
    s = np.asarray(stat(x))
    if s.dtype.kind not in "biuf" or s.shape != (size,):
        raise ValueError(f"the statistic returned dtype {s.dtype}, shape {s.shape}: it must "
                         f"return ({size},) real numbers")
    s = s.astype(float)
    if np.any(np.isnan(s)):
        raise ValueError("the statistic returned NaN (the default log-ratio needs "
                         "non-negative outputs)")
    return s


def _wilson(frac, m, z, upper):
    """Wilson score bound on a proportion: a cheap stand-in for Clopper-Pearson when choosing."""
    centre = (frac + z * z / (2 * m)) / (1 + z * z / m)
    half = z * np.sqrt(frac * (1 - frac) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return centre + half if upper else centre - half


def _score(frac_a, frac_b, m, eps, z):
    """What a set is chosen by: its lower bound p_- - e^eps q_+ on the choosing half.

    Ranking by this bound rather than by the estimate p - e^eps q avoids sets whose
    few hits under the second input get multiplied by e^eps: with the bound computed
    on the other half, those sets would give a weak lower bound."""
    return _wilson(frac_a, m, z, False) - np.exp(eps) * _wilson(frac_b, m, z, True)


def _threshold_table(a, b, z):
    """The sets T = {s > t} on the sorted samples a, b: every candidate t, with the Wilson
    lower bound on its frequency in a and upper bound in b (what ``_score`` combines).
    They do not depend on epsilon, so they are computed once for every epsilon audited."""
    m = a.size
    candidates = np.concatenate([[-np.inf], a])
    frac_a = 1 - np.searchsorted(a, candidates, side="right") / m
    frac_b = 1 - np.searchsorted(b, candidates, side="right") / m
    return candidates, _wilson(frac_a, m, z, False), _wilson(frac_b, m, z, True)


def _best_threshold(table, eps):
    """The t maximising ``_score`` over a ``_threshold_table`` at eps; (t, score)."""
    candidates, low_a, high_b = table
    gain = low_a - np.exp(eps) * high_b
    best = int(np.argmax(gain))
    return float(candidates[best]), float(gain[best])


def _keys(x, coordinate):
    """One comparable key per output: a coordinate's value, or the whole vector's bytes."""
    if coordinate is not None:
        return x[:, coordinate]
    return np.ascontiguousarray(x).view(np.dtype((np.void, x.dtype.itemsize * x.shape[1])))[:, 0]


def _atom_table(kp, kq):
    """Atoms (values seen at least twice in kp or in kq) with their frequencies in kp, kq."""
    vals_p, cnt_p = np.unique(kp, return_counts=True)
    vals_q, cnt_q = np.unique(kq, return_counts=True)
    atoms = np.union1d(vals_p[cnt_p >= 2], vals_q[cnt_q >= 2])
    freq_p = np.zeros(atoms.size)
    freq_q = np.zeros(atoms.size)
    if atoms.size:
        ip = np.searchsorted(vals_p, atoms)
        hit = ip < vals_p.size
        hit[hit] = vals_p[ip[hit]] == atoms[hit]
        freq_p[hit] = cnt_p[ip[hit]] / kp.size
        iq = np.searchsorted(vals_q, atoms)
        hit = iq < vals_q.size
        hit[hit] = vals_q[iq[hit]] == atoms[hit]
        freq_q[hit] = cnt_q[iq[hit]] / kq.size
    return atoms, freq_p, freq_q


def _atom_views(xp, xq):
    """{coordinate or None: (atoms, {"c": freq in xp, "c'": freq in xq})} for every view
    (whole outputs first, then each coordinate) that has atoms; ``_atom_table`` per view.

    An output vector seen twice in a sample has its first coordinate seen twice there, so
    without an atom of coordinate 0 there is no atom of whole outputs, and their table (by
    far the slowest to sort: the outputs compare as byte strings) is not built."""
    tables = {coord: _atom_table(_keys(xp, coord), _keys(xq, coord))
              for coord in range(xp.shape[1])}
    if tables[0][0].size:
        tables = {None: _atom_table(_keys(xp, None), _keys(xq, None)), **tables}
    return {coord: (atoms, {"c": fp, "c'": fq})
            for coord, (atoms, fp, fq) in tables.items() if atoms.size}


@_checks.public
def audit_hockey_stick(counts, counts_adjacent, epsilon, *, mechanism=None, k=None,
                       samples=100_000, alpha=1e-3, statistic=None, rng=None):
    """Monte Carlo (1 - alpha) lower confidence bound on the hockey-stick divergence.

    Parameters
    ----------
    counts, counts_adjacent : adjacent count vectors (Definition 3).
    epsilon : float or sequence of floats; one ``AuditResult`` per value.
    mechanism : callable ``(counts, size, rng) -> samples`` of shape (size, n); default
        ``dm.privatize`` with parameter ``k`` (Algorithm 1).  Outputs that are not
        real, finite or of that shape raise an error.
    samples : samples per input in EACH half (so 2 * samples draws per input).
    alpha : one-sided error probability of the lower bound (split equally between
        the two Clopper-Pearson bounds).
    statistic : callable on samples (n-vectors -> reals); default ``log_ratio_statistic``.
    rng : None (fresh OS entropy) or a seed / Generator for a reproducible audit.

    The set T is chosen on the first half among threshold sets of the statistic
    (both tails) and sets of atoms (whole outputs or one coordinate), in both orders
    of the inputs; the bound comes from the second half (module docstring).  The
    book's chapter "Privacy audit" shows what it catches (Definition 4).
    """
    c = _checks.counts_array("counts", counts)
    c_adj = _checks.counts_array("counts_adjacent", counts_adjacent)
    default = statistic is None
    stat = log_ratio_statistic(c, c_adj) if default else statistic
    if not callable(stat):
        raise TypeError(f"statistic={statistic!r} must be a function of the samples")
    if mechanism is None:
        if k is None:
            raise ValueError("k=None: give the Dirichlet parameter k or a mechanism")
        k_value = float(_checks.positive("k", k))

        def mechanism(cc, size, gen):
            return privatize(cc, k_value, rng=gen, size=size)
    elif not callable(mechanism):
        raise TypeError(f"mechanism={mechanism!r} must be a function (counts, size, rng)")
    if isinstance(samples, (bool, np.bool_)):
        raise TypeError(f"samples={samples!r} must be a whole number, not a bool")
    samples = int(_checks.integer_at_least("samples", samples, 100))
    alpha = float(_checks.positive("alpha", alpha))
    if alpha >= 1:
        raise ValueError(f"alpha={alpha!r} must be < 1")
    eps_values = np.atleast_1d(_checks.as_float_array("epsilon", epsilon))
    if eps_values.ndim != 1 or eps_values.size == 0:
        raise ValueError(f"epsilon={epsilon!r} must be a number or a flat, non-empty sequence")
    gen = _checks.generator(rng)
    n = c.shape[-1]
    x = {"c": _outputs(mechanism, c, 2 * samples, gen, n),
         "c'": _outputs(mechanism, c_adj, 2 * samples, gen, n)}
    s = {d: _statistic_values(stat, x[d], 2 * samples) for d in DIRECTIONS}
    choose = {d: np.sort(s[d][:samples]) for d in DIRECTIONS}
    test = {d: s[d][samples:] for d in DIRECTIONS}
    atom_views = _atom_views(x["c"][:samples], x["c'"][:samples])
    other = {"c": "c'", "c'": "c"}
    z = float(-ndtri(alpha / 2))     # the upper alpha/2 quantile of N(0, 1)
    tables = {d: (_threshold_table(choose[d], choose[other[d]], z),                   # s > t
                  _threshold_table(-choose[d][::-1], -choose[other[d]][::-1], z))    # s < t
              for d in DIRECTIONS}
    chosen_sets = []                                   # per epsilon: the set T and its hits
    for eps in eps_values:
        w = float(np.exp(eps))
        best = None                                    # (value, direction, kind, t, coord, atoms)
        for d in DIRECTIONS:
            above, below = tables[d]
            t, val = _best_threshold(above, eps)
            cands = [(val, d, "above", t, None, None)]
            t, val = _best_threshold(below, eps)
            cands.append((val, d, "below", -t, None, None))
            for coord, (atoms, freq) in atom_views.items():
                gain = freq[d] - w * freq[other[d]]
                chosen = atoms[gain > 0]
                if chosen.size:
                    fa, fb = freq[d][gain > 0].sum(), freq[other[d]][gain > 0].sum()
                    cands.append((float(_score(fa, fb, samples, eps, z)), d, "atoms", None,
                                  coord, chosen))
            for cand in cands:
                if best is None or cand[0] > best[0]:
                    best = cand
        _, d, kind, t, coord, chosen = best
        if kind == "above":
            in_p, in_q = test[d] > t, test[other[d]] > t
        elif kind == "below":
            in_p, in_q = test[d] < t, test[other[d]] < t
        else:
            in_p = np.isin(_keys(x[d][samples:], coord), chosen)
            in_q = np.isin(_keys(x[other[d]][samples:], coord), chosen)
        chosen_sets.append((float(eps), w, t, int(in_p.sum()), int(in_q.sum()), d, kind, coord,
                            0 if chosen is None else int(chosen.size)))
    p_lo, q_hi = _clopper_pearson_ends([c[3] for c in chosen_sets], [c[4] for c in chosen_sets],
                                       samples, alpha)
    results = []
    for (eps, w, t, hits_p, hits_q, d, kind, coord, atoms), lo, hi in zip(chosen_sets, p_lo, q_hi):
        p_hat, q_hat = hits_p / samples, hits_q / samples
        results.append(AuditResult(eps, t, p_hat, q_hat, p_hat - w * q_hat, float(lo) - w * float(hi),
                                   alpha, samples, d, kind, coord, atoms, default))
    return results if np.ndim(epsilon) else results[0]


@_checks.public
def chosen_set_divergence(result, counts, counts_adjacent, k):
    """Exact P(T) - e^eps Q(T) for the set T an audit of ``dm.privatize`` chose.

    For the Dirichlet mechanism (Definition 5) with the default statistic
    s(x) = log x_j - log x_i, where c' = c + e_i - e_j: s > t iff
    B = x_j / (x_i + x_j) > expit(t), and B is Beta(k c_j/N, k c_i/N) under Dir(k c/N)
    (aggregation property); s < t iff B < expit(t).  P is the law of the input the
    result names first (``result.direction``).  A set of atoms (finitely many points)
    has probability 0 under the continuous Dirichlet law.  Returns
    ``(value, P(T), Q(T))``.  Because T was chosen on the other half of the samples,
    ``result.estimate`` is an unbiased estimate of ``value``, and ``value`` is at most
    the hockey-stick divergence in that order (Definition 4): the book's tests compare
    the three.  Book: chapter "Privacy audit".
    """
    if not isinstance(result, AuditResult):
        raise TypeError(f"result={result!r} must be an AuditResult from audit_hockey_stick")
    if not result.default_statistic:
        raise ValueError("result comes from a custom statistic: only the default "
                         "log-ratio statistic's sets have a closed form")
    k = float(_checks.positive("k", k))
    i, j = adjacent_indices_named(counts, counts_adjacent, "counts_adjacent")
    c = np.asarray(counts, float)
    cp = np.asarray(counts_adjacent, float)
    if min(c[i], c[j], cp[i], cp[j]) <= 0:
        raise ValueError(f"counts={c.tolist()} and counts_adjacent={cp.tolist()} need positive "
                         "counts in the two categories that change (Dir(k*C) is undefined at 0)")
    if result.kind == "atoms":
        return 0.0, 0.0, 0.0
    first, second = (c, cp) if result.direction == "c" else (cp, c)
    N = c.sum()
    u = expit(result.threshold)
    tail = betaincc if result.kind == "above" else betainc
    p_set = float(tail(k * first[j] / N, k * first[i] / N, u))
    q_set = float(tail(k * second[j] / N, k * second[i] / N, u))
    return p_set - float(np.exp(result.epsilon)) * q_set, p_set, q_set

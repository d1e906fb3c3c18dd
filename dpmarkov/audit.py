"""A privacy audit: a Monte Carlo lower confidence bound on a mechanism's hockey-stick divergence.

For adjacent inputs c, c' a mechanism M is (eps, delta)-DP only if, for every
measurable set T and in both orders of the two inputs,
P(M(c) in T) - e^eps P(M(c') in T) <= delta  (Definition 4).
The audit draws samples of M(c) and M(c') -- of the mechanism itself, not of a
formula -- and looks for a set T that breaks the claim:

1. the mechanism's outputs are checked: an array of shape (size, n), real and
   finite; a mechanism that returns anything else is an error, not a pass;
2. on the first half of the samples (the *choosing* half) it chooses, in each
   order of the two inputs and in each *family* of candidate sets, the set with the
   largest lower confidence bound on that half (Wilson bounds, cheap; the estimate
   p - e^eps q would favour sets whose few hits under the second input are then
   multiplied by e^eps).  The default families (``FAMILIES``):
   - "thresholds": T = {s(x) > t} and T = {s(x) < t}, every t, for the log-ratio
     s of the two coordinates in which c and c' differ and for every coordinate
     x_0, ..., x_{n-1} itself (a leak outside the compared pair);
   - "atoms": outputs that repeat, exactly or after dropping the last 24
     bits of each double (near-atoms: a point mass blurred by a tiny jitter), as
     whole output vectors or one coordinate at a time, seen at least three
     times in either sample.  A continuous law repeats a value at that resolution rarely,
     so a repeat marks a (near) point mass, e.g. a mechanism that sometimes
     releases the true shares; T is the union of the atoms more frequent (by more
     than e^eps) under the first input;
   - "bits": T = {bit b of coordinate j is 1} (or 0), for each of the 64 raw bits
     of each coordinate (a leak written into the mantissa);
   - "learned": T = {g(x) > t} or {g(x) < t} for the score g of a classifier that
     learns to tell the two inputs' outputs apart, as the black-box auditors
     DP-Sniper (Bichsel et al., S&P 2021), Eureka (S&P 2024) and Google's
     DP-Auditorium do: gradient-boosted trees (scikit-learn) over a feature map of
     the coordinates, log-ratios, order statistics and ranks, ties, the
     floating-point sum and bit fields of each double (``_learned_features``).  It
     is fitted on the first outputs of the choosing half (at most ``LEARN_ROWS`` per
     input) and its threshold is chosen on the next ``CHOOSE_ROWS`` at most; it sees
     relations between coordinates (a leak in the joint structure of the output) that no
     function of one coordinate shows.
   A user's ``statistic`` replaces the four by one family: its threshold sets and
   its atoms (values seen at least three times);
3. the other half (the *held-out* half), independent of that choice, gives
   Clopper-Pearson bounds on both probabilities of each family's set, at level
   alpha / F for the F sets tested at that epsilon (Bonferroni), hence one-sided
   lower confidence bounds on the hockey-stick divergence that all hold together
   with probability >= 1 - alpha; the result reports the largest.

If the lower bound exceeds the claimed delta, the claim is refuted at
confidence 1 - alpha, whichever set was chosen (the choice used only the first
half).

What no finite black-box audit can promise: an audit refutes, it never certifies.
A lower bound below the claim is no evidence that the claim holds: the audit saw
finitely many outputs of two inputs, looked only at the sets its families can
express, and cannot see a violation smaller than its resolution (about
log(2/alpha) / samples on a rare set, more on a common one) or on inputs it was not
given.  A mechanism that leaks on a set none of the families finds from the samples
drawn (a learned classifier included) passes.  Only a proof shows that a mechanism
is private.  The book's chapter "Privacy audit" (book/privacy_audit) shows which
broken mechanisms the audit refutes, at which divergence and sample size, and
compares it with Theorem 1 and the tight profile.
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
#: the kinds of candidate set ("empty": no family found one).
KINDS = ("above", "below", "atoms", "bit", "empty")
#: the other input of each order.
_OTHER = {"c": "c'", "c'": "c"}
#: the families of candidate sets of the default audit (one set tested per family).
FAMILIES = ("thresholds", "atoms", "bits", "learned")
#: outputs of each input the learned family's classifier is fitted on (at most; the rest
#: of the choosing half, at least half of it, chooses the classifier's threshold).
LEARN_ROWS = 5000
#: outputs of each input the learned family's threshold is chosen on (at most: the rest
#: of the choosing half after the fit, up to this many; scoring is its largest cost).
CHOOSE_ROWS = 20_000
#: boosting iterations of the learned family's classifier (at most; one per 20 outputs of
#: each input it is fitted on, at least 10: few outputs support few trees).
_LEARN_ITERATIONS = 50
#: features per input the learned family's classifier is fitted on (at most).
_LEARN_WORK = 500_000
#: outputs whose features are computed at once when scoring.
_CHUNK = 20_000
#: up to this n the learned family's features hold the log-ratio of every pair of
#: coordinates (n (n - 1) / 2 of them), beyond it those with the pair that changed.
_ALL_PAIRS = 10
#: where the learned family's features are clipped (finite, and far beyond any share).
_BIG = 1e300
#: low bits of each double dropped before outputs are compared for atoms: exact
#: repeats, then near-atoms at relative resolution 2^-28 (about 4e-9).  A coarser
#: resolution makes a histogram of a continuous law, whose many cells let the union
#: chosen on the first half fit that half's noise.
ATOM_DROPPED_BITS = (0, 24)
#: how often a value must repeat in one sample to be an atom.  Pairs of a continuous
#: law's outputs fall into one cell of relative width 2^-28 now and then (a few times in
#: 10^5 draws); three in one cell almost never do, and an atom of mass below 3/samples
#: is below the audit's resolution anyway.
MIN_ATOM_HITS = 3
#: The largest samples x n an audit takes (its work and memory grow with it: sorting,
#: tables and the 64 bits of every coordinate; the default 1e5 x 5 takes about a second).
MAX_WORK = 5_000_000
#: thresholds tried per coordinate (the log-ratio or a user's statistic: every sample).
_COORDINATE_THRESHOLDS = 2000


@dataclass(frozen=True)
class AuditResult:
    """Outcome of ``audit_hockey_stick`` for one epsilon: the tested set with the largest
    lower bound.

    The chosen set T is described by ``family`` ("thresholds", "atoms", "bits",
    "learned", or "statistic" for a user's statistic), ``direction`` (which input plays
    P), ``kind`` ("above": T = {s > t}; "below": T = {s < t}, s the log-ratio, a
    coordinate, a user's statistic or the learned classifier's score; "atoms": T a
    finite set of repeated outputs; "bit": T = {bit ``bit`` of coordinate
    ``coordinate`` equals ``threshold``}; "empty": no family found a set, T is empty and
    the bound 0 is exact, ``family`` "none" and ``tests`` 0),
    ``threshold`` (t, the bit's value, or None for atoms) and ``coordinate`` (the
    coordinate the set looks at; None for the log-ratio, a user's statistic, the
    learned score or whole output vectors).  ``dropped_bits`` is the resolution of
    atoms (0: exact repeats).  ``tests`` is the number of sets tested on the second half
    at this epsilon, one per family that has a set (each at alpha / tests).
    """
    epsilon: float
    threshold: float | None   # t of the threshold set (or the bit's value), chosen on half 1
    p_hat: float              # estimate of P(M(first input) in T) on the second half
    q_hat: float              # estimate of P(M(second input) in T) on the second half
    estimate: float           # p_hat - e^eps q_hat
    lower_bound: float        # one-sided lower confidence bound (all sets tested: 1 - alpha)
    alpha: float
    samples: int              # samples per input in the second half
    direction: str = "c"      # "c": P = M(counts), Q = M(counts_adjacent); "c'": swapped
    kind: str = "above"
    coordinate: int | None = None
    atoms: int = 0            # number of atoms in T (kind "atoms")
    default_statistic: bool = True
    family: str = "thresholds"
    dropped_bits: int = 0     # kind "atoms": low bits of each double ignored
    bit: int | None = None    # kind "bit": the bit's position (0 = last mantissa bit)
    tests: int = 1            # sets tested on the second half (Bonferroni factor)

    def refutes(self, claimed_delta: float) -> bool:
        """True when the lower confidence bound exceeds ``claimed_delta``."""
        return self.lower_bound > _checks.scalar("claimed_delta", claimed_delta)


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
    call for all of them (alpha a number or one per count): ``clopper_pearson``'s formula,
    and the audit's for every epsilon and family."""
    hp, hq = np.asarray(hits_p, float), np.asarray(hits_q, float)
    lo = betaincinv(np.where(hp == 0, 1.0, hp), trials - hp + 1, np.divide(alpha, 2))
    hi = betainccinv(hq + 1, np.where(hq == trials, 1.0, trials - hq), np.divide(alpha, 2))
    return np.where(hp == 0, 0.0, lo), np.where(hq == trials, 1.0, hi)


@_checks.public
def log_ratio_statistic(counts, counts_adjacent):
    """s(x) = log x_j - log x_i, where c' = c + e_i - e_j (the record moves from j to i).

    Large s means "looks like c" (more mass on j).  Only the difference of the two
    inputs is used, not the mechanism's density.  s = +inf or -inf where one of the
    two coordinates is 0, and s = 0 where both are (no evidence either way).
    """
    i, j = adjacent_indices_named(counts, counts_adjacent, "counts_adjacent")
    n = np.shape(counts)[-1]

    def statistic(x):
        """s(x) for outputs x of shape (..., n): real numbers, the last axis of length n."""
        x = _checks.array("x", x)
        if x.shape[-1] != n:
            raise ValueError(f"x has shape {x.shape}: the statistic takes outputs of "
                             f"{n} shares (last axis of length {n})")
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
        raise TypeError(f"mechanism={_checks.show(mechanism)} returned dtype {arr.dtype}: its "
                        "outputs must be real numbers")
    arr = arr.astype(float)
    if arr.shape != (size, n):
        raise ValueError(f"mechanism={_checks.show(mechanism)} returned shape {arr.shape} for "
                         f"size={size}: it must return ({size}, {n}), one output vector per sample")
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)][0]
        raise ValueError(f"mechanism={_checks.show(mechanism)} returned {bad!r}: every output "
                         "must be finite")
    return arr + 0.0                                   # -0.0 -> 0.0, so atoms compare by bits


def _statistic_values(stat, x, size):
    s = np.asarray(stat(x))
    if s.dtype.kind not in "biuf" or s.shape != (size,):
        raise ValueError(f"statistic={_checks.show(stat)} returned dtype {s.dtype}, shape "
                         f"{s.shape}: it must return ({size},) real numbers, one per output")
    s = s.astype(float)
    if np.any(np.isnan(s)):
        raise ValueError(f"statistic={_checks.show(stat)} returned NaN (the default log-ratio "
                         "needs non-negative outputs)")
    return s + 0.0


def _wilson(frac, m, z, upper):
    """Wilson score bound on a proportion: a cheap stand-in for Clopper-Pearson when choosing."""
    centre = (frac + z * z / (2 * m)) / (1 + z * z / m)
    half = z * np.sqrt(frac * (1 - frac) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return centre + half if upper else centre - half


def _weight(eps):
    """e^eps, taken as e^700 beyond eps = 700 (no overflow): every bound is then below
    -1e290, a true lower bound, since the upper Clopper-Pearson limit is never 0."""
    return float(np.exp(min(float(eps), 700.0)))


def _score(frac_a, frac_b, m, eps, z):
    """What a set is chosen by: its lower bound p_- - e^eps q_+ on the choosing half.

    Ranking by this bound rather than by the estimate p - e^eps q avoids sets whose
    few hits under the second input get multiplied by e^eps: with the bound computed
    on the other half, those sets would give a weak lower bound."""
    return _wilson(frac_a, m, z, False) - _weight(eps) * _wilson(frac_b, m, z, True)


def _threshold_table(a, b, z, grid=None):
    """The sets T = {s > t} on the sorted samples a, b: the candidate t (every value of
    either sample, or ``grid`` of them, and -inf), with the Wilson lower bound on its
    frequency in a and upper bound in b (what ``_score`` combines).  They do not depend
    on epsilon, so they are computed once for every epsilon audited.  Thresholds at
    values of b matter: a statistic constant under each input is split only there."""
    m = a.size
    pooled = np.sort(np.concatenate([a, b]))
    if grid is not None and pooled.size > grid:
        # ranks spaced evenly and geometrically towards both tails (rare sets)
        ends = np.unique(np.geomspace(1, pooled.size, grid // 4).astype(np.int64)) - 1
        ranks = np.unique(np.concatenate([ends, pooled.size - 1 - ends,
                                          np.linspace(0, pooled.size - 1, grid // 2,
                                                      dtype=np.int64)]))
        pooled = pooled[ranks]
    candidates = np.concatenate([[-np.inf], np.unique(pooled)])
    frac_a = 1 - np.searchsorted(a, candidates, side="right") / m
    frac_b = 1 - np.searchsorted(b, candidates, side="right") / m
    return candidates, _wilson(frac_a, m, z, False), _wilson(frac_b, m, z, True)


def _best_threshold(table, eps):
    """The t maximising ``_score`` over a ``_threshold_table`` at eps; (t, score)."""
    candidates, low_a, high_b = table
    gain = low_a - _weight(eps) * high_b
    best = int(np.argmax(gain))
    return float(candidates[best]), float(gain[best])


def _bits(x):
    """The raw bits of each double as an unsigned integer (outputs are normalised, -0.0 -> 0.0)."""
    return np.ascontiguousarray(x).view(np.uint64)


def _keys(x, coordinate, dropped_bits=0):
    """One comparable key per output: a coordinate's value, or the whole vector's bytes,
    with the last ``dropped_bits`` bits of each double cleared (near-atoms)."""
    u = _bits(x) >> np.uint64(dropped_bits)
    if coordinate is not None:
        return u[:, coordinate]
    u = np.ascontiguousarray(u)
    return u.view(np.dtype((np.void, u.dtype.itemsize * u.shape[1])))[:, 0]


def _atom_table(kp, kq):
    """Atoms (values seen at least ``MIN_ATOM_HITS`` times in kp or in kq) with their
    frequencies in kp, kq."""
    vals_p, cnt_p = np.unique(kp, return_counts=True)
    vals_q, cnt_q = np.unique(kq, return_counts=True)
    atoms = np.union1d(vals_p[cnt_p >= MIN_ATOM_HITS], vals_q[cnt_q >= MIN_ATOM_HITS])
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


def _atom_views(xp, xq, dropped_bits=0):
    """{coordinate or None: (atoms, {"c": freq in xp, "c'": freq in xq})} for every view
    (whole outputs first, then each coordinate) that has atoms at that resolution;
    ``_atom_table`` per view.

    An output vector seen three times in a sample has its first coordinate seen as often, so
    without an atom of coordinate 0 there is no atom of whole outputs, and their table (by
    far the slowest to sort: the outputs compare as byte strings) is not built."""
    tables = {coord: _atom_table(_keys(xp, coord, dropped_bits), _keys(xq, coord, dropped_bits))
              for coord in range(xp.shape[1])}
    if tables[0][0].size:
        tables = {None: _atom_table(_keys(xp, None, dropped_bits), _keys(xq, None, dropped_bits)),
                  **tables}
    return {coord: (atoms, {"c": fp, "c'": fq})
            for coord, (atoms, fp, fq) in tables.items() if atoms.size}


def _bit_frequencies(x):
    """(64, n) array: the share of outputs whose bit b of coordinate j is 1."""
    u = _bits(x)
    return np.array([((u >> np.uint64(b)) & np.uint64(1)).mean(axis=0) for b in range(64)])


class _Candidate:
    """One family's best set at one epsilon: its score on the choosing half, and what
    its family needs to find the set's members in the held-out half."""
    __slots__ = ("score", "direction", "kind", "threshold", "coordinate", "chosen",
                 "dropped_bits", "bit")

    def __init__(self, score, direction, kind, threshold=None, coordinate=None, chosen=None,
                 dropped_bits=0, bit=None):
        self.score, self.direction, self.kind = score, direction, kind
        self.threshold, self.coordinate, self.chosen = threshold, coordinate, chosen
        self.dropped_bits, self.bit = dropped_bits, bit


def _better(best, cand):
    return cand if best is None or cand.score > best.score else best


def _best_thresholds(tables, eps, best=None):
    """The best threshold set over ``tables`` {(source, direction): (above, below)}."""
    for (source, d), (above, below) in tables.items():
        t, val = _best_threshold(above, eps)
        best = _better(best, _Candidate(val, d, "above", t, source))
        t, val = _best_threshold(below, eps)
        best = _better(best, _Candidate(val, d, "below", -t, source))
    return best


def _best_atoms(views, eps, m, z, best=None):
    """The best union of atoms over ``views`` {(dropped bits, coordinate): (atoms, freq)}."""
    w = _weight(eps)
    for (dropped, coord), (atoms, freq) in views.items():
        for d in DIRECTIONS:
            gain = freq[d] - w * freq[_OTHER[d]]
            if np.any(gain > 0):
                fa, fb = freq[d][gain > 0].sum(), freq[_OTHER[d]][gain > 0].sum()
                best = _better(best, _Candidate(float(_score(fa, fb, m, eps, z)), d, "atoms",
                                                None, coord, atoms[gain > 0], dropped))
    return best


def _best_bit(freqs, eps, m, z):
    """The best set {bit b of coordinate j = v} for the bit frequencies {"c": ..., "c'": ...},
    among those more frequent (by more than e^eps) under the first input; None if none is."""
    best = None
    w = _weight(eps)
    for d in DIRECTIONS:
        for value in (1, 0):
            fa = freqs[d] if value else 1 - freqs[d]
            fb = freqs[_OTHER[d]] if value else 1 - freqs[_OTHER[d]]
            score = np.where(fa - w * fb > 0, _score(fa, fb, m, eps, z), -np.inf)
            b, j = np.unravel_index(int(np.argmax(score)), score.shape)
            if score[b, j] == -np.inf:
                continue
            best = _better(best, _Candidate(float(score[b, j]), d, "bit", value, int(j),
                                            bit=int(b)))
    return best


def _tables_of(values, z, grid=None):
    """{direction d: (table of {v > t}, table of {v < t})} for the values v of the choosing
    half {"c": ..., "c'": ...}, with d's sample in the role of P (``_threshold_table``)."""
    srt = {d: np.sort(values[d]) for d in DIRECTIONS}
    return {d: (_threshold_table(srt[d], srt[_OTHER[d]], z, grid),
                _threshold_table(-srt[d][::-1], -srt[_OTHER[d]][::-1], z, grid))
            for d in DIRECTIONS}


class _Family:
    """A family of candidate sets.  Built from the choosing half only; ``choose(eps)``
    returns its best set there (a ``_Candidate`` or None), ``count(sets, x, s)`` the hits
    of each set in the held-out outputs x (statistic values s), {direction: array}, as
    (hits under the set's first input, hits under the other)."""
    name = ""

    def choose(self, eps):
        raise NotImplementedError

    def held_out(self, source, x, s):
        """What threshold sets of ``source`` compare with t, on held-out outputs."""
        return s if source is None else x[:, source]

    def count(self, sets, x, s):
        values = {}
        hits = []
        for cand in sets:
            pair = []
            for d in (cand.direction, _OTHER[cand.direction]):
                if cand.kind in ("above", "below"):
                    if (cand.coordinate, d) not in values:
                        values[cand.coordinate, d] = self.held_out(cand.coordinate, x[d], s[d])
                    v = values[cand.coordinate, d]
                    inside = v > cand.threshold if cand.kind == "above" else v < cand.threshold
                elif cand.kind == "bit":
                    bits = (_bits(x[d])[:, cand.coordinate] >> np.uint64(cand.bit)) & np.uint64(1)
                    inside = bits == np.uint64(cand.threshold)
                elif cand.coordinate == "statistic":
                    inside = np.isin(s[d], cand.chosen)
                else:
                    inside = np.isin(_keys(x[d], cand.coordinate, cand.dropped_bits), cand.chosen)
                pair.append(int(np.count_nonzero(inside)))
            hits.append(tuple(pair))
        return hits


class _Thresholds(_Family):
    """Family "thresholds": {v > t} and {v < t} for v the log-ratio of the pair (source
    None) and for every coordinate x_0, ..., x_{n-1} (source j)."""
    name = "thresholds"

    def __init__(self, first, first_s, z):
        self.sources = [None, *range(first["c"].shape[1])]
        self.tables = {}
        for source in self.sources:
            values = first_s if source is None else {d: first[d][:, source] for d in DIRECTIONS}
            grid = None if source is None else _COORDINATE_THRESHOLDS
            self.tables.update({(source, d): t for d, t in _tables_of(values, z, grid).items()})

    def choose(self, eps):
        return _best_thresholds(self.tables, eps)


class _Atoms(_Family):
    """Family "atoms": unions of (near-)atoms of whole outputs or of one coordinate, at
    each resolution of ``ATOM_DROPPED_BITS``."""
    name = "atoms"

    def __init__(self, first, z):
        self.m, self.z = first["c"].shape[0], z
        self.views = {(dropped, coord): view for dropped in ATOM_DROPPED_BITS
                      for coord, view in _atom_views(first["c"], first["c'"], dropped).items()}

    def choose(self, eps):
        return _best_atoms(self.views, eps, self.m, self.z)


class _Bits(_Family):
    """Family "bits": {bit b of coordinate j = v}, each of the 64 bits of each coordinate."""
    name = "bits"

    def __init__(self, first, z):
        self.m, self.z = first["c"].shape[0], z
        self.freqs = {d: _bit_frequencies(first[d]) for d in DIRECTIONS}

    def choose(self, eps):
        return _best_bit(self.freqs, eps, self.m, self.z)


class _Statistic(_Family):
    """A user's statistic s: its threshold sets and its atoms (one family)."""
    name = "statistic"

    def __init__(self, first_s, z):
        self.m, self.z = first_s["c"].size, z
        self.tables = {(None, d): t for d, t in _tables_of(first_s, z).items()}
        atoms, fp, fq = _atom_table(first_s["c"], first_s["c'"])
        self.views = {(0, "statistic"): (atoms, {"c": fp, "c'": fq})} if atoms.size else {}

    def choose(self, eps):
        return _best_atoms(self.views, eps, self.m, self.z, _best_thresholds(self.tables, eps))


def _learned_features(x, pair):
    """The feature map of the audit's learned family: for outputs x of shape (size, n)
    and the pair (i, j) of coordinates that differ between the inputs, an array of
    finite numbers with one row per output.

    Columns: the coordinates x_l; the log-ratios log x_a - log x_b of every pair a < b
    of coordinates (for n > ``_ALL_PAIRS``: of every coordinate with i and with j; logs
    floored at -745, so a zero share stays finite); the order statistics (x sorted);
    the rank of each coordinate in its output; the number of ties among the
    coordinates; the floating-point sum x_0 + ... + x_{n-1} (left to right) minus 1;
    and per coordinate three bit fields of its double: the biased exponent, the last
    8 mantissa bits and the number of mantissa bits set."""
    x = np.asarray(x, float)
    n = x.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.nan_to_num(np.maximum(np.log(x), -745.0), nan=-745.0)
    if n <= _ALL_PAIRS:
        a, b = np.triu_indices(n, 1)
    else:
        a = np.r_[np.arange(n), np.arange(n)]
        b = np.repeat(pair, n)
    order = np.sort(x, axis=1)
    ranks = np.argsort(np.argsort(x, axis=1, kind="stable"), axis=1, kind="stable")
    ties = np.count_nonzero(np.diff(order, axis=1) == 0, axis=1)
    total = x[:, 0].copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for col in range(1, n):
            total += x[:, col]
        excess = total - 1.0
    excess = np.nan_to_num(excess, nan=0.0, posinf=_BIG, neginf=-_BIG)
    u = _bits(np.ascontiguousarray(x))
    return np.column_stack([
        np.clip(x, -_BIG, _BIG), logs[:, a] - logs[:, b], order, ranks, ties, excess,
        (u >> np.uint64(52)) & np.uint64(0x7FF), u & np.uint64(0xFF),
        np.bitwise_count(u & np.uint64((1 << 52) - 1))]).astype(float)


_THREADS = []


def _one_thread():
    """A context in which the classifier's OpenMP code runs on one thread: its fits are
    small, and on a busy machine threads waiting for one another cost far more than they
    save.  The controller (threadpoolctl, scikit-learn's own) reads the loaded libraries
    once per process."""
    if not _THREADS:
        from threadpoolctl import ThreadpoolController
        _THREADS.append(ThreadpoolController())
    return _THREADS[0].limit(limits=1, user_api="openmp")


class _Learned(_Family):
    """Family "learned": {score > t} and {score < t} for a classifier's score.

    A gradient-boosted tree classifier (scikit-learn's ``HistGradientBoostingClassifier``)
    learns to tell the outputs of the two inputs apart from ``_learned_features``; it is
    fitted on the first outputs of the choosing half of each input (at most
    ``LEARN_ROWS``), and its thresholds are chosen on the next outputs of that half (at
    most ``CHOOSE_ROWS``), which it has not seen.  The held-out half only counts the
    chosen set's hits."""
    name = "learned"

    def __init__(self, first, pair, z):
        from sklearn.ensemble import HistGradientBoostingClassifier
        m = first["c"].shape[0]
        self.pair = pair
        # at most LEARN_ROWS outputs, and at most _LEARN_WORK features, per input
        features = _learned_features(first["c"][:1], pair).shape[1]
        self.fit_rows = min(m // 2, LEARN_ROWS, max(50, _LEARN_WORK // features))
        train = np.vstack([_learned_features(first[d][:self.fit_rows], pair)
                           for d in DIRECTIONS])
        labels = np.repeat([1, 0], self.fit_rows)          # 1: an output of c
        self.model = HistGradientBoostingClassifier(
            max_iter=min(_LEARN_ITERATIONS, max(10, self.fit_rows // 20)),
            max_leaf_nodes=15, early_stopping=False, random_state=0)
        with _one_thread():
            self.model.fit(train, labels)
        choose = slice(self.fit_rows, self.fit_rows + CHOOSE_ROWS)
        scores = {d: self.score(first[d][choose]) for d in DIRECTIONS}
        self.tables = {("learned", d): t
                       for d, t in _tables_of(scores, z, _COORDINATE_THRESHOLDS).items()}

    def score(self, x):
        """The classifier's log-odds that an output came from c (not c'), in chunks."""
        step = _CHUNK
        with _one_thread():
            return np.concatenate([
                self.model.decision_function(_learned_features(x[a:a + step], self.pair))
                for a in range(0, x.shape[0], step)])

    def held_out(self, source, x, s):
        return self.score(x)

    def choose(self, eps):
        return _best_thresholds(self.tables, eps)


def _default_families(first, first_s, pair, z, names):
    """The default audit's families named in ``names``, built from the choosing half."""
    build = {"thresholds": lambda: _Thresholds(first, first_s, z),
             "atoms": lambda: _Atoms(first, z), "bits": lambda: _Bits(first, z),
             "learned": lambda: _Learned(first, pair, z)}
    return [build[name]() for name in names]


@_checks.public
def audit_hockey_stick(counts, counts_adjacent, epsilon, *, mechanism=None, k=None,
                       samples=100_000, alpha=1e-3, statistic=None, families=None, rng=None):
    """Monte Carlo (1 - alpha) lower confidence bound on the hockey-stick divergence.

    Each family of candidate sets (threshold sets of the log-ratio and of every
    coordinate, exact and near atoms, raw bits, a learned classifier's threshold
    sets) chooses its set on the first half of the samples, in both orders of the
    inputs; each chosen set is bounded on the second half at level alpha / F, for the
    F sets tested (module docstring).  A refutation shows at confidence 1 - alpha
    that the claim is false; no result certifies a claim.  The book's
    chapter "Privacy audit" shows what it catches (Definition 4).

    Parameters
    ----------
    counts, counts_adjacent : array_like
        Adjacent count vectors (Definition 3): whole numbers >= 0 in n >= 2 categories,
        of the same length, differing by one record moved between two categories.
    epsilon : float or sequence of float
        The claimed epsilon(s), each >= 0 (a flat, non-empty sequence); one
        ``AuditResult`` per value.
    mechanism : callable, optional, keyword only
        ``(counts, size, rng) -> samples`` of shape (size, n); default ``dm.privatize``
        with parameter ``k`` (Algorithm 1).  Outputs that are not real, finite or of
        that shape raise an error.
    k : float, optional, keyword only
        The Dirichlet parameter (> 0) of the default mechanism; give ``k`` or
        ``mechanism``, not both.
    samples : int, optional, keyword only
        Samples per input in EACH half (so 2 * samples draws per input), a whole number
        >= 100 (default 100000); samples times n at most ``MAX_WORK``.
    alpha : float, optional, keyword only
        One-sided error probability of the lower bound, 0 < alpha < 1 (the book writes it
        beta, chapter "Notation"; default 1e-3;
        shared by the sets tested, Bonferroni, each split equally between its two
        Clopper-Pearson bounds).
    statistic : callable, optional, keyword only
        A function of the samples (an array (size, n) -> (size,) real numbers, no NaN)
        replacing the default families (module docstring) by its own threshold sets
        and atoms.
    families : sequence of str, optional, keyword only
        The default families to try, a non-empty subset of ``FAMILIES`` (default: all
        of them); not with a ``statistic``.  Fewer families are faster and see less.
    rng : None, int, SeedSequence or numpy.random.Generator, optional, keyword only
        None (fresh OS entropy, the default) or a seed / Generator for a reproducible
        audit; a bool is an error.

    Returns
    -------
    AuditResult or list of AuditResult
        One result for one epsilon, a list for a sequence of epsilons: the tested set
        with the largest lower bound.

    Raises
    ------
    ValueError
        If the count vectors are not adjacent count vectors; if neither or both of
        ``k`` and ``mechanism`` are given or ``k`` is not positive; if ``samples`` is
        not a whole number >= 100 or samples times n exceeds ``MAX_WORK``; if
        ``alpha`` is not in (0, 1); if ``epsilon`` is negative, empty or not flat; if
        ``families`` is empty, names a family not in ``FAMILIES`` or comes with a
        ``statistic``; or if the mechanism returns outputs of the wrong shape or not
        finite, or the statistic returns other than (size,) real numbers or NaN.
    TypeError
        If ``mechanism`` or ``statistic`` is not callable, ``samples`` is a bool,
        ``rng`` is not a valid seed (e.g. a bool), an input is not a real number, or
        the mechanism returns something that is not real numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> r = dm.audit_hockey_stick([9, 8, 8, 8, 65], [8, 9, 8, 8, 65], 0.5, k=20.6,
    ...                           samples=1000, rng=1)
    >>> r.refutes(1.0)
    False
    """
    c = _checks.counts_array("counts", counts)
    c_adj = _checks.counts_array("counts_adjacent", counts_adjacent)
    pair = adjacent_indices_named(c, c_adj, "counts_adjacent")
    default = statistic is None
    stat = log_ratio_statistic(c, c_adj) if default else statistic
    if not callable(stat):
        raise TypeError(f"statistic={_checks.show(statistic)} must be a function of the samples")
    names = _family_names(families, default)
    mechanism = _the_mechanism(mechanism, k)
    if isinstance(samples, (bool, np.bool_)):
        raise TypeError(f"samples={samples!r} must be a whole number, not a bool")
    samples = _checks.whole_number("samples", samples, 100)
    n = c.shape[-1]
    if samples * n > MAX_WORK:                 # the work, estimated before the first draw
        raise ValueError(f"samples={samples} asks for 2 x {2 * samples} outputs of {n} numbers: "
                         f"at most {MAX_WORK // n} samples per half for n={n} (samples x n <= "
                         f"{MAX_WORK}, about ten seconds of audit)")
    alpha = _checks.positive_scalar("alpha", alpha)
    if alpha >= 1:
        raise ValueError(f"alpha={alpha!r} must be < 1")
    eps_values = np.atleast_1d(_checks.as_float_array("epsilon", epsilon))
    if eps_values.ndim != 1 or eps_values.size == 0:
        raise ValueError(f"epsilon={_checks.show(epsilon)} must be a number or a flat, "
                         "non-empty sequence")
    if np.any(eps_values < 0):
        raise ValueError(f"epsilon={_checks.show(epsilon)} must be >= 0 (Definition 4)")
    gen = _checks.generator(rng)
    # [book:audit_loop] (the book's excerpt: privacy_audit.ipynb; lines <= 83 columns)
    x = {"c": _outputs(mechanism, c, 2 * samples, gen, n),
         "c'": _outputs(mechanism, c_adj, 2 * samples, gen, n)}
    s = {d: _statistic_values(stat, x[d], 2 * samples) for d in DIRECTIONS}
    # the choosing half: rows [0, samples);
    # the held-out half: rows [samples, 2 samples)
    first = {d: x[d][:samples] for d in DIRECTIONS}
    first_s = {d: s[d][:samples] for d in DIRECTIONS}
    held_x = {d: x[d][samples:] for d in DIRECTIONS}
    held_s = {d: s[d][samples:] for d in DIRECTIONS}
    # the families are fixed before the held-out half is looked at; the
    # Wilson scores that choose within them use the level of the final bound
    z = float(-ndtri(alpha / (2 * len(names))))
    fams = (_default_families(first, first_s, pair, z, names) if default
            else [_Statistic(first_s, z)])
    tested = []                    # (epsilon index, family, set, hits)
    for fam in fams:
        chosen = [(index, fam.choose(eps)) for index, eps in enumerate(eps_values)]
        chosen = [(index, cand) for index, cand in chosen if cand is not None]
        hits = (fam.count([cand for _, cand in chosen], held_x, held_s)
                if chosen else [])
        tested += [(index, fam.name, cand, hp, hq)
                   for (index, cand), (hp, hq) in zip(chosen, hits)]
    return _results(tested, eps_values, samples, alpha, default, np.ndim(epsilon))


def _family_names(families, default):
    """The families an audit tries: ``FAMILIES`` unless the caller names some (checked)."""
    if families is None:
        return FAMILIES if default else ("statistic",)
    if not default:
        raise ValueError(f"families={_checks.show(families)} and a statistic were both given: "
                         "a statistic replaces the default families")
    try:
        names = (families,) if isinstance(families, str) else tuple(families)
    except TypeError:
        raise TypeError(f"families={_checks.show(families)} must be a family name or a "
                        f"sequence of names among {FAMILIES}") from None
    if not names or any(not isinstance(f, str) or f not in FAMILIES for f in names) \
            or len(set(names)) != len(names):
        raise ValueError(f"families={_checks.show(families)} must name distinct families "
                         f"among {FAMILIES}, at least one")
    return tuple(f for f in FAMILIES if f in names)


def _the_mechanism(mechanism, k):
    """The mechanism audited: ``dm.privatize`` with parameter k, or the caller's (checked)."""
    if mechanism is None:
        if k is None:
            raise ValueError("k=None: give the Dirichlet parameter k or a mechanism")
        k_value = _checks.positive_scalar("k", k)

        def mechanism(cc, size, gen):
            return privatize(cc, k_value, rng=gen, size=size)
        return mechanism
    if not callable(mechanism):
        raise TypeError(f"mechanism={_checks.show(mechanism)} must be a function "
                        "(counts, size, rng)")
    if k is not None:
        raise ValueError(f"k={_checks.show(k)} and a mechanism were both given: k is the "
                         "parameter of the default mechanism (dm.privatize); pass one of them")
    return mechanism


def _results(tested, eps_values, samples, alpha, default, vector):
    """Each epsilon's best ``AuditResult`` from the tested sets (epsilon index, family,
    set, hits_p, hits_q): every set bounded by Clopper-Pearson at level alpha / F, F the
    number of sets tested at that epsilon (Bonferroni)."""
    per_eps = np.bincount([t[0] for t in tested], minlength=eps_values.size)
    tests = per_eps[[t[0] for t in tested]]
    p_lo, q_hi = _clopper_pearson_ends([t[3] for t in tested], [t[4] for t in tested],
                                       samples, alpha / tests)
    results = [None] * eps_values.size
    for (index, name, cand, hits_p, hits_q), lo, hi, f in zip(tested, p_lo, q_hi, tests):
        eps = float(eps_values[index])
        w = _weight(eps)
        p_hat, q_hat = hits_p / samples, hits_q / samples
        coordinate = cand.coordinate if isinstance(cand.coordinate, (int, np.integer)) \
            else None
        r = AuditResult(eps, None if cand.kind == "atoms" else float(cand.threshold), p_hat,
                        q_hat, p_hat - w * q_hat, float(lo) - w * float(hi), alpha, samples,
                        cand.direction, cand.kind, coordinate,
                        0 if cand.chosen is None else int(cand.chosen.size), default, name,
                        cand.dropped_bits, cand.bit, int(f))
        if results[index] is None or r.lower_bound > results[index].lower_bound:
            results[index] = r
    # an epsilon at which no family found a set: the empty set, P - e^eps Q = 0 exactly
    results = [AuditResult(float(eps), None, 0.0, 0.0, 0.0, 0.0, alpha, samples, "c", "empty",
                           default_statistic=default, family="none", tests=0)
               if r is None else r for eps, r in zip(eps_values, results)]
    return results if vector else results[0]



@_checks.public
def chosen_set_divergence(result, counts, counts_adjacent, k):
    """Exact P(T) - e^eps Q(T) for the set T an audit of ``dm.privatize`` chose.

    For the Dirichlet mechanism (Definition 5) with the default statistic
    s(x) = log x_j - log x_i, where c' = c + e_i - e_j: s > t iff
    B = x_j / (x_i + x_j) > expit(t), and B is Beta(k c_j/N, k c_i/N) under Dir(k c/N)
    (aggregation property); s < t iff B < expit(t).  A threshold set of one coordinate,
    {x_l > t} or {x_l < t}, has x_l ~ Beta(k c_l/N, k (N - c_l)/N).  P is the law of
    the input the result names first (``result.direction``).  A set of exact atoms
    (finitely many points) has probability 0 under the continuous Dirichlet law.

    Parameters
    ----------
    result : AuditResult of a default audit (no custom statistic).
    counts, counts_adjacent : the audited adjacent count vectors (Definition 3).
    k : the Dirichlet parameter audited.

    Returns
    -------
    (value, P(T), Q(T)) : floats.  Because T was chosen on the other half of the
    samples, ``result.estimate`` is an unbiased estimate of ``value``, and ``value`` is
    at most the hockey-stick divergence in that order (Definition 4): the book's tests
    compare the three.  Book: chapter "Privacy audit".

    Raises
    ------
    ValueError : a custom statistic's set, a set of near-atoms or of one raw bit (no
        closed form), or a count of 0 where the set needs a Beta law.

    Examples
    --------
    >>> r = audit_hockey_stick([9, 8, 8, 8, 65], [8, 9, 8, 8, 65], 0.2, k=20.6,
    ...                        samples=1000, rng=1)
    >>> value, p, q = chosen_set_divergence(r, [9, 8, 8, 8, 65], [8, 9, 8, 8, 65], 20.6)
    """
    if not isinstance(result, AuditResult):
        raise TypeError(f"result={_checks.show(result)} must be an AuditResult from "
                        "audit_hockey_stick")
    if not result.default_statistic:
        raise ValueError("result comes from a custom statistic: only the default "
                         "families' threshold sets and exact atoms have a closed form")
    if result.family == "learned":
        raise ValueError("result is a learned classifier's set: only threshold sets of the "
                         "log-ratio or of one coordinate and exact atoms have a closed form")
    if result.kind == "bit" or (result.kind == "atoms" and result.dropped_bits):
        what = "near-atoms" if result.kind == "atoms" else "one raw bit"
        raise ValueError(f"result is a set of {what}: only threshold sets and exact atoms have "
                         "a closed form")
    k = _checks.positive_scalar("k", k)
    i, j = adjacent_indices_named(counts, counts_adjacent, "counts_adjacent")
    c = np.asarray(counts, float)
    cp = np.asarray(counts_adjacent, float)
    if result.coordinate is not None and not 0 <= result.coordinate < c.size:
        raise ValueError(f"result looks at coordinate {result.coordinate}, but counts has "
                         f"{c.size} categories: pass the count vectors that were audited")
    if result.kind in ("atoms", "empty"):            # finitely many points, or none
        return 0.0, 0.0, 0.0
    first, second = (c, cp) if result.direction == "c" else (cp, c)
    N = c.sum()
    tail = betaincc if result.kind == "above" else betainc
    if result.coordinate is None:
        if min(c[i], c[j], cp[i], cp[j]) <= 0:
            raise ValueError(f"counts={c.tolist()} and counts_adjacent={cp.tolist()} need "
                             "positive counts in the two categories that change (Dir(k*C) is "
                             "undefined at 0)")
        u = expit(result.threshold)
        a_p, b_p, a_q, b_q = first[j], first[i], second[j], second[i]
    else:
        l = result.coordinate
        if min(c[l], cp[l], N - c[l], N - cp[l]) <= 0:
            raise ValueError(f"counts={c.tolist()} and counts_adjacent={cp.tolist()} need "
                             f"0 < count < N in category {l} (the Beta law of x_{l})")
        u = float(np.clip(result.threshold, 0.0, 1.0))
        a_p, b_p, a_q, b_q = first[l], N - first[l], second[l], N - second[l]
    p_set = float(tail(k * a_p / N, k * b_p / N, u))
    q_set = float(tail(k * a_q / N, k * b_q / N, u))
    return p_set - _weight(result.epsilon) * q_set, p_set, q_set

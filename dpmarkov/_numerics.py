"""Internal: the numerical floor under privacy, loss, profile, renyi, accounting and accuracy.

Not part of the public API (nothing here is exported from ``dpmarkov``); the names without a
leading underscore are the interface the package's own modules use.  It holds what the
privacy numbers share, each with its error bound, so that a sound result can be rounded
outward:

- certified increments of log Gamma: ``lgamma_increment`` (and ``_scaled``, the mean of
  psi over a step), ``increment_difference``, and ``increment_error``, a bound on their
  absolute floating-point error; the Stirling series they use (``LGAMMA_SERIES`` from
  ``SERIES_FROM`` on, shared with ``accuracy``); the unit roundoff ``U``;
- eq. (6)'s output term h log((1 - (n-1) gamma)/gamma) with its error bound, the exact
  worst-case loss at a minimum count (``exact_loss``), and ``outward`` rounding;
- ``log_betainc`` and ``log_lower_tail``: log P(Beta(a, b) < u), also where u or the tail
  underflows, with an error bound (``betainc_budget``, the budget for scipy's incomplete Beta
  function, or DLMF 8.17.8's series in logs below ``BETAINC_TRUSTED``);
  ``outward_probability`` rounds a probability outward from its logarithm and such a
  bound, and ``above_floor`` covers the last subnormal spacings relative bounds miss;
- safe-side roots: ``push_upper_end`` and ``root_on_safe_side`` bracket and solve many
  monotone equations at once and stop on the side where the function was evaluated <= 0.

Book: "The privacy loss of the Dirichlet mechanism" (the increments and the inverse of
eq. (6)), "The exact worst case" (the error bounds and outward rounding), "The tight
privacy profile" (the Beta tails).
"""
from __future__ import annotations

import numpy as np
from scipy.special import betainc, betaln, gammaln, zeta

#: Stirling's series is used from this argument on (``lgamma_increment_scaled``; ``accuracy``).
SERIES_FROM = 10.0
# log Gamma(x) - Stirling = sum_j B_2j / (2j (2j - 1) x^(2j - 1))
LGAMMA_SERIES = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)



def lgamma_increment(x, h):
    """log Gamma(x + h) - log Gamma(x) without cancellation: h * ``lgamma_increment_scaled``.

    A small increment of a huge argument (k = 1e7, h = k/N) keeps its relative accuracy:
    the difference is formed term by term from Stirling's series, never as the difference
    of two nearly equal log Gamma values.  For x > 0, x + h > 0; it overflows only when
    the true value exceeds the float range.
    """
    # [book:lgamma_increment]
    x, h = np.broadcast_arrays(np.asarray(x, float), np.asarray(h, float))
    with np.errstate(over="ignore", invalid="ignore"):
        out = h * lgamma_increment_scaled(x, h)
    return out if out.ndim else out[()]


def _log1p_ratio(t):
    """log1p(t)/t for t > -1, with its limit 1 at t = 0."""
    out = np.log1p(t)
    if t.all():                                   # the usual case: one plain division
        return np.divide(out, t, out=out)
    return np.divide(out, t, out=np.ones_like(t), where=t != 0)


#: ``lgamma_increment_scaled`` shifts every argument below ``SERIES_FROM`` up by this much.
_SHIFT = 10


#: The offsets i = 0 ... ``_SHIFT`` - 1 of the shifted arguments x + i, as a column.
_OFFSETS = np.arange(float(_SHIFT))[:, None]


def _shift_sum(x, h):
    """S = sum_{i<10} log1p(h/(x + i)) / h for x > 0, h >= 0 (``_SHIFT`` terms), one log1p.

    prod_{i<10} (1 + h r_i) = 1 + h d, r_i = 1/(x + i), where d_1 = r_0 and
    d_{i+1} = d_i (1 + h r_i) + r_i (all terms positive), so S = log1p(h d)/(h d) * d.  Where
    the product overflows (h/x near the float maximum) the logarithms are summed instead.
    """
    r = np.divide(1.0, x + _OFFSETS)
    f = np.multiply(h, r[1:])
    f += 1.0                                              # f_i = 1 + h r_i, i >= 1
    d = r[0].copy()
    for j in range(1, _SHIFT):
        d *= f[j - 1]
        d += r[j]
    out = _log1p_ratio(h * d)
    out *= d
    if not np.isfinite(out).all():
        bad = ~np.isfinite(out)
        z = x[bad] + np.arange(_SHIFT)[:, None]
        hb = h[bad]
        logs = np.where(np.isfinite(hb / z), np.log1p(hb / z), np.log(hb) - np.log(z))
        out[bad] = np.cumsum(logs, axis=0)[-1] / hb           # in order
    return out


def lgamma_increment_scaled(x, h):
    """[log Gamma(x + h) - log Gamma(x)] / h, the mean of the digamma function over [x, x + h].

    For x > 0, x + h > 0.  Always finite (it lies between psi(x) and psi(x + h), so
    below log(x + h) <= 710), so differences of two increments can be formed as
    h * (scaled(x) - scaled(y)) without an overflowing intermediate when k is near the
    float maximum.  At h = 0 it is psi(x).  Only log, log1p and arithmetic, in two steps:

    1. x0 = min(x, x + h) < 10 (``SERIES_FROM``): Gamma(z + 1) = z Gamma(z) shifts up by
       10 (``_SHIFT``):  scaled(x, h) = scaled(y, h) - S,  y = x + 10,
       S = sum_{i<10} log1p(h/(x + i)) / h = sum_{i<10} log1p(|h|/(x0 + i)) / |h|
       (the second form, used, has positive terms; ``_shift_sum``).  Else y = x.
    2. y >= 10 and y + h >= 10: Stirling's series log Gamma(z) = (z - 1/2) log z - z
       + log(2 pi)/2 + R(z), R(z) = sum_{j=1..7} c_j z^(1-2j) (``LGAMMA_SERIES``),
       differenced and divided by h with t = h/y, a = 1/(y + h), b = 1/y:
       P = (1 + t - 1/(2y)) log1p(t)/t + log y - 1 - a b sum_j c_j G_{2j-1},
       since ((y+h-1/2) log(y+h) - (y-1/2) log y - h)/h = (1 + t - 1/(2y)) log1p(t)/t
       + log y - 1 and (a^p - b^p)/h = -a b G_p, G_p = sum_{i<p} a^i b^(p-1-i)
       (a - b = -h a b; G_{p+2} = b^2 G_p + a^p (a + b)).  log1p(t)/t (limit 1 at t = 0)
       is accurate to an ulp or two for every t > -1, and no term cancels: the first is
       >= 0 (1 + t >= 10/y), log y - 1 >= 1.3, and the remainder is below 1/1100 of them.

    Error (u = 2^-53): truncating Stirling's series after c_7 leaves a digamma error below
    its first omitted term |B_16|/(16 z^16) <= 4.5e-17 for z >= 10 (for real z > 0 the
    remainder is bounded by that term, DLMF 5.11(ii)), hence also for the mean over
    [y, y + h].  P carries a relative rounding error of about 16u and S, a sum of 10
    positive terms, at most 34u, so the absolute error of the result is at most
    40u (P + S).  It is a relative error of a few u except near the zero of psi (x =
    1.4616, tiny h), where P - S nearly cancels; every caller takes differences of
    increments, for which the absolute error is what counts.  ``tests/test_privacy.py``
    checks the bound against mpmath over x from 1e-300 to 1e308, h/x from 1e-300 to 1e3
    and negative h down to -0.999999 x.  Every step is elementwise, so a point gives the
    same bits alone or in any batch.
    """
    x, h = np.broadcast_arrays(np.asarray(x, float), np.asarray(h, float))
    return mean_digamma(x.ravel(), h.ravel()).reshape(x.shape)


def mean_digamma(x, h, *, step_positive=False):
    """``lgamma_increment_scaled`` for two float vectors of one length (its two steps).

    ``step_positive=True`` promises h > 0 everywhere (then min(x, x + h) = x and |h| = h;
    the same numbers, fewer operations).  Operations are done in place where the formula
    allows, in the order the docstring of ``lgamma_increment_scaled`` gives.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        x0 = x if step_positive else x + np.minimum(h, 0.0)  # step 1
        low_mask = x0 < SERIES_FROM
        low = low_mask.nonzero()[0]
        pair = np.empty((2, x.size))                         # y, y + h; then b, a
        y = np.add(x, low_mask * float(_SHIFT), out=pair[0])  # x + 10 or x + 0 = x
        t = h / y                                            # step 2
        np.add(y, h, out=pair[1])
        b, a = ba = np.divide(1.0, pair)                     # b = 1/y, a = 1/(y + h)
        squares = ba * ba                                    # b^2, a^2
        g, e = ge = np.empty_like(ba)                        # G_p, a^p (a + b): one product
        np.add(a, b, out=e)
        e *= a                                               # a^p (a + b), p = 1, 3, ...
        np.add(squares[0], e, out=g)                         # G_p, p = 3, 5, ... (G_1 = 1)
        s = LGAMMA_SERIES[1] * g
        s += LGAMMA_SERIES[0]
        cg = np.empty_like(g)
        for c in LGAMMA_SERIES[2:]:
            ge *= squares                                    # g b^2 and e a^2
            g += e                                           # G_{p+2} = b^2 G_p + a^p (a + b)
            s += np.multiply(c, g, out=cg)
        ab = np.multiply(a, b, out=a)
        ab *= s                                              # a b sum_j c_j G_{2j-1}
        out = 1.0 + t
        out -= np.multiply(0.5, b, out=b)
        out *= _log1p_ratio(t)
        out += np.log(y, out=y)
        out -= 1.0
        out -= ab
        if low.size:
            out[low] -= _shift_sum(x0[low], h[low] if step_positive else np.abs(h[low]))
    return out


#: The unit roundoff u = 2^-53 of a double.
U = 2.0 ** -53


def increment_difference(x, y, h):
    """lgamma_increment(x, h) - lgamma_increment(y, h) without an overflowing intermediate."""
    x, y, h = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float),
                                  np.asarray(h, float))
    both = mean_digamma(np.concatenate([x.ravel(), y.ravel()]),
                         np.concatenate([h.ravel(), h.ravel()]))
    return scaled_difference(h, both[:x.size].reshape(x.shape), both[x.size:].reshape(x.shape))


def scaled_difference(h, sx, sy):
    """h sx - h sy for two scaled increments (``lgamma_increment_scaled``), or h (sx - sy)
    where a product overflows (k near the float maximum)."""
    with np.errstate(over="ignore", invalid="ignore"):
        direct = h * sx - h * sy
        if not np.isfinite(direct).all():
            direct = np.where(np.isfinite(direct), direct, h * (sx - sy))
    return np.asarray(direct, float)


def increment_error(x, h, scaled, *, step_positive=False):
    """An upper bound on the absolute error of h * lgamma_increment_scaled(x, h) = h * scaled.

    For either sign of h, ``lgamma_increment_scaled`` is P - S (S = 0 without the shift) with absolute error at
    most 40u (P + S).  P is Stirling's mean of psi over [y, y + h], y <= x + 10, and psi(z)
    < log z, so 0 < P < L = log(x + 10 + max(h, 0)); hence P + S = 2P - (P - S) <= 2L +
    |scaled|.  The bound 64u |h| (2L + |scaled|) also covers the product by h and the
    subtraction of two such terms (a few u of |h scaled| each).  ``step_positive=True``
    promises h > 0 (then max(h, 0) = |h| = h: the same numbers, two operations fewer).
    """
    with np.errstate(over="ignore"):
        if step_positive:
            level = 2.0 * np.log(x + 10.0 + h) + np.abs(scaled)
            return (64.0 * U * h) * level
        level = 2.0 * np.log(x + 10.0 + np.maximum(h, 0.0)) + np.abs(scaled)
        return (64.0 * U * np.abs(h)) * level


def output_term(h, n, gamma, logs=None):
    """sup over Omega_1 of h*(log x_j - log x_i) = h log((1-(n-1)gamma)/gamma): eq. (6)'s second term.

    ``logs``: ``output_logs(n, gamma)`` when the caller has them already (the same numbers).
    """
    l1, l2 = output_logs(n, gamma) if logs is None else logs
    return h * (l1 - l2)


def output_logs(n, gamma):
    """(log1p(-(n-1) gamma), log gamma), the two logarithms of eq. (6)'s second term."""
    return np.log1p(-(n - 1) * gamma), np.log(gamma)


def exact_loss(k, N, n, gamma, m):
    """The exact worst-case privacy loss at minimum count m (``loss.epsilon_exact``), unchecked."""
    h = k / N
    big = N - (n - 1) * m
    with np.errstate(over="ignore", invalid="ignore"):
        return increment_difference(h * (big - 1), h * m, h) + output_term(h, n, gamma)


def output_term_error(h, n, logs):
    """An upper bound on the absolute rounding error of ``output_term``.

    log1p(-(n-1) gamma) inherits the relative error u of (n-1) gamma amplified by
    (n-1) gamma / (1 - (n-1) gamma) < n - 1 (gamma < 1/n); log gamma, the subtraction and
    the product by h add a few u: (n + 8) u h (|log1p(-(n-1) gamma)| + |log gamma|).
    ``logs``: the two logarithms, ``output_logs(n, gamma)``.
    """
    l1, l2 = logs
    return ((n + 8.0) * U * h) * (np.abs(l1) + np.abs(l2))


def outward(value, error):
    """value + error, plus 4u |value| for the sum's own rounding: never below the real number."""
    return value + (error + 4.0 * U * np.abs(value))



#: Relative error budget of ``scipy.special.betainc`` (Boost's ibeta) where its value is at
#: least ``BETAINC_TRUSTED``: it has no proven bound, so the budget is measured (against the
#: series of ``verify.highprec.lower_tail`` and mpmath's betainc): ``BETAINC_REL`` plus
#: ``BETAINC_LOG_REL`` per unit of |log I| (the errors grow with the depth of the tail: 1.1e-12
#: at a = 3082, b = 2984, I = 6e-86, above the old budget 1e-12 + 4u |log I| = 1.09e-12),
#: plus, where Boost takes its binomial path (whole shapes), the effect of its rounding of
#: 1 - x (``betainc_budget``).
BETAINC_REL = 1e-12
#: The part of the budget per unit of |log I|: 512 u, with which every error measured is at
#: most 0.115 of the whole budget (5,048 random cases, a from 0.3 to 3e4 and b from 1 to 1e12)
#: and 0.035 (8,095 cases with whole shapes; both ``scripts/betainc_scan.py``), and the
#: deepest one found, 1.1e-12 at |log I| = 196 (tests/test_delta.py), 0.09.
BETAINC_LOG_REL = 512.0 * 2.0 ** -53
#: The part of the budget that grows with the shapes: ``BETAINC_SHAPE_REL`` sqrt(min(a, b))
#: (1 + sqrt(2 |log I|)).  With both shapes large (from about 1e7) scipy's error grows like
#: the effect of one rounding of x or 1 - x: u times the mean over the standard deviation
#: (about sqrt(min(a, b))) times the tail's hazard (about |z| = sqrt(2 |log I|)): 2.2e-12 at
#: a = 1.3e7, b = 1.5e9, I = 3e-5 and 4.4e-11 at a = 1.1e8, b = 5.0e8, I = 1.5e-33, up to 8
#: times the rest of the budget (found by an independent review; tests/test_delta.py).  In
#: a grid of 307 cases (smaller shape 1e4 to 4e8, |z| up to 30) the error was at most 2.9
#: u sqrt(min(a, b)) (1 + sqrt(2 |log I|)), and in 10 more with shapes of 1e9 to 3e10 at
#: most 1.3; ``scripts/betainc_scan.py --large --seed 31 --cases 250`` (163 cases checked)
#: finds every error within 0.234 of the whole budget.
BETAINC_SHAPE_REL = 12.0 * 2.0 ** -53
#: Below this value ``betainc`` is not used: for large shapes it loses digits from about
#: 1e-250 on and returns 0 for tails near 1e-270 that are far above the smallest double
#: (tests/test_tiny_values.py); ``log_betainc`` sums DLMF 8.17.8's series in logs instead.
BETAINC_TRUSTED = 1e-200
#: The smallest positive double: a probability that is > 0 but underflows is rounded up to it.
TINY = float(np.finfo(float).smallest_subnormal)
#: The smallest normal double; below it a double is a multiple of ``TINY`` and a product or
#: an exponential rounds by up to one ``TINY`` whatever its relative accuracy.
NORMAL = float(np.finfo(float).tiny)
#: Terms of DLMF 8.17.8's series summed at most (``log_betainc``); a remainder left over is
#: bounded and counted in the error, never dropped.
_SERIES_TERMS = 2000


def above_floor(value, slack=2):
    """``value`` raised by ``slack`` spacings ``TINY`` where it is below the normal range.

    Relative error bounds cannot reach the last ``TINY`` of a subnormal result (4u times
    1e-310 underflows to 0), while one product or exponential that lands there can round it
    down by a whole ``TINY``: a value computed with at most ``slack`` such roundings and a
    relative bound that covers the rest is never below the real number after this step.
    Normal values and 0 are returned unchanged (a result that underflowed to 0 is below
    TINY / 2 in truth; the callers round it up to ``TINY``)."""
    return np.where((value > 0) & (value < NORMAL), value + slack * TINY, value)


def outward_probability(log_value, log_error):
    """A probability known to be > 0, given as log_value with an error bound log_error on that
    logarithm, rounded outward: e^(log_value + log_error + 4u (1 + |log_value|)), raised by
    ``above_floor`` in the subnormal range, at least ``TINY`` (a positive value whose
    logarithm is below -745 underflows) and at most 1."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        grown = np.exp(np.minimum(log_value + log_error + 4.0 * U * (1.0 + np.abs(log_value)),
                                  0.0))
    grown = np.where(np.isneginf(log_value), 0.0, grown)     # underflowed: TINY below
    return np.minimum(np.maximum(above_floor(grown), TINY), 1.0)


def betainc_shape_error(a, b, x, rel_a, rel_b, log_x=None, log_value=None):
    """A bound on the relative change of I_x(a, b) when a and b carry relative errors rel_a
    and rel_b (their own rounding).

    With X ~ Beta(a, b) and A the event X < x, d log I / d a = E[log X | A] - E[log X] <= 0
    and d log I / d b = E[log(1 - X) | A] - E[log(1 - X)] >= 0; each times the absolute
    error of its shape.  Always: |d/da| <= |log x| + 2/a + log(1 + b/a) and |d/db| <=
    |log(1 - x)| + 1/b + log(1 + a/b), which for shapes of size a is about a u in all (given
    A, -log X exceeds |log x| on average by at most 1/a for b < 1, and for b >= 1, its density
    being log-concave, by at most its mean psi(a + b) - psi(a), so |d/da| <= |log x| + 1/a;
    and |d/db| <= psi(a + b) - psi(b) <= log(1 + a/b) + 1/b).  With ``log_value`` (log I, as
    computed) the smallest of these and two more, each about sqrt(min(a, b)) u for large
    shapes:

    * Cauchy-Schwarz on the covariance of Y and the indicator of A: |E[Y | A] - E[Y]| <=
      sd(Y) sqrt((1 - I)/I), with Var(log X) = psi'(a) - psi'(a + b) and Var(log(1 - X)) =
      psi'(b) - psi'(a + b) (psi' = zeta(2, .)), with 1 - I taken as at least 1e-3 (so an
      error of I up to 2e-6 relative, above any budget, moves it by at most 0.2%): tails
      that are not tiny.
    * Where lam = a - max(b - 1, 0) x/(1 - x) > 0 (x below a/(a + b - 1), the mode of
      log X): in s = log(x/X) the density of X given A is proportional to e^(-a s)
      (1 - x e^(-s))^(b - 1), whose logarithm falls at least at rate lam, so E[s | A] <=
      1/lam.  With E[log X] <= log(a/(a + b)) (Jensen): |d/da| <= log(a/((a + b) x)) +
      1/lam; with E[X | A] >= x e^(-1/lam) (Jensen) and psi(a + b) - psi(b) <= log(1 + a/b)
      + 1/b: |d/db| <= log(1 + a/b) + log(1 - x e^(-1/lam)) + 1/b.  Deep tails.

    The variances carry a slack of 1e-13 psi' (their cancellation), lam and the logarithms a
    few u each (1 - x is formed from log x, also where x is rounded near 1), and the factor
    1.01 covers the error of the computed I.  The two sharper bounds are only computed where
    the first exceeds 1e-13 (it stands elsewhere).  ``log_x``: log x when the caller has it
    (x itself may underflow).
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_x = np.log(x) if log_x is None else log_x
        effect_a = a * np.abs(log_x) + 2.0 + a * np.log1p(b / a)
        effect_b = b * np.abs(np.log1p(-x)) + 1.0 + b * np.log1p(a / b)
        crude = rel_a * effect_a + rel_b * effect_b
        # the sharper bounds where the crude one is large enough to matter (above 1e-13:
        # shapes of about 100 and more); elsewhere the crude one stands, which is sound
        wide = crude > 1e-13
        if log_value is None or not np.any(wide):
            return crude
        sharp_a, sharp_b = _sharper_effects(a, b, x, log_x, log_value)
        sharp = rel_a * np.fmin(effect_a, sharp_a) + rel_b * np.fmin(effect_b, sharp_b)
        return np.where(wide, sharp, crude)


def _sharper_effects(a, b, x, log_x, log_value):
    """The bounds on |a d log I/da| and |b d log I/db| of ``betainc_shape_error`` that use
    the tail's value: the smaller of Cauchy-Schwarz's and the one where lam > 0."""
    odds = 1.01 * np.sqrt(np.maximum(-np.expm1(log_value), 1e-3)) * np.exp(-0.5 * log_value)
    both = zeta(2.0, a + b)
    schwarz_a = a * _sd_above(zeta(2.0, a), both) * odds
    schwarz_b = b * _sd_above(zeta(2.0, b), both) * odds
    rest = -np.expm1(log_x)                 # 1 - x, accurate also where x is rounded near 1
    rate = a * (1.0 - 8.0 * U) - np.maximum(b - 1.0, 0.0) * (x / rest) * (1.0 + 8.0 * U)
    near = np.where(rate > 0, (1.0 + 8.0 * U) / rate, np.inf)          # 1/lam
    log_mean, log_rest = -np.log1p(b / a), np.log(rest)
    mode_a = a * (np.maximum(log_mean - log_x, 0.0) + near
                  + 4.0 * U * (np.abs(log_mean) + np.abs(log_x)))
    gap = np.log1p(a / b) + np.log(-np.expm1(log_x - near))         # 1 - x e^(-1/lam)
    mode_b = b * (np.maximum(gap, 0.0) + 1.0 / b
                  + 4.0 * U * (np.log1p(a / b) + np.abs(log_rest)))
    return np.fmin(schwarz_a, mode_a), np.fmin(schwarz_b, mode_b)


def _sd_above(own, both):
    """sqrt(psi'(a) - psi'(a + b)) from ``own`` = psi'(a) and ``both`` = psi'(a + b), with a
    slack of 1e-13 psi'(a) for their rounding and cancellation (never below the real value)."""
    return np.sqrt(own - both + 1e-13 * own)


def _log_series(a, b, x, log_x):
    """log I_x(a, b) by DLMF 8.17.8 and a bound on its absolute error, for 1-d arrays.

    I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) F,  F = sum_n t_n,  t_0 = 1,
    t_(n+1) = t_n r_n,  r_n = (a + b + n) x / (a + 1 + n).  Every term is positive and r_n
    moves monotonically from r_0 towards x, so after n terms the remainder is at most
    t_n / (1 - R), R = max(r_n, x) (where R < 1).  The sum stops when that is below 2^-60
    of the partial sum; where R_0 = max(r_0, x) says that takes more than ``_SERIES_TERMS``
    terms (shapes of a million and more near the mean) only t_0 is taken, with the
    remainder's bound r_0 / (1 - R_0) (sound, looser).  The remainder's bound log1p(rest/S)
    is part of the error (infinite where R >= 1: no bound; ``log_betainc`` then keeps
    scipy's value), with the rounding of the terms (each t_n carries at most 3n u, the sum
    n u more) and of the prefix (16u of each of its logarithms, those of the three log-gammas
    of ``betaln`` included).
    The terms are formed a block at a time (``_series_block``): a running product and a
    running sum along each row, the same roundings in the same order as one term at a time.
    """
    with np.errstate(all="ignore"):
        prefix, prefix_error, worst, rest = _series_head(a, b, x, log_x)
        total = np.ones(a.shape)
        # sum only where the remainder falls below 2^-60 within the budget of terms (huge
        # shapes near the mean would need millions): elsewhere t_0 and its bound stand
        needed = np.log(2.0 ** -60 * (1.0 - worst)) / np.log(worst)
        live = np.flatnonzero((worst < 1.0) & (needed <= _SERIES_TERMS)
                              & np.isfinite(prefix) & np.isfinite(prefix_error))
        term = np.ones(live.size)
        n = 0                                     # terms added so far (the longest row)
        while live.size and n < _SERIES_TERMS:
            width = int(min(_SERIES_TERMS - n, max(8, np.ceil(needed[live].max()) + 2 - n),
                            max(8, _BLOCK_ELEMENTS // live.size)))
            done, stop, s_term, s_total, s_rest = _series_block(
                a[live], b[live], x[live], term, total[live], n, width)
            total[live], rest[live] = s_total, s_rest
            n += int(stop[done].max() + 1) if done.all() else width
            live, term = live[~done], s_term[~done]
        error = prefix_error + np.log1p(rest / total) + 4.0 * (n + 1) * U
    return prefix + np.log(total), error


def _series_head(a, b, x, log_x):
    """The pieces of ``_log_series`` before its sum: (prefix, prefix_error, R_0, rest).

    prefix = log(x^a (1 - x)^b / (a B(a, b))) and a bound on its rounding error (16u of each
    logarithm, those of the three log-gammas of ``betaln`` included); r_0 = (a + b) x /
    (a + 1) and R_0 = max(r_0, x); rest = r_0 / (1 - R_0), the bound on the terms after t_0
    (infinite where R_0 >= 1).  Call inside ``np.errstate(all="ignore")``.
    """
    prefix = a * log_x + b * np.log1p(-x) - np.log(a) - betaln(a, b)
    # betaln(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b) loses to cancellation what
    # its pieces carry (up to 100 times 16u |betaln| at large shapes against mpmath)
    prefix_error = 16.0 * U * (np.abs(a * log_x) + np.abs(b * np.log1p(-x))
                               + np.abs(np.log(a)) + np.abs(gammaln(a))
                               + np.abs(gammaln(b)) + np.abs(gammaln(a + b)))
    r0 = (a + b) * x / (a + 1.0)
    worst = np.maximum(r0, x)
    rest = np.where(worst < 1.0, r0 / (1.0 - worst), np.inf)   # the bound after t_0
    return prefix, prefix_error, worst, rest


def log_betainc_upper(a, b, x):
    """An upper bound on log I_x(a, b) from the first term of DLMF 8.17.8's series, cheaply.

    I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) F with F <= 1 + r_0 / (1 - R_0) where R_0 =
    max(r_0, x) < 1 (``_log_series``: every term is positive and each ratio r_n is at most
    R_0), so log I <= prefix + log1p(rest).  Returned with the prefix's rounding bound added,
    8u |prefix| for the sums and 1 more, which covers the few roundings of rest and log1p
    many times over: a bound, not an estimate.  +inf (no bound) where R_0 >= 1, where a + b
    exceeds ``MAX_SHAPE`` or where a piece is not finite.  It costs the prefix alone (no
    ``betainc``, no sum), for callers that only need to know that a tail is negligible
    (``exit_probability.delta_union``).  1-d or broadcastable arrays, 0 < x < 1, a, b > 0.
    """
    a, b, x = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, x)))
    with np.errstate(all="ignore"):
        prefix, prefix_error, _, rest = _series_head(a, b, x, np.log(x))
        upper = prefix + prefix_error + np.log1p(rest) + 8.0 * U * np.abs(prefix) + 1.0
    return np.where(np.isnan(upper) | (a + b > MAX_SHAPE), np.inf, upper)


#: ``_log_series`` forms at most about this many terms at once (a block of rows x terms).
_BLOCK_ELEMENTS = 2 ** 16


def _series_block(a, b, x, term, total, n, width):
    """Terms n + 1 ... n + ``width`` of ``_log_series``'s sum for each row (1-d a, b, x).

    ``term``: t_n of each row, ``total``: its partial sum.  Returns (done, stop, term,
    total, rest): ``done`` where the remainder's bound fell to 2^-60 of the sum, at the
    column ``stop`` (the terms taken there: n + stop + 1); term, total and rest at that
    column, or at the last one where not done.  The product t_(n+j+1) = t_(n+j) r_(n+j)
    and the sum are accumulated along the row, left to right.
    """
    steps = n + np.arange(width + 1.0)                      # r_n ... r_(n + width)
    ratio = (a + b)[:, None] + steps
    ratio *= x[:, None]
    ratio /= (a + 1.0)[:, None] + steps
    terms = np.multiply.accumulate(np.column_stack([term, ratio[:, :-1]]), axis=1)[:, 1:]
    totals = np.add.accumulate(np.column_stack([total, terms]), axis=1)[:, 1:]
    ratio_next = ratio[:, 1:]
    worst = np.maximum(ratio_next, x[:, None])
    rest = np.where(worst < 1.0, terms * ratio_next / (1.0 - worst), np.inf)
    small = rest <= 2.0 ** -60 * totals
    done = small.any(axis=1)
    stop = np.where(done, small.argmax(axis=1), width - 1)
    rows = np.arange(a.size)
    return done, stop, terms[rows, stop], totals[rows, stop], rest[rows, stop]


#: The largest a + b for which ``log_betainc`` certifies a value (2^53, 100 times below
#: where scipy's betainc starts returning 0 for tails near 1/2; checked against mpmath in
#: tests/test_profile.py); above it the tail is unknown and the callers use I <= 1.
MAX_SHAPE = 2.0 ** 53


def betainc_budget(a, b, log_value):
    """A bound on the error of log(``scipy.special.betainc(a, b, x)``) against log I_x(a, b).

    ``BETAINC_REL`` + (``BETAINC_LOG_REL`` + 4u) |log I| (the measured budget and the
    logarithm's rounding) + ``BETAINC_SHAPE_REL`` sqrt(min(a, b)) (1 + sqrt(2 |log I|)) (large
    shapes, measured), plus 8u (a + b) where Boost's ibeta takes its binomial path: a and
    b whole numbers, the smaller below 40 and the larger below 2^31.  There it sums
    P(Binomial(a + b - 1, x) >= a) term by term in powers of x and y = 1 - x, and y is rounded
    once: each term x^i y^(a+b-1-i) carries up to (a + b) u of it, and the recurrence between
    terms a few u per step (2.2e-8 = 0.2 u (a + b) at a = 23, b = 9.8e8, x = 2.4e-8, against
    an exact binomial sum; tests/test_delta.py).  Broadcasts; ``log_value`` finite.
    """
    depth = np.abs(log_value)
    budget = (BETAINC_REL + (BETAINC_LOG_REL + 4.0 * U) * depth
              + BETAINC_SHAPE_REL * np.sqrt(np.minimum(a, b)) * (1.0 + np.sqrt(2.0 * depth)))
    binomial = np.floor(a) == a                     # usually nowhere: one test decides
    if np.any(binomial):
        binomial = (binomial & (np.floor(b) == b) & (np.minimum(a, b) < 40.0)
                    & (np.maximum(a, b) < 2.0 ** 31))
        budget = budget + np.where(binomial, 8.0 * U * (a + b), 0.0)
    return budget


def log_betainc(a, b, x, log_x=None, *, error=False):
    """log I_x(a, b), the lower tail of Beta(a, b) at x (0 < x < 1, a, b > 0), as a logarithm.

    ``scipy.special.betainc`` where its value is at least ``BETAINC_TRUSTED`` (error budget
    ``betainc_budget``); below it the series of DLMF 8.17.8 summed in logs (``_log_series``),
    so a tail of 1e-300 or 1e-320, or one far below the smallest double, keeps its relative
    accuracy instead of being lost in scipy's underflow.  ``log_x``: log x when the caller
    has it more accurately than from x (x itself may then underflow to 0, where the series'
    terms beyond the first are 0 and the prefix carries the value).  With ``error=True``
    also a bound on the absolute error of the logarithm (the errors of a, b and x excluded).
    Where a + b > ``MAX_SHAPE``: the value 0 with an infinite bound (nothing certified).
    Broadcasts.
    """
    a, b, x = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, x)))
    log_x = np.log(x) if log_x is None else np.broadcast_to(np.asarray(log_x, float), a.shape)
    with np.errstate(divide="ignore"):
        direct = betainc(a, b, x)
        value = np.log(direct)
    # (where scipy underflows to 0 its -inf keeps the budget alone; where it gives NaN, the
    # trivial bound I <= 1 with an infinite error stands until the series replaces it)
    bound = betainc_budget(a, b, np.where(np.isfinite(value), value, 0.0))
    bad = np.isnan(value)
    value[bad], bound[bad] = 0.0, np.inf
    low = ~(direct >= BETAINC_TRUSTED)
    # shapes above MAX_SHAPE: no certified value (scipy returns 0 near the mean from a + b
    # about 1e19, the series' log-gammas cancel beyond recovery): log 1 with no bound
    huge = a + b > MAX_SHAPE
    value[huge], bound[huge], low[huge] = 0.0, np.inf, False
    if low.any():
        series, series_error = _log_series(a[low], b[low], x[low], log_x[low])
        # no bound on the remainder, or shapes so large (k near the float maximum) that the
        # prefix overflows: scipy's value and budget, as before the series
        keep = ~(np.isfinite(series_error) & ~np.isnan(series))
        series[keep], series_error[keep] = value[low][keep], bound[low][keep]
        value[low], bound[low] = series, series_error
    value = np.minimum(value, 0.0)                 # a probability: cancellation cannot lift it
    if not error:
        return value if value.ndim else value[()]
    return (value, bound) if value.ndim else (value[()], bound[()])


def log_lower_tail(a, b, log_u, *, error=False):
    """log P(Beta(a, b) < u) given log u, also when u underflows: ``log_betainc`` at u.

    With ``error=True`` also a bound on the absolute error of the logarithm, given log u
    (``log_betainc``'s).  An error in u itself is not included: the profile evaluates both
    laws at the same u, at the optimal threshold, where it cancels to first order
    (``_pairs.pair_profile_at``).
    """
    with np.errstate(under="ignore"):
        u = np.exp(log_u)
    return log_betainc(a, b, u, log_u, error=error)



# --- safe-side roots ----------------------------------------------------------------------
#: Steps after which a bracket that has not converged is an error (never reached: every
#: four steps at least halve the bracket, and the callers' brackets reach their tolerance
#: within 60 halvings: k in [k0, 2 k0] to 1e-13, log k in a range of 1336 to 1e-15).
_MAX_STEPS = 400


def push_upper_end(f, lo, f_lo, hi, advance, *, limit=None):
    """For f increasing in x with f(lo) <= 0: move each bracket [lo, hi] up until f(hi) > 0.

    ``f(x, idx)`` as in ``root_on_safe_side``; ``lo``, ``f_lo`` (= f(lo)) and ``hi`` are
    float arrays, updated in place.  Where f(hi) <= 0, lo takes hi's place and value and
    hi becomes ``advance(hi)``; an hi beyond ``limit`` raises ValueError.  Returns
    (lo, f_lo, hi, f_hi), ready for ``root_on_safe_side``.
    """
    f_hi = np.empty(lo.shape)
    idx = np.arange(lo.size)
    while idx.size:
        f_hi[idx] = f(hi[idx], idx)
        idx = idx[f_hi[idx] <= 0]
        lo[idx], f_lo[idx] = hi[idx], f_hi[idx]
        hi[idx] = advance(hi[idx])
        if limit is not None and np.any(hi[idx] > limit):
            raise ValueError("no upper bracket for k")
    return lo, f_lo, hi, f_hi


def root_on_safe_side(f, a, b, fa, fb, *, rtol, xtol=0.0):
    """x with f(x) <= 0 next to the root of f, for every element, by the Illinois method.

    ``f(x, idx)`` evaluates the function at the points ``x`` for the elements ``idx``
    (an index array).  On entry fa = f(a) <= 0 < fb = f(b) for every element (a and b
    in either order).  Each step replaces one end by the regula falsi point, halving
    the other end's value when the same end moved twice (Illinois), and bisects
    instead when the last three steps did not halve the bracket or the point is not
    strictly inside it; so the bracket at least halves every four steps.  It stops, per
    element, when |b - a| <= xtol + rtol max(|a|, |b|) or f(a) = 0, and returns the a's:
    points where f was evaluated to be <= 0, within that distance of a sign change.
    """
    a, b, fa, fb = (np.array(v, dtype=float) for v in (a, b, fa, fb))
    zero = fa == 0                                   # f(a) evaluated to exactly 0: a root
    last = np.zeros(a.shape, dtype=np.int8)          # which end moved last: -1 a, +1 b
    widths = np.full((3,) + a.shape, np.inf)        # the bracket's width 1, 2, 3 steps ago

    def converged(i):
        return zero[i] | (np.abs(b[i] - a[i])
                          <= xtol + rtol * np.maximum(np.abs(a[i]), np.abs(b[i])))

    idx = np.flatnonzero(~converged(np.arange(a.size)))
    for _ in range(_MAX_STEPS):
        if idx.size == 0:
            return a
        A, B, FA, FB = a[idx], b[idx], fa[idx], fb[idx]
        width = np.abs(B - A)
        bisect = width > 0.5 * widths[2, idx]
        widths[:, idx] = np.stack([width, widths[0, idx], widths[1, idx]])
        with np.errstate(all="ignore"):
            x = B - FB * ((B - A) / (FB - FA))       # FB > 0 >= FA
        mid = A + 0.5 * (B - A)
        inside = np.isfinite(x) & (x > np.minimum(A, B)) & (x < np.maximum(A, B))
        x = np.where(bisect | ~inside, mid, x)
        fx = np.asarray(f(x, idx), dtype=float)
        low = fx <= 0
        lo_i, hi_i = idx[low], idx[~low]
        a[lo_i], fa[lo_i], zero[lo_i] = x[low], fx[low], fx[low] == 0
        b[hi_i], fb[hi_i] = x[~low], fx[~low]
        step = np.where(low, -1, 1).astype(np.int8)
        again = last[idx] == step                    # the same end moved twice: Illinois
        fb[idx[low & again]] *= 0.5                  # (fa, fb now weight the interpolation;
        fa[idx[~low & again]] *= 0.5                 # only their signs are f's)
        last[idx] = step
        idx = idx[~converged(idx)]
    raise RuntimeError("root_on_safe_side did not converge")   # pragma: no cover

"""The Dirichlet mechanism: Definition 5 and Algorithm 1.

A count vector C = C(D, rho) is released as one draw from Dir(k*C).  The draw is
made from independent gamma variates G_i ~ Gamma(k*C_i, 1) normalised to sum to
one, which is the textbook construction of the Dirichlet law.
Book: chapter "The Dirichlet mechanism".

Randomness: ``rng=None`` draws fresh entropy from the operating system, which is
what a real release must use.  A seed or ``numpy.random.Generator`` makes the
output reproducible; that is for teaching and testing only, since anyone who
knows the seed can undo the noise.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, xlogy

from . import _checks
from .simplex import check_assumption_3, in_simplex

#: The seed rule (None, an int >= 0, a SeedSequence or a Generator; never a bool).
_generator = _checks.generator


@_checks.public
def dirichlet_parameters(counts, k) -> np.ndarray:
    """The Dirichlet parameters k*C of Definition 5, checked.

    Every count must be positive: a zero count gives a zero Dirichlet
    parameter, for which the mechanism is undefined (and Assumption 3 fails).
    Every k*C_i must be at least the smallest normal double (about 2.2e-308):
    below it the parameter is subnormal or rounds to 0.
    Book: "The Dirichlet mechanism".

    Parameters
    ----------
    counts : array_like
        Records per category (last axis, at least 2 categories): finite whole numbers,
        each > 0; a stack ``(..., n)`` gives one parameter vector per count vector.
    k : float or array_like
        The Dirichlet parameter, > 0; an array gives one k per count vector (shape
        ``counts.shape[:-1]``, broadcasting).

    Returns
    -------
    numpy.ndarray
        k*C(D, rho), of the count array's (broadcast) shape.

    Raises
    ------
    ValueError
        If ``counts`` is not a count array (negative, fractional, not finite, fewer than
        2 categories, summing to 0) or holds a zero count; if some k is not positive; if
        k and counts do not broadcast; or if some k*C_i is below the smallest normal
        double.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.dirichlet_parameters([2, 1, 1], 10.0).tolist()
    [5.0, 2.5, 2.5]
    """
    return _parameters(counts, k)


def _parameters(counts, k) -> np.ndarray:
    """The body of ``dirichlet_parameters`` (for callers inside the package boundary)."""
    alpha = _lean_parameters(counts, k)
    if alpha is not None:
        return alpha
    arr = _checks.counts_array("counts", counts)
    k_arr = _checks.positive("k", k)
    zero = arr == 0
    if np.any(zero):
        idx = tuple(int(i) for i in np.argwhere(zero)[0])
        raise ValueError(
            f"counts{list(idx)}=0: the Dirichlet mechanism needs every count > 0 "
            "(a zero count gives parameter k*C_i = 0; Assumption 3)")
    C = _checks.proportions(arr)
    if k_arr.ndim > 0:
        k_arr = k_arr[..., None]
    try:
        alpha = k_arr * C
    except ValueError as err:
        raise ValueError(f"k has shape {np.shape(k)} and counts {arr.shape}: they do not "
                         "broadcast (one k per count vector)") from err
    small = alpha < _checks.TINY
    if np.any(small):
        kb = _checks.first_bad(np.broadcast_to(k_arr, alpha.shape), small)
        raise ValueError(f"k={kb!r} gives a Dirichlet parameter k*C_i="
                         f"{_checks.first_bad(alpha, small)!r} below the smallest normal double "
                         f"{_checks.TINY:.3g}: k is too small to compute with")
    return alpha



def _lean_parameters(counts, k):
    """k*C for the usual input, checked in a few passes; None for anything else.

    Taken: one float64 vector of finite, positive whole counts (2 to ``MAX_ELEMENTS`` of
    them, a finite total) and one finite k > 0 (a float, or an int below 2**63), with
    every k*C_i at least the smallest normal double.  Then the result is the full path's, bit for bit
    (the same division by the total and product by k).  None when anything fails or the
    input is of another kind: ``_parameters`` then runs the full checks, which raise the
    message naming the parameter, the value and the rule (or accept).
    """
    if not (type(counts) is np.ndarray and counts.dtype == np.float64 and counts.ndim == 1
            and 2 <= counts.size <= _checks.MAX_ELEMENTS
            and (type(k) in (float, np.float64) or type(k) is int and k < 2**63)
            and 0 < k < math.inf):
        return None
    with np.errstate(over="ignore"):
        total = counts.sum()
    if not (counts.min() > 0 and total < math.inf and (np.rint(counts) == counts).all()):
        return None                     # (a finite total of positive entries: all finite)
    alpha = float(k) * (counts / total)
    return alpha if alpha.min() >= _checks.TINY else None


@_checks.public
def privatize(counts, k, *, eta=None, rng=None, size=None) -> np.ndarray:
    """Algorithm 1: release C(D, rho) privately as a draw from Dir(k * C(D, rho)).

    Book: "The Dirichlet mechanism" (Definition 5, Algorithm 1).

    Parameters
    ----------
    counts : array of shape (n,)
        Records per category (whole numbers, each > 0).
    k : float
        The Dirichlet parameter of Definition 5.  Smaller k: more noise, smaller
        epsilon (eq. (6)).  The privacy guarantee of Theorem 1 needs k >= 3/(2*eta).
    eta : float, optional
        If given, Assumptions 3 and 4 are checked (every count >= eta*N and
        k >= 3/(2*eta)) and a violation raises ``ValueError``.
    rng : None, int, SeedSequence or numpy.random.Generator
        ``None`` (the default) uses fresh OS entropy.  Seeded output is for
        teaching and testing only.  A bool is an error.
    size : int or tuple of ints, optional
        Number of independent releases; the result then has shape ``size + (n,)``.

    Returns
    -------
    numpy.ndarray
        Private count vector(s) in the open unit simplex: every entry > 0 (see
        ``sample_dirichlet``), sums 1.

    Raises
    ------
    ValueError
        If ``counts`` is not one vector of positive whole numbers (at least 2
        categories); if k is not one positive number or some k*C_i is below the smallest
        normal double; with ``eta``, if eta is not in (0, 1/4), a count is below eta*N
        (Assumption 3) or k < 3/(2*eta) (Assumption 4); if ``size`` is negative or asks
        for too many numbers; or if an int seed is negative.
    TypeError
        If an argument is a bool, text or not a number, or ``rng`` is not None, an int,
        a SeedSequence or a Generator.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> x = dm.privatize([30, 50, 20], 20.0, eta=0.2, rng=0, size=4)
    >>> x.shape, bool((x > 0).all()), bool(abs(x.sum(axis=-1) - 1).max() < 1e-12)
    ((4, 3), True, True)
    """
    alpha = _parameters(counts, k)
    if alpha.ndim != 1:
        raise ValueError(f"counts has shape {np.shape(counts)} and k shape {np.shape(k)}: "
                         "privatize takes one count vector and a scalar k "
                         "(use privatize_chain for matrices)")
    if eta is not None:
        _checks.scalar("eta", eta)
        check_assumption_3(counts, eta)
        _checks.k_meets_assumption_4(np.asarray(float(k)), _checks.eta_ok(eta))
    shape = _checks.size_shape(size, lowest=0, per_draw=alpha.size)
    gen = _generator(rng)
    return sample_dirichlet(alpha, shape, gen)


def sample_dirichlet(alpha: np.ndarray, shape: tuple, gen: np.random.Generator,
                     *, uniforms: np.random.Generator | None = None,
                     out: np.ndarray | None = None, in_logs: bool | None = None,
                     masks: tuple | None = None) -> np.ndarray:
    """Draws of Dir(alpha) (Definition 5) of shape ``shape + alpha.shape``, from gamma variates.

    X = G / sum(G) with independent G_i ~ Gamma(alpha_i, 1), along the last axis.
    Entries with alpha_i = 0 are outside the support: they are exactly 0 (Algorithm 2
    uses this for transitions outside the public support).  Every other entry is > 0.

    * Every positive alpha_i >= 1 (always so under Assumptions 3-4, where
      k C_i >= 3/2): G directly (``gen.standard_gamma``, one call, as numpy would); if a
      sum of G overflows (alpha near 1e308) G is first divided by its largest entry.
    * Some alpha_i < 1: for those entries only, G(a) = G(a + 1) U^(1/a) with U uniform on
      (0, 1] (the same law; Gamma(a + 1) is drawn in the same ``standard_gamma`` call as the
      other entries, and U^(1/a) = exp(-E/a) with E = -log U a standard exponential from
      ``uniforms``, default ``gen``).  In a row (last axis) that also has an entry >= 1,
      the row sum is at least that entry's G, so the draw is formed in linear space, and
      an entry whose G(a) falls below the smallest normal double (2.2e-308) is recomputed
      in logs, exp(log G(a + 1) - E/a - log(row sum)), keeping its relative accuracy.  A
      row whose supported entries are all < 1 can have every G underflow (0/0: 140 of 200
      seeds for k = 1e-3 and two equal counts), so it is drawn in logs:
      log G = log G(a + 1) - exp(log E - log a), normalised by the largest log.  When even
      that exponential overflows (a near 1e-308) the draw is the vertex of the smallest
      log E - log a, which is then the largest G by more than 700 orders of magnitude.
      When every supported entry of ``alpha`` is < 1 the whole draw takes that path, with
      E = -log1p(-U) from ``uniforms.random`` (the draws of earlier versions, seed for seed).
      ``in_logs`` (default: whether every supported alpha_i is < 1) says whether the whole
      draw takes that last path: a caller drawing a large alpha in slices decides it once for
      the whole array, so the slices consume the streams exactly as one call would.

    Whatever the draw, the result is the Dirichlet draw rounded to doubles (a few ulps),
    except that a supported entry whose value is below the smallest positive double
    (about 4.9e-324) is rounded up to it instead of down to 0: the Dirichlet lives
    on the open simplex and an exact 0 would look like a transition outside the
    support.  This is deterministic post-processing of the draw, so it costs no
    privacy.  The outcome of a call never depends on the draw: no draw raises.
    ``out``, if given, is C-contiguous with the result's shape; for one draw it may be
    ``alpha``'s own memory (``alpha[None]``), which the draw then overwrites (every
    parameter it needs is read before its entries are overwritten: ``_standard_gamma``).
    ``masks``, if given, is (alpha > 0, alpha >= 1), formed by a caller that draws from the
    same ``alpha`` more than once or has them already (``chain._streams``).
    Book: "The Dirichlet mechanism" (Algorithm 1) and "Private transition matrices"
    (Algorithm 2).
    """
    full = shape + alpha.shape
    if out is None:
        out = np.empty(full)
    uniforms = gen if uniforms is None else uniforms
    # one pass answers the usual case (every alpha_i >= 1, hence supported); else the masks
    every = masks is None and alpha.size > 0 and alpha.min() >= 1
    support, supported = True, alpha.size
    if not every:
        # big: the supported alpha_i >= 1
        support, big = (alpha > 0, alpha >= 1) if masks is None else masks
        n_big, supported = np.count_nonzero(big), np.count_nonzero(support)
        every = n_big == supported
        if in_logs is None:
            in_logs = n_big == 0
    # [book:sample_dirichlet]
    if every:                                       # every supported alpha_i >= 1
        _standard_gamma(gen, alpha, None, full, out)    # G_i ~ Gamma(alpha_i, 1)
        with np.errstate(over="ignore"):
            sums = _row_sums(out)
        if not np.all(np.isfinite(sums)):                   # alpha near 1e308
            out /= out.max(axis=-1, keepdims=True)
            sums = _row_sums(out)
        _per_row(np.divide, out, sums)                  # G_i / sum_j G_j
    elif not in_logs:
        _sample_mixed(alpha, full, gen, uniforms, out, support, big)
    else:
        a = np.where(support, alpha, 1.0)
        with np.errstate(divide="ignore", over="ignore"):
            log_g = np.log(gen.standard_gamma(a + 1, size=full, out=out), out=out)
            score = _log_exponentials(uniforms.random(full))    # log(-log1p(-U))
            _per_column(np.subtract, score, np.log(a))
            log_g -= np.exp(score)
        if not support.all():
            log_g[..., ~support] = -np.inf
            score = np.where(support, score, np.inf)
        _normalise_logs(log_g, score, out)
        _per_row(np.divide, out, _row_sums(out))
    # [/book:sample_dirichlet]
    # entries outside the support are exactly 0 and all others > 0 unless one underflowed:
    # one pass (the minimum, or a count of the nonzero entries) finds out whether the floor
    # has work to do (counted as booleans: numpy counts a float array's nonzero entries one
    # by one, about 3x slower than comparing and counting the comparison's bytes)
    if supported == alpha.size:
        if out.size and not out.min() > 0:
            np.maximum(out, _SMALLEST, out=out)
    elif np.count_nonzero(out != 0) < supported * (out.size // alpha.size):
        np.maximum(out, np.where(support, _SMALLEST, 0.0), out=out)
    return out


#: Entries per slice of gamma variates when a draw overwrites its own parameters (64 KiB of
#: parameters copied at a time).
_OVERWRITE_SLICE = 8192


def _standard_gamma(gen, alpha, shift, full, out):
    """``gen.standard_gamma(alpha + shift, size=full, out=out)`` (``shift``: None or a mask).

    When ``out`` is ``alpha``'s own memory (one draw of ``privatize_chain`` written over its
    parameters, which nothing needs afterwards: one array of the matrix's size per call
    instead of three), the variates are drawn in slices of ``_OVERWRITE_SLICE`` entries, in
    order, each from a copy of its parameters made before the slice is overwritten: the
    stream is consumed entry by entry as by one call, so the draw is the same, bit for bit.
    """
    if not np.may_share_memory(alpha, out):
        return gen.standard_gamma(alpha if shift is None else alpha + shift, size=full, out=out)
    params, flat = alpha.reshape(-1), out.reshape(-1)     # one draw: the same entries
    masks = None if shift is None else shift.reshape(-1)
    for s in range(0, flat.size, _OVERWRITE_SLICE):
        part = slice(s, s + _OVERWRITE_SLICE)
        a = params[part].copy() if masks is None else params[part] + masks[part]
        gen.standard_gamma(a, out=flat[part])
    return out


def _row_sums(x):
    """``x.sum(axis=-1, keepdims=True)``, bit for bit, faster for short rows.

    Below 8 entries numpy adds a row's entries one after the other, left to right (its
    pairwise summation starts at 8), which is what adding the columns in turn does, one
    vectorised pass per column instead of a reduction per row.
    """
    width = x.shape[-1]
    if width >= 8 or x.ndim < 2:
        return x.sum(axis=-1, keepdims=True)
    total = x[..., 0] + x[..., 1]
    for j in range(2, width):
        total += x[..., j]
    return total[..., None]


def _row_max(x):
    """``x.max(axis=-1, keepdims=True)``, faster for short rows (column by column; a
    maximum is exact, and a NaN propagates either way)."""
    width = x.shape[-1]
    if width >= 8 or x.ndim < 2:
        return x.max(axis=-1, keepdims=True)
    top = np.maximum(x[..., 0], x[..., 1])
    for j in range(2, width):
        np.maximum(top, x[..., j], out=top)
    return top[..., None]


def _per_row(op, x, v):
    """``op(x, v, out=x)`` for ``v`` of shape ``x.shape[:-1] + (1,)`` (one value per row).

    Short rows (fewer than 8 entries) go column by column: the same numbers (an elementwise
    operation), without numpy's broadcasting loop over rows of a few entries, which costs
    more than the arithmetic.
    """
    if x.shape[-1] >= 8 or x.ndim < 2:
        return op(x, v, out=x)
    v = v[..., 0]
    for j in range(x.shape[-1]):
        op(x[..., j], v, out=x[..., j])
    return x


def _per_column(op, x, a):
    """``op(x, a, out=x)`` for ``a`` of shape ``x.shape[-a.ndim:]``, short rows column by
    column (as ``_per_row``)."""
    if x.shape[-1] >= 8 or x.ndim < 2:
        return op(x, a, out=x)
    for j in range(x.shape[-1]):
        op(x[..., j], a[..., j], out=x[..., j])
    return x


def _log_exponentials(u):
    """log(-log1p(-u)), in place: the logarithms of the standard exponentials -log(1 - U)
    made from uniforms U on [0, 1) (the same numbers as the expression, no temporaries)."""
    np.negative(u, out=u)
    np.log1p(u, out=u)
    np.negative(u, out=u)
    return np.log(u, out=u)


def _normalise_logs(log_g, score, out):
    """out = exp(log_g - row max) (``log_g`` is overwritten); a row whose every log is -inf
    (every exp(score) overflowed) becomes the vertex of its smallest ``score`` (inf outside
    the support)."""
    top = _row_max(log_g)
    lost = ~np.isfinite(top[..., 0])
    if np.any(lost):               # every exp(score) overflowed: the vertex of min score
        s = score[lost]
        log_g[lost] = np.where(s == s.min(axis=-1, keepdims=True), 0.0, -np.inf)
        top[lost] = 0.0
    np.exp(_per_row(np.subtract, log_g, top), out=out)


def _sample_mixed(alpha, full, gen, uniforms, out, support, big):
    """``sample_dirichlet`` when some supported alpha_i are >= 1 and some < 1 (its docstring).

    ``support`` and ``big`` are the masks alpha > 0 and alpha >= 1.  Works on ``out``
    viewed as (draws, entries): the entries with alpha_i < 1 are gathered once per call,
    so the extra work is proportional to their number only.
    """
    width = alpha.shape[-1]
    small = support ^ big                                # 0 < alpha_i < 1 (big <= support)
    cols = np.flatnonzero(small)                         # the small entries within a draw
    a = alpha.take(cols)                                 # (before out may overwrite alpha)
    # a + 1 where small, a elsewhere (adding the mask's 0 or 1: faster than np.where)
    _standard_gamma(gen, alpha, small, full, out)
    draws = out.reshape(-1, alpha.size)                  # a view: one line per draw
    e = uniforms.standard_exponential((draws.shape[0], cols.size))     # E = -log U
    lonely_row = ~big.reshape(-1, width).any(axis=1)     # rows with no entry >= 1
    rows_view = out.reshape(draws.shape[0], -1, width)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        g1 = np.take(draws, cols, axis=1)                # G(a + 1)
        near = cols
        if lonely_row.any():                             # those rows in logs, whole
            lonely = lonely_row[cols // width]
            far = cols[lonely]
            score = np.log(e[:, lonely]) - np.log(a[lonely])
            log_g = np.log(g1[:, lonely]) - np.exp(score)
            which = np.flatnonzero(lonely_row)
            at = (np.cumsum(lonely_row) - 1)[far // width], far % width
            block = np.full((draws.shape[0], which.size, width), -np.inf)
            block[:, at[0], at[1]] = log_g
            scores = np.full(block.shape, np.inf)
            scores[:, at[0], at[1]] = score
            _normalise_logs(block, scores, block)
            rows_view[:, which, :] = block
            keep = ~lonely
            near, e, a, g1 = cols[keep], e[:, keep], a[keep], g1[:, keep]
        e /= a                                           # E/a >= 0 (inf if a is tiny)
        lin = np.exp(np.negative(e, out=e))              # U^(1/a); e now holds log(U)/a
        lin *= g1                                        # G(a) = G(a + 1) U^(1/a)
        draws[:, near] = lin
    sums = _row_sums(rows_view)
    _per_row(np.divide, rows_view, sums)
    low = lin < _checks.TINY                             # below the normal range: in logs
    if low.any():
        d, j = np.nonzero(low)
        with np.errstate(divide="ignore", under="ignore"):
            row_sums = sums.reshape(draws.shape[0], -1)[d, near[j] // width]
            draws[d, near[j]] = np.exp(np.log(g1[d, j]) + e[d, j] - np.log(row_sums))
    return out


#: The smallest positive double: supported entries never round below it.
_SMALLEST = float(np.nextafter(0.0, 1.0))


@_checks.public(finite=False)
def log_density(x, counts, k) -> np.ndarray:
    """Log of the Dirichlet density of Definition 5 at x (one point or a stack).

    log f(x) = sum_i (k C_i - 1) log x_i - log B(k C).  On the boundary of the
    simplex (some x_i = 0) the density is 0 or unbounded, and the result is -inf
    or +inf accordingly: the only non-finite values this function returns.
    Book: "The Dirichlet mechanism" (the privacy loss is a difference of two of these).

    Parameters
    ----------
    x : array_like
        A point of the unit simplex (Definition 1: entries >= 0 summing to 1, to 1e-9),
        or a stack ``(..., n)`` of them.
    counts : array_like
        Records per category: finite whole numbers, each > 0, n of them (or a stack).
    k : float or array_like
        The Dirichlet parameter, > 0.

    Returns
    -------
    float or numpy.ndarray
        log f(x), one value per point (a numpy scalar for one point).

    Raises
    ------
    ValueError
        If ``counts`` or ``k`` fail ``dirichlet_parameters``; if x has another number of
        entries than counts or is not in the unit simplex; if log B(k C) overflows; or if
        x lies on a face where the density has no value (0 along one coordinate,
        infinite along another).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(float(dm.log_density([0.3, 0.5, 0.2], [30, 50, 20], 20.0)), 4)
    2.8723
    """
    alpha = dirichlet_parameters(counts, k)
    x = _checks.array("x", x)
    if x.shape[-1] != alpha.shape[-1]:
        raise ValueError(f"x has {x.shape[-1]} entries per point but counts has {alpha.shape[-1]}")
    if not np.all(in_simplex(x, atol=1e-9)):
        bad = np.atleast_2d(x)[~np.atleast_1d(in_simplex(x, atol=1e-9))][0]
        raise ValueError(f"x={bad.tolist()} is not in the unit simplex (Definition 1): entries "
                         "must be >= 0 and sum to 1; the density is defined only there")
    # [book:log_density]
    log_b = gammaln(alpha).sum(axis=-1) - gammaln(alpha.sum(axis=-1))
    if not np.all(np.isfinite(log_b)):
        raise ValueError(f"k={_checks.show(k)}: log B(k C) overflows (k*C_i near 1e308); "
                         "the density cannot be evaluated in double precision")
    with np.errstate(divide="ignore"):
        terms = xlogy(alpha - 1, x)
    both = np.any(terms == np.inf, axis=-1) & np.any(terms == -np.inf, axis=-1)
    if np.any(both):
        bad = np.atleast_2d(x)[np.atleast_1d(both)][0]
        raise ValueError(f"x={bad.tolist()} lies on a face of the simplex where the density "
                         "tends to 0 along one coordinate and to infinity along another: "
                         "it has no value there")
    return np.sum(terms, axis=-1) - log_b

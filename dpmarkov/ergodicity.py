"""Ergodicity coefficients and the convergence bounds of Theorems 4-5 (Section 5).

Definition 7's coefficient tau_inf (exactly as printed) and Dobrushin's coefficient, then
the right-hand sides of Theorem 4 (how far the private chain's stationary distribution can
move) and Theorem 5 (how much its ergodicity coefficient can change), in the book's
reading of the statements and corrected.  Book: chapters "Stationary distribution and
convergence" (the coefficients) and "Theorems 4 and 5: how far privacy moves the stationary
distribution" (the bounds, the book's reading of them and the corrected ones).
"""
from __future__ import annotations

import numpy as np

from . import _checks
from .chain import check_counts, row_kl_bounds
from .stationary import fundamental_matrix, stationary_distribution


@_checks.public
def ergodicity_coefficient(G) -> np.ndarray:
    """tau_inf(G) of Definition 7, exactly as printed: max ||G^T z||_inf over ||z||_inf = 1, z^T 1 = 0.

    Closed form (book, "Stationary distribution and convergence", proved there
    and checked against vertex enumeration): the feasible set
    {z in [-1, 1]^n, sum z = 0} is a polytope whose vertices have floor(n/2)
    entries +1, floor(n/2) entries -1 (and one 0 if n is odd), and
    ||G^T z||_inf = max_j |sum_i G_ij z_i| is convex, so

        tau_inf(G) = max_j [ (sum of the floor(n/2) largest entries of column j)
                            - (sum of the floor(n/2) smallest entries of column j) ].

    This has the form of Ipsen and Selee's p-norm coefficients :cite:p:`ipsen2011`
    with p = infinity.  It is NOT the Dobrushin coefficient (see
    ``dobrushin_coefficient``): they agree for n <= 3, differ for n >= 4 (either
    can be the larger), and for n >= 4 tau_inf can exceed 1 (up to floor(n/2)).  Works for
    any real square matrix (a seminorm on matrices), and for stacks (..., n, n).

    Parameters
    ----------
    G : array_like, shape (..., n, n)
        A real square matrix, or a stack of them; finite entries, n >= 1.

    Returns
    -------
    float or numpy.ndarray
        tau_inf(G) (a float for one matrix, an array of the stack's leading shape).

    Raises
    ------
    ValueError
        If ``G`` is not a stack of square matrices, holds NaN or an infinity, or its
        entries are so large that tau_inf(G) overflows double precision.
    TypeError
        If an entry is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.ergodicity_coefficient([[0.5, 0.5], [0.2, 0.8]]), 4)
    0.3
    """
    arr = _checks.square_matrix("G", G)
    # [book:ergodicity_coefficient]
    n = arr.shape[-1]
    h = n // 2
    col = np.sort(arr, axis=-2)
    with np.errstate(over="ignore", invalid="ignore"):
        spread = col[..., n - h:, :].sum(axis=-2) - col[..., :h, :].sum(axis=-2)
    out = spread.max(axis=-1)
    # [/book:ergodicity_coefficient]
    if not np.all(np.isfinite(out)):
        raise ValueError(f"G has entries up to {np.abs(arr).max():.3g}: tau_inf(G) overflows "
                         "double precision (rescale G; tau_inf(c G) = |c| tau_inf(G))")
    return out if out.ndim else float(out)


@_checks.public
def dobrushin_coefficient(P) -> np.ndarray:
    """Dobrushin's coefficient delta(P) = (1/2) max_{i,l} sum_j |P_ij - P_lj|.

    Equals tau_1(P) = max ||P^T z||_1 over ||z||_1 = 1, z^T 1 = 0 (Seneta;
    Ipsen and Selee's 1-norm coefficient :cite:p:`ipsen2011`), lies in [0, 1] for a
    stochastic P (also in floating point: rows within 1e-9 of summing to 1 and entries
    >= 0 never give more than 1), and bounds |lambda_2|.  It is the coefficient the literature
    usually calls *the* ergodicity coefficient; Definition 7 is a different one
    (book, "Stationary distribution and convergence").  Stacks allowed.  Each unordered
    pair of rows is compared once (l > i): |a - b| = |b - a| exactly, so the result is
    the same as over all ordered pairs, bit for bit.

    Parameters
    ----------
    P : array_like, shape (..., n, n)
        A square matrix (usually stochastic, Section 2.1), or a stack of them;
        finite entries, n >= 1.

    Returns
    -------
    float or numpy.ndarray
        delta(P) (a float for one matrix, an array of the stack's leading shape); in
        [0, 1] when ``P`` is stochastic.

    Raises
    ------
    ValueError
        If ``P`` is not a stack of square matrices or holds NaN or an infinity.
    TypeError
        If an entry is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.dobrushin_coefficient([[0.5, 0.5], [0.2, 0.8]]), 4)
    0.3
    """
    arr = _checks.square_matrix("P", P)
    n = arr.shape[-1]
    best = np.zeros(arr.shape[:-2])
    for i in range(n - 1):
        d = np.abs(arr[..., i + 1:, :] - arr[..., i, None, :]).sum(axis=-1).max(axis=-1)
        best = np.maximum(best, d)
    out = 0.5 * best
    # a stochastic P (up to the rounding of its rows) has delta(P) <= 1; the sum of
    # |P_ij - P_lj| can round above 2 when the two rows have disjoint supports
    stochastic = (np.all(arr >= 0, axis=(-2, -1))
                  & np.all(np.abs(arr.sum(axis=-1) - 1) <= 1e-9, axis=-1))
    out = np.where(stochastic, np.minimum(out, 1.0), out)
    return out if out.ndim else float(out)


def _chain_parts(counts, k):
    arr = check_counts(counts)
    P = arr / arr.sum(axis=1, keepdims=True)
    pi = stationary_distribution(P)
    return P, pi, row_kl_bounds(arr, k)


@_checks.public
def stationary_tv_bound(counts, k, *, z_norm: str = "1") -> float:
    """Theorem 4's right-hand side, book's reading: (1/2) ||Z||_1 sqrt(2 L), L = sum_i pi(i) L_i.

    The book's reading (book, "Theorems 4 and 5: how far privacy moves the stationary
    distribution", note "How this book reads Theorems 4 and 5"), not the paper's print:
    Z = (I - P + 1 pi^T)^{-1}, the fundamental matrix with a plus sign where the paper
    prints a minus (see ``fundamental_matrix``), and L_i = ``row_kl_bounds``, Corollary 1
    with the row's n_i observed categories where the paper has n (the same for fully
    observed rows); pi is the stationary distribution of P = counts / N_i.
    ``z_norm="1"``: ||Z||_1 read as the induced 1-norm (largest absolute column
    sum), the usual meaning; ``z_norm="inf"``: largest absolute row sum, the norm
    the perturbation identity pi~^T - pi^T = pi~^T (P~ - P) Z actually needs.
    Whether Theorem 4's bound holds is open (claims registry ``thm-4``: supported
    numerically, not proved); the book proves a corrected bound,
    ``stationary_tv_bound_corrected``.

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``);
        the chain P = counts / N_i must be irreducible (Assumption 5).
    k : float or array_like, shape (n,)
        The Dirichlet parameter of Algorithm 2, > 0: one for all rows or one per row.
    z_norm : {"1", "inf"}, optional
        Which induced norm of Z to use (default ``"1"``, the usual reading).

    Returns
    -------
    float
        Theorem 4's bound on E||pi - pi~||_TV in the book's reading.

    Raises
    ------
    ValueError
        If ``z_norm`` is not "1" or "inf", if ``counts`` fails ``check_counts`` (not
        square, negative, not whole, an all-zero row), if ``k`` is not positive or has
        the wrong shape, or if a parameter k_i C_ij falls below the smallest normal
        double, or if P is reducible (Assumption 5; ``stationary_distribution``).
    TypeError
        If an entry of ``counts`` or ``k`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.stationary_tv_bound([[30, 10], [5, 55]], 100.0), 4)
    0.1565
    """
    _checks.choice("z_norm", z_norm, ("1", "inf"))
    P, pi, Lrow = _chain_parts(counts, k)
    Z = fundamental_matrix(P)
    axis = 0 if z_norm == "1" else 1
    znorm = np.abs(Z).sum(axis=axis).max()
    return float(0.5 * znorm * np.sqrt(2 * pi @ Lrow))


@_checks.public
def ergodicity_bound(counts, k) -> float:
    """Theorem 5's right-hand side: sqrt(2 L), L = sum_i pi(i) L_i (as in ``stationary_tv_bound``).

    L_i uses the row's n_i observed categories (the book's reading; the paper has n, the
    same for fully observed rows).

    The theorem claims E|tau_inf(P) - tau_inf(P~)| <= sqrt(2 L).  The book shows
    that this can fail (for Definition 7's tau_inf and for Dobrushin's
    coefficient) and gives ``ergodicity_bound_corrected``.

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``);
        the chain P = counts / N_i must be irreducible (Assumption 5).
    k : float or array_like, shape (n,)
        The Dirichlet parameter of Algorithm 2, > 0: one for all rows or one per row.

    Returns
    -------
    float
        sqrt(2 L), the right-hand side of Theorem 5 (with n_i in L_i).

    Raises
    ------
    ValueError
        If ``counts`` fails ``check_counts`` (not square, negative, not whole, an
        all-zero row), if ``k`` is not positive or has the wrong shape, or if a
        parameter k_i C_ij falls below the smallest normal double,
        or if P is reducible (Assumption 5; ``stationary_distribution``).
    TypeError
        If an entry of ``counts`` or ``k`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.ergodicity_bound([[30, 10], [5, 55]], 100.0), 4)
    0.1044
    """
    _, pi, Lrow = _chain_parts(counts, k)
    return float(np.sqrt(2 * pi @ Lrow))


@_checks.public
def stationary_tv_bound_corrected(counts, k) -> float:
    """A bound on E||pi - pi~||_TV that holds: (1/2) tau_1(Z) sqrt(2 sum_i L_i).

    Proof (book, "Theorems 4 and 5: how far privacy moves the stationary distribution",
    Proposition ``prop-corrected-bounds``): with E = P~ - P,
    pi~^T - pi^T = pi~^T E Z exactly; pi~^T E sums to 0, so
    ||pi~^T E Z||_1 <= tau_1(Z) ||pi~^T E||_1 (tau_1 = ``dobrushin_coefficient``,
    <= the largest absolute row sum of Z); ||pi~^T E||_1 <= max_i ||E_i||_1 since
    pi~ is a probability vector; and E max_i ||E_i||_1 <= sqrt(sum_i E||E_i||_1^2)
    <= sqrt(2 sum_i L_i) by Pinsker and Corollary 1.  Compared with Theorem 4 the
    stationary weights pi(i) are gone: the identity weights rows by the *private*
    pi~, which the data do not control.  (TV is also at most 1.)

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``);
        the chain P = counts / N_i must be irreducible (Assumption 5).
    k : float or array_like, shape (n,)
        The Dirichlet parameter of Algorithm 2, > 0: one for all rows or one per row.

    Returns
    -------
    float
        A bound on E||pi - pi~||_TV that holds (ours, correcting Theorem 4).

    Raises
    ------
    ValueError
        If ``counts`` fails ``check_counts`` (not square, negative, not whole, an
        all-zero row), if ``k`` is not positive or has the wrong shape, or if a
        parameter k_i C_ij falls below the smallest normal double,
        or if P is reducible (Assumption 5; ``stationary_distribution``).
    TypeError
        If an entry of ``counts`` or ``k`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.stationary_tv_bound_corrected([[30, 10], [5, 55]], 100.0), 4)
    0.2206
    """
    # [book:stationary_tv_bound_corrected]
    P, _, Lrow = _chain_parts(counts, k)
    tau1 = dobrushin_coefficient(fundamental_matrix(P))
    return float(0.5 * tau1 * np.sqrt(2 * Lrow.sum()))


@_checks.public
def ergodicity_bound_corrected(counts, k, *, coefficient: str = "definition-7") -> float:
    """Bounds on E|tau(P) - tau(P~)| that hold (Theorem 5 corrected).

    ``coefficient="definition-7"``: for tau_inf of Definition 7,
    (1/2) sum_i sqrt(2 L_i), because |tau_inf(P) - tau_inf(P~)| <= tau_inf(E)
    <= max_j sum_i |E_ij| <= (1/2) sum_i ||E_i||_1 (each row of E sums to 0) and
    E||E_i||_1 <= sqrt(2 L_i).  It grows like n; so does the truth (the book
    shows a chain where E|dtau_inf| grows linearly in n).
    ``coefficient="dobrushin"``: for Dobrushin's coefficient, sqrt(2 sum_i L_i),
    because |delta(P) - delta(P~)| <= delta(E) <= max_i ||E_i||_1.
    L_i are the per-row Corollary 1 bounds (``row_kl_bounds``).

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).
    k : float or array_like, shape (n,)
        The Dirichlet parameter of Algorithm 2, > 0: one for all rows or one per row.
    coefficient : {"definition-7", "dobrushin"}, optional
        Which ergodicity coefficient the bound is for (default Definition 7's tau_inf).

    Returns
    -------
    float
        A bound on E|tau(P) - tau(P~)| that holds (ours, correcting Theorem 5).

    Raises
    ------
    ValueError
        If ``coefficient`` is not one of the two names, if ``counts`` fails
        ``check_counts`` (not square, negative, not whole, an all-zero row), if ``k`` is
        not positive or has the wrong shape, or if a parameter k_i C_ij falls below the
        smallest normal double.
    TypeError
        If an entry of ``counts`` or ``k`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.ergodicity_bound_corrected([[30, 10], [5, 55]], 100.0), 4)
    0.104
    """
    _checks.choice("coefficient", coefficient, ("definition-7", "dobrushin"))
    Lrow = row_kl_bounds(counts, k)
    if coefficient == "dobrushin":
        return float(np.sqrt(2 * Lrow.sum()))
    return float(0.5 * np.sqrt(2 * Lrow).sum())

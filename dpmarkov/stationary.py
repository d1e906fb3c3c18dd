"""The stationary distribution of a Markov chain and its fundamental matrix (Section 5).

pi^T = pi^T P for an irreducible stochastic P (Assumption 5), by the Grassmann-Taksar-Heyman
algorithm :cite:p:`grassmann1985`: Gaussian elimination that only adds, multiplies and divides
non-negative numbers, so every component of pi keeps a small relative error, blocked so that
most of the work is one BLAS matrix product per panel of states, on one matrix or a stack.
The fundamental matrix Z = (I - P + 1 pi^T)^{-1} enters Theorem 4.  Book: chapter
"Stationary distribution and convergence" (the algorithm, its accuracy on nearly
decomposable chains, and the check against the textbook order).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dgemm, dger, dtrsm

from . import _checks
from .chain import BATCH_BYTES, ROW_SUM_ATOL, check_irreducible, check_stochastic


#: GTH eliminates the states of one matrix in panels of this many (``_gth``; 64
#: for n >= 512), ...
GTH_PANEL = 24
#: ... those of a stack in panels of this many, ...
GTH_PANEL_STACK = 32
#: ... on at most this many matrices at a time (and at most ``BATCH_BYTES`` of them).
GTH_BATCH = 128
#: For n >= ``GTH_COMPACT_FROM`` the kept block is moved to the front of the memory
#: when it shrinks to ``GTH_COMPACT`` of its rows' length (``_gth_blocked``).
GTH_COMPACT, GTH_COMPACT_FROM = 0.8, 512


def gth_textbook(P) -> np.ndarray:
    """Textbook GTH (Grassmann-Taksar-Heyman), one state at a time, on a stack (b, n, n).

    The reference the blocked ``_gth`` is tested and benchmarked against: the same
    eliminations in the plain order (book: "Stationary distribution and
    convergence", Theorem 4's pi).  No input checks: use ``stationary_distribution``.
    """
    A = np.array(P, dtype=float)
    n = A.shape[-1]
    for m in range(n - 1, 0, -1):
        s = A[:, m, :m].sum(axis=-1)
        A[:, :m, m] /= s[:, None]
        A[:, :m, :m] += A[:, :m, m, None] * A[:, m, None, :m]
    pi = np.zeros(A.shape[:-1])
    pi[:, 0] = 1.0
    for j in range(1, n):
        pi[:, j] = np.einsum("bi,bi->b", pi[:, :j], A[:, :j, j])
    return pi / pi.sum(axis=-1, keepdims=True)


def _gth_panel_width(n: int, batch: int = 1) -> int:
    """Panel width of the blocked GTH: ``GTH_PANEL`` states for one matrix,
    ``GTH_PANEL_STACK`` for a stack, 64 for big matrices.

    Wider panels make the update of the kept block a matrix product of higher rank
    (less memory traffic per flop), while the steps inside a panel cost more; a
    stack shares the steps' overhead among its matrices.
    """
    if n >= 512:
        return 64
    return GTH_PANEL if batch == 1 else GTH_PANEL_STACK


def _gth(A: np.ndarray, panel: int | None = None) -> np.ndarray:
    """GTH on a stack (b, n, n) of stochastic matrices; returns the (b, n) vectors pi.

    ``A`` is scratch (overwritten).  Textbook GTH :cite:p:`grassmann1985` eliminates
    the states p = n-1, ..., 1 one at a time: with s_p = sum_{j<p} A[p, j] (the
    rate of leaving p downwards, never 1 - A[p, p]), for all i, j < p

        A[i, p] /= s_p,    A[i, j] += A[i, p] A[p, j],

    and then pi_0 = 1, pi_j = sum_{i<j} pi_i A[i, j].  Only non-negative numbers are
    added, multiplied and divided, so every pi_j has a small relative error, and a
    quantity is exactly 0 in floating point only if it is 0 in exact arithmetic
    (or underflowed).  So GTH decides irreducibility by itself: a second closed
    class makes some s_p = 0, the division by it leaves an infinity or a NaN in
    pi (below, 1/s_p enters the matrix G that every pi_j of its panel passes
    through), and a transient state gets pi_j = 0 exactly; an irreducible chain
    gets a finite pi > 0 unless something under- or overflowed.  The caller
    checks that pi is finite and positive and sends any other matrix to
    ``_gth_one_safely``.

    Blocked version: the states J = lo..hi of a panel (k <= ``panel`` states) are
    eliminated together on a small matrix, and the rank-one updates that reach
    the kept states 0..lo-1 are collected into one matrix product.  In exact
    arithmetic the panel's eliminations factor I - A[J, J] (diagonal pivots s_p)
    as (I - U)(S - L), U strictly upper, L strictly lower, S = diag(s_p), and add
    to the kept block

        A[:lo, :lo] += A[:lo, J] G A[J, :lo],   G = (S - L)^{-1} (I - U)^{-1},

    applied, with D = A[:lo, J] G, as A[:lo, :] += D A[J, :] (``_gth_update``): one
    BLAS ``dgemm`` per matrix that adds in place, because it updates whole rows,
    a contiguous block.  Their columns >= lo are no longer needed: D^T, all that
    the back substitution pi_J = D^T pi_{<lo} needs, is stored in A[J, :lo], which
    no later panel touches.  When the kept block has shrunk enough it is moved to
    the front of the memory (``_gth_blocked``), so that the products stop updating
    dead columns.  G, its factors and the products involve non-negative numbers
    only (the inverses of S - L and I - U are sums of products of non-negative
    entries; a triangular solve subtracts the non-positive -L and -U, which is
    the same as adding L and U), so the relative accuracy is that of textbook
    GTH; the tests compare the two to 1e-13 on random and nearly decomposable
    chains.

    The k pivots are found by textbook steps on the panel rows only
    (``_gth_panel``).  One matrix (``_pivots_one``) runs each step as one BLAS
    rank-one update (``dger``) on rows that carry their running sums, so that
    s_p is read off, and lets probe rows and columns, which start as
    identities, collect (S - L)^{-1} and (I - U)^{-1}; a stack
    (``_pivots_stack``) runs the steps as numpy operations shared by all its
    matrices, summing each s_p when its step comes, then two triangular solves
    (``dtrsm``) per matrix give G.

    A stack (``_gth_stack``) applies the same panel updates in the other order
    (left-looking): the kept block is never updated as a whole; each panel's
    rows and columns receive the updates of all the panels before it as two
    numpy matrix products over the whole stack when their turn comes.  The
    same sums of non-negative products, grouped differently (the same
    accuracy: the tests compare both with textbook GTH to 1e-13); numpy runs
    the products of all the matrices in one call, and no dead column is
    updated.
    """
    if panel is None:
        panel = _gth_panel_width(A.shape[-1], A.shape[0])
    if A.shape[0] == 1:
        return _gth_blocked(A[0], panel, _pivots_one)[None]
    return _gth_stack(A, panel)


def _gth_stack(A: np.ndarray, panel: int) -> np.ndarray:
    """``_gth`` on a stack (b, n, n), left-looking; returns the (b, n) vectors pi.

    After the panels above J = lo..hi, the rows and columns of J hold what the
    right-looking order (``_gth_blocked``) would have made of them: the updates
    D_Q A_Q[J_Q, :] of every earlier panel Q (``_gth_update``) added up, which is
    one matrix product when the earlier panels' D_Q are kept in their columns
    A[:lo_Q, J_Q] and their rows A_Q[J_Q, :lo_Q] are left as they were when Q
    was eliminated.  With T = hi+1..n-1, the states eliminated before J:

        A[J, :hi+1] += A[J, T] A[T, :hi+1]    (the panel rows: pivots, L, U),
        D = A[:lo, J] G + A[:lo, T] (A[T, J] G) = A[:lo, lo:] [G; A[T, J] G],

    the columns' update and the product with G (``_pivots_stack``) in one
    product; D overwrites A[:lo, J] and gives pi_J = D^T pi_{<lo} at the end.
    Every factor is non-negative, as in ``_gth_blocked``; the flops are those
    of the live block only (textbook GTH's n^3/3 multiply-adds plus the
    products with G), in numpy's batched ``matmul`` (BLAS per matrix, no
    Python loop over the stack).
    """
    b, n = A.shape[0], A.shape[-1]
    work, stored = {}, []
    tmp = np.empty(b * n * panel)                  # the products' output, reused
    hi = n - 1
    while hi >= 1:
        lo = max(1, hi - panel + 1)
        k, J, T = hi - lo + 1, slice(lo, hi + 1), slice(hi + 1, n)
        if hi < n - 1:
            rows = tmp[:b * k * (hi + 1)].reshape(b, k, hi + 1)
            A[:, J, :hi + 1] += np.matmul(A[:, J, T], A[:, T, :hi + 1], out=rows)
        M = np.empty((b, n - lo, k))               # [G; A[T, J] G]
        M[:, :k] = np.swapaxes(_pivots_stack(A, lo, k, work), -1, -2)
        np.matmul(A[:, T, J], M[:, :k], out=M[:, k:])
        A[:, :lo, J] = np.matmul(A[:, :lo, lo:], M, out=tmp[:b * lo * k].reshape(b, lo, k))
        stored.append((lo, hi))
        hi = lo - 1
    pi = np.empty((b, n))
    pi[:, 0] = 1.0
    for lo, hi in reversed(stored):
        pi[:, lo:hi + 1] = np.matmul(pi[:, None, :lo], A[:, :lo, lo:hi + 1])[:, 0]
    return pi / pi.sum(axis=-1, keepdims=True)


def _gth_panel(A: np.ndarray, lo: int, k: int, Z: np.ndarray, Q: np.ndarray | None = None) -> None:
    """The panel rows of A (one matrix or a stack (b, n, n)) as GTH sees them.

    Z[..., i, 0] is row lo + i's sum over the kept columns (all that s_p needs
    of them) and Z[..., i, 1 + j] = A[..., lo + i, lo + j].  If ``Q`` is given,
    Q[..., i, j] = Z[..., i, 0] + ... + Z[..., i, j], the running sums: s_p of
    state lo + r is Q[r, r] once the states above it are eliminated, and the
    rank-one steps keep Q current, because they add to Q c_i times the pivot
    row's own Q (``_pivots_one``).
    """
    J = slice(lo, lo + k)
    np.add.reduce(A[..., J, :lo], axis=-1, out=Z[..., 0])
    Z[..., 1:] = A[..., J, J]
    if Q is not None:
        np.cumsum(Z, axis=-1, out=Q)


def _gth_blocked(A: np.ndarray, panel: int, pivots) -> np.ndarray:
    """The panel loop of ``_gth`` on one matrix (n, n) or a stack (b, n, n).

    ``pivots(A, lo, k, work)`` eliminates the panel lo..lo+k-1 on its own rows and
    returns G^T.  For n >= ``GTH_COMPACT_FROM``, whenever the kept block has shrunk to
    ``GTH_COMPACT`` of the rows' length, it is moved to the front of A's memory
    (``_gth_compact``), so that the in-place products stop updating columns that
    are no longer needed (for smaller matrices the copies cost what they save).
    """
    n = A.shape[-1]
    lead = A.shape[:-2]
    memory = A.reshape(lead + (n * n,))
    work, stored = {}, []
    width, hi = n, n - 1
    while hi >= 1:
        lo = max(1, hi - panel + 1)
        _gth_update(A, lo, hi, pivots(A, lo, hi - lo + 1, work))
        stored.append((lo, hi, A[..., lo:hi + 1, :lo]))           # D^T, never moved
        if n >= GTH_COMPACT_FROM and 1 < lo <= GTH_COMPACT * width:
            A, width = _gth_compact(memory, A, lo), lo
        hi = lo - 1
    pi = np.empty(lead + (n,))
    pi[..., 0] = 1.0
    for lo, hi, Dt in reversed(stored):
        pi[..., lo:hi + 1] = (Dt @ pi[..., :lo, None])[..., 0]
    return pi / pi.sum(axis=-1, keepdims=True)


def _gth_compact(memory: np.ndarray, A: np.ndarray, lo: int) -> np.ndarray:
    """A[..., :lo, :lo] copied to the first lo * lo numbers of each matrix's memory.

    Row i moves from i * width to i * lo, never later, so copying blocks of rows in
    order reads each before it is overwritten (numpy buffers the overlap inside a
    block); the rows >= lo of the old layout, where D^T is stored, are beyond the
    new block.
    """
    new = memory[..., :lo * lo].reshape(A.shape[:-2] + (lo, lo))
    for r0 in range(0, lo, 64):
        r1 = min(lo, r0 + 64)
        new[..., r0:r1, :] = A[..., r0:r1, :lo]
    return new


def _pivots_one(A: np.ndarray, lo: int, k: int, work: dict) -> np.ndarray:
    """The panel lo..lo+k-1 of one matrix, each step one BLAS rank-one update on Y.

    Y (column-major) has k probe rows and the k panel rows; its columns are k
    probe columns, then Z_0, Q_0, Z_1, Q_1, ..., Z_k, Q_k (``_gth_panel``).  The
    probes start as identities; after the panel the probe rows' Z columns,
    divided by the pivots, are (S - L)^{-1} and the panel rows' probe columns
    are (I - U)^{-1}.  Returns G^T, G = (S - L)^{-1} (I - U)^{-1}.
    """
    if k not in work:
        Y = np.zeros((2 * k, 3 * k + 2), order="F")
        start = np.zeros_like(Y)
        start[np.arange(k), k + 2 * np.arange(1, k + 1)] = 1.0     # probe rows
        start[np.arange(k, 2 * k), np.arange(k)] = 1.0             # probe columns
        steps = []
        for r in range(k - 1, -1, -1):
            row, zc = k + r, k + 2 * (r + 1)      # state lo + r: its row and Z column
            steps.append((r, row, zc - 1, Y[:, zc], Y[row, :zc], Y[:, :zc], Y[row, k:zc]))
        work[k] = Y, start, steps, np.empty(k)
    Y, start, steps, s = work[k]
    np.copyto(Y, start)
    _gth_panel(A, lo, k, Y[k:, k::2], Y[k:, k + 1::2])
    for r, row, q, col, pivot_row, block, used in steps:
        s[r] = pivot = Y[row, q]                  # s_p = Q_r
        col[row] = 0.0                            # the diagonal, never used
        # Y[:, :zc] += col pivot_row / s_p; col is 0 in the pivot row and in the
        # rows eliminated before (``used`` is cleared), so only rows < row change
        dger(1.0 / pivot, col, pivot_row, a=block, overwrite_a=1)
        used.fill(0.0)
    return ((Y[:k, k + 2::2] / s) @ Y[k:, :k]).T


def _pivots_stack(A: np.ndarray, lo: int, k: int, work: dict) -> np.ndarray:
    """The panel lo..lo+k-1 of a stack (b, n, n), each step numpy operations on all b.

    The panel rows live in W (k, k + 1, b), the stack's axis last so that every
    operation runs along it: columns Z_0, ..., Z_k (``_gth_panel``).  The pivot
    s_p of state lo + r is summed when its step comes, Z_0 + ... + Z_r of its row
    (non-negative numbers), so the steps update the Z columns only.  After the
    steps, W's panel block holds U above its diagonal (each column divided by its
    pivot) and L below it; G = (S - L)^{-1} (I - U)^{-1} is then two triangular
    solves (``dtrsm``) per matrix on the identity, which add and divide
    non-negative numbers only: they subtract the off-diagonal entries -L and -U.
    Returns G^T (b, k, k).
    """
    b = A.shape[0]
    if k not in work:
        W = np.empty((k, k + 1, b))
        work[k] = W, np.empty_like(W), np.empty((k, b))
    W, tmp, s = work[k]
    Z = np.moveaxis(W, -1, 0)
    _gth_panel(A, lo, k, Z)
    for r in range(k - 1, -1, -1):
        zc = r + 1                                # state lo + r: its Z column
        np.add.reduce(W[r, :zc], axis=0, out=s[r])  # s_p = Z_0 + ... + Z_r of its row
        col = W[:r, zc]
        col /= s[r]
        W[:r, :zc] += np.multiply(col[:, None], W[r, None, :zc], out=tmp[:r, :zc])
    # the transpose of -W's panel block with the pivots on its diagonal (C-ordered: its .T
    # is column-major): its lower triangle is S - L, its strictly upper one -U; ``dtrsm``
    # reads only the triangle it is told (lower: with the diagonal; upper with diag=1:
    # without), so one matrix serves both solves
    BT = np.negative(np.swapaxes(Z[..., 1:], -1, -2))
    BT[:, np.arange(k), np.arange(k)] = s.T
    Gt = np.broadcast_to(np.eye(k), (b, k, k)).copy()          # becomes G^T
    for g, bt in zip(Gt, BT):                                   # g.T: column-major G
        dtrsm(1.0, bt.T, g.T, side=1, lower=1, overwrite_b=1)
        dtrsm(1.0, bt.T, g.T, side=1, lower=0, diag=1, overwrite_b=1)
    return Gt


def _gth_update(A: np.ndarray, lo: int, hi: int, Gt: np.ndarray) -> None:
    """After the panel J = lo..hi (``_gth``): A[:lo, :] += D A[J, :], then A[J, :lo] = D^T,
    for D = A[:lo, J] G (``Gt`` = G^T; one matrix or a stack).

    The update is one in-place ``dgemm`` per matrix on the contiguous rows
    A[:lo, :], seen as the column-major (n, lo) matrix A[:lo, :]^T; D^T is what
    the back substitution needs (pi_J = D^T pi_{<lo}).
    """
    J = slice(lo, hi + 1)
    Dt = Gt @ np.swapaxes(A[..., :lo, J], -1, -2)       # (..., k, lo), C-contiguous
    for a, dt in zip(A if A.ndim == 3 else A[None], Dt if Dt.ndim == 3 else Dt[None]):
        dgemm(1.0, a[J].T, dt.T, beta=1.0, c=a[:lo].T, trans_b=1, overwrite_c=1)
    A[..., J, :lo] = Dt


def _stochastic_fast(P) -> np.ndarray:
    """``P`` as a float array of stochastic matrices (..., n, n), checked in two passes.

    The minimum and the row sums decide the common case (entries >= 0, rows
    summing to 1 within ``ROW_SUM_ATOL``) without a temporary as large as P; such
    entries are finite too (an infinity makes its row sum infinite, a NaN makes
    the minimum NaN).  Anything else goes through ``check_stochastic``, which
    names the problem.  Irreducibility is left to GTH (see ``_gth``).
    """
    if isinstance(P, np.ndarray) and P.dtype == np.float64:
        arr = P
    else:
        arr = _checks.as_float_array("P", P)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.size == 0:
        return check_stochastic(arr)
    if not (arr.min() >= 0                                 # False for NaN
            and np.all(np.abs(arr.sum(axis=-1) - 1) <= ROW_SUM_ATOL)):
        _checks.as_float_array("P", arr)                   # names a NaN or an infinity
        return check_stochastic(arr)
    return arr


def _checked_chains(P) -> np.ndarray:
    """``check_stochastic`` and ``check_irreducible``: what ``method="solve"`` needs."""
    return check_irreducible(_stochastic_fast(P))


def _gth_one_safely(P: np.ndarray) -> np.ndarray:
    """pi of one stochastic matrix whose blocked GTH hit a zero, an overflow or an underflow.

    Reducible chains are named by ``check_irreducible``.  Otherwise the textbook
    order (no probe matrices, whose entries 1/s_p can overflow when s_p is
    subnormal) gives pi.  Components in the subnormal range (below 2.2e-308) keep
    only the precision a subnormal has, those below 4.9e-324 come out as 0 (still a
    probability, never NaN or negative), and a chain whose elimination over- or
    underflows on the way is refused with a ValueError that says so.
    """
    check_irreducible(P)
    with np.errstate(all="ignore"):
        pi = gth_textbook(P[None])[0]
    if not (np.all(np.isfinite(pi)) and np.all(pi >= 0)):
        raise ValueError("P is irreducible but its entries are so small (down to "
                         f"{P[P > 0].min():.3g}) that GTH under- or overflowed in double "
                         "precision: rescale the chain (e.g. lazify or merge states)")
    return pi


@_checks.public
def stationary_distribution(P, *, method: str = "gth") -> np.ndarray:
    """The stationary distribution pi of an irreducible chain: pi^T = pi^T P (Section 5).

    ``P`` is a stochastic matrix or a stack ``(..., n, n)``; the result has shape
    ``(..., n)``.  Non-stochastic input and reducible chains (Assumption 5 fails,
    pi is not unique) raise ``ValueError``.

    ``method="gth"`` (default): the Grassmann-Taksar-Heyman algorithm
    :cite:p:`grassmann1985`, Gaussian elimination that only adds and divides
    non-negative numbers (the diagonal is never used, 1 - P_ii is formed as a
    sum of off-diagonal entries), so every component of pi is computed to high
    *relative* accuracy even for nearly decomposable chains whose pi spans many
    orders of magnitude.  O(n^3) per matrix, blocked (``_gth``): most of the
    work is one BLAS matrix product per panel of states, on up to ``GTH_BATCH``
    matrices at a time; the memory needed beyond P is one batch's copy (at most
    ``BATCH_BYTES``, or one matrix).  The
    input checks are two passes over P (minimum, row sums);
    irreducibility is read off GTH's own pivots (every s_p > 0 and pi > 0),
    and only a chain that fails it is searched as a graph, to name the closed
    class.
    ``method="solve"``: LAPACK solve of (I - P + 1 1^T)^T pi = 1, accurate in
    absolute terms only: small components of nearly decomposable chains lose
    their relative accuracy, and where rounding makes a component negative or
    the system singular a ``ValueError`` says so (use ``"gth"``).
    Book: "Stationary distribution and convergence".

    Parameters
    ----------
    P : array_like, shape (..., n, n)
        A stochastic matrix (entries >= 0, rows summing to 1 within ``ROW_SUM_ATOL``),
        or a stack of them; each must be irreducible (Assumption 5).
    method : {"gth", "solve"}, optional
        The algorithm (default ``"gth"``, accurate to high relative precision).

    Returns
    -------
    numpy.ndarray, shape (..., n)
        pi, a probability vector per matrix (pi^T P = pi^T).

    Raises
    ------
    ValueError
        If ``method`` is not ``"gth"`` or ``"solve"``; if ``P`` is not a stack of
        square matrices, holds NaN or an infinity, a negative entry or a row that does
        not sum to 1; if a chain is reducible (the message names a closed class); if
        GTH under- or overflows on a chain with tiny entries; or, with
        ``method="solve"``, if the linear system is singular or gives a negative
        component in double precision.
    TypeError
        If an entry of ``P`` is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.stationary_distribution([[0.5, 0.5], [0.2, 0.8]]).round(4)
    array([0.2857, 0.7143])
    """
    _checks.choice("method", method, ("gth", "solve"))
    if method == "solve":
        arr = _checked_chains(P)
    else:
        arr = _stochastic_fast(P)
    n = arr.shape[-1]
    flat = arr.reshape(-1, n, n)
    if n == 1:
        return np.ones(arr.shape[:-1])
    if method == "solve":
        A = np.eye(n) - flat + 1.0
        with np.errstate(all="ignore"):
            try:
                pi = np.linalg.solve(np.swapaxes(A, -1, -2),
                                     np.ones(flat.shape[:-1] + (1,)))[..., 0]
            except np.linalg.LinAlgError:
                pi = None
        if pi is None or not (np.all(np.isfinite(pi)) and np.all(pi >= 0)):
            bad = "singular" if pi is None else (
                f"gave {pi[~(np.isfinite(pi) & (pi >= 0))].flat[0]!r}")
            raise ValueError(
                f"method='solve': the system (I - P + 1 1^T)^T pi = 1 is {bad} in double "
                "precision (the chain is too nearly decomposable for a plain solve); "
                "method='gth' computes pi to full relative accuracy")
        return pi.reshape(arr.shape[:-1])
    out = np.empty(flat.shape[:-1])
    batch = min(GTH_BATCH, max(1, BATCH_BYTES // (8 * n * n)))   # as Algorithm 2 batches
    scratch = np.empty((min(batch, flat.shape[0]), n, n))  # one per call: paged in once
    for start in range(0, flat.shape[0], batch):
        stop = min(start + batch, flat.shape[0])
        A = scratch[:stop - start]
        np.copyto(A, flat[start:stop])
        with np.errstate(all="ignore"):                  # checked just below
            pi = _gth(A)
        ok = np.all((pi > 0) & (pi <= 1), axis=-1)      # False for NaN, infinities and zeros
        out[start:stop] = pi
        for i in np.flatnonzero(~ok):
            try:
                out[start + i] = _gth_one_safely(flat[start + i])
            except ValueError as err:
                if flat.shape[0] == 1:
                    raise
                where = f" (matrix {start + i} of the stack)"
                msg = str(err)
                msg = (msg.replace("P is reducible:", f"P is reducible{where}:", 1)
                       if msg.startswith("P is reducible:") else msg + where)
                raise ValueError(msg) from None
    return out.reshape(arr.shape[:-1])


@_checks.public
def fundamental_matrix(P) -> np.ndarray:
    """Z = (I - P + 1 pi^T)^{-1}, the fundamental matrix of Kemeny and Snell (Theorem 4).

    With the plus sign Z (I - P + 1 pi^T) = I, pi^T Z = pi^T, Z 1 = 1, and
    Z - 1 pi^T is the group inverse of I - P.  The paper prints
    (I - P - 1 pi^T)^{-1} (a minus).  That matrix always exists and equals
    Z - 2 1 pi^T (Sherman-Morrison), so pi^T Z_minus = -pi^T and Z_minus 1 = -1:
    it is not the fundamental matrix, yet it agrees with Z on every row vector
    that sums to 0, which is all the perturbation identity
    pi~^T - pi^T = pi~^T (P~ - P) Z uses.  Only its norm (the constant in
    Theorem 4) differs.  Book: "Stationary distribution and convergence".
    ``P``: an irreducible stochastic matrix or a stack.

    Parameters
    ----------
    P : array_like, shape (..., n, n)
        An irreducible stochastic matrix (Assumption 5), or a stack of them.

    Returns
    -------
    numpy.ndarray, shape (..., n, n)
        Z = (I - P + 1 pi^T)^{-1} for each matrix.

    Raises
    ------
    ValueError
        If ``P`` is not a stack of square stochastic matrices (``check_stochastic``),
        a chain is reducible, or I - P + 1 pi^T is singular in double precision (a
        chain too nearly decomposable for Z to be represented).
    TypeError
        If an entry of ``P`` is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> Z = dm.fundamental_matrix([[0.5, 0.5], [0.2, 0.8]])
    >>> Z.round(4)
    array([[ 1.3061, -0.3061],
           [-0.1224,  1.1224]])
    """
    arr = check_stochastic(P)
    pi = stationary_distribution(arr)
    n = arr.shape[-1]
    with np.errstate(all="ignore"):
        try:
            Z = np.linalg.inv(np.eye(n) - arr + np.ones((n, 1)) * pi[..., None, :])
        except np.linalg.LinAlgError:
            Z = None
    if Z is None or not np.all(np.isfinite(Z)):
        raise ValueError("P is so nearly decomposable that I - P + 1 pi^T is singular in double "
                         "precision: its fundamental matrix Z (whose norm grows like 1 over the "
                         "coupling between the blocks) cannot be represented")
    return Z

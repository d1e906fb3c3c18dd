"""Markov chains from data: counts, Algorithm 2, stationary distribution, Theorems 4-5.

Paper: Section 2.2 (transition matrices), Section 4 (Algorithm 2, eq. (9)),
Section 5 (Definition 7, Assumptions 5-6, Theorems 4-5).  Book: chapters
"Private transition matrices" and "Stationary distribution and convergence".

Conventions
-----------
* ``counts[i, j]`` is the number of observed transitions i -> j; row i is the
  database D_i of the paper and N_i = counts[i].sum().
* The *support* is the set of transitions that can occur, a boolean n x n
  array fixed before the data are seen (public knowledge, e.g. a road network).
  Algorithm 2 (``privatize_chain``) takes it as a required argument: row i is
  drawn from a Dirichlet on its support (n_i = |support of row i| categories,
  Theorem 1 and Corollary 1 are applied with n_i) and the transitions outside it
  are exactly 0.  Data outside the support or a zero count inside it is an
  error: a support read off the data (``counts > 0``) would be published
  exactly, a leak no k can hide (book: "Private transition matrices").
* Seeds (``rng=0``) are for teaching and testing only; a real release uses the
  default ``rng=None`` (fresh OS entropy).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dgemm, dger, dtrsm
from scipy.sparse.csgraph import connected_components

from . import _checks
from .accuracy import kl_bound
from .mechanism import sample_dirichlet

#: Rows of a stochastic matrix must sum to 1 within this absolute tolerance.
ROW_SUM_ATOL = 1e-9
#: Bytes of one batch of Algorithm 2 (one ``standard_gamma`` call; the size of the
#: arrays ``iter_privatize_chain`` yields).
BATCH_BYTES = 64 * 2**20
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


# --------------------------------------------------------------------------- counts
def _states(name: str, value, n: int) -> np.ndarray:
    """States 0..n-1 (ints, or whole floats), flattened; bools, text and NaN are refused."""
    arr = _checks.as_float_array(name, value)
    if arr.size == 0:
        return arr.astype(np.intp).ravel()
    bad = arr != np.round(arr)
    if np.any(bad):
        raise ValueError(f"{name} contains the non-integer state {_checks.first_bad(arr, bad)!r}: "
                         "states are integers 0..n-1")
    bad = (arr < 0) | (arr >= n)
    if np.any(bad):
        raise ValueError(f"{name} contains state {_checks.first_bad(arr, bad):.0f}: states must "
                         f"lie in 0..{n - 1} (n={n})")
    return arr.astype(np.intp).ravel()


#: The largest number of states (an n x n matrix of doubles then takes 16 GiB).
MAX_STATES = int(np.sqrt(_checks.MAX_ELEMENTS))


def _n_states(n) -> int:
    return _checks.whole("n", n, 1, highest=MAX_STATES)


@_checks.public
def transition_counts_from_pairs(from_states, to_states, n) -> np.ndarray:
    """Count matrix from paired observations: counts[i, j] = #{t : from_t = i, to_t = j}.

    Section 2.2 / eq. (4): row i is the database D_i of all transitions out of
    state i.  ``from_states`` and ``to_states`` are equal-length integer arrays
    with values in 0..n-1 (e.g. taxi pickup and drop-off zones).  Returns an
    ``(n, n)`` float array.  Book: "Private transition matrices".
    """
    n = _n_states(n)
    a = _states("from_states", from_states, n)
    b = _states("to_states", to_states, n)
    if a.shape != b.shape:
        raise ValueError(f"from_states has {a.size} entries but to_states has {b.size}: "
                         "they must pair up")
    return np.bincount(a * n + b, minlength=n * n).reshape(n, n).astype(float)


@_checks.public
def transition_counts(sequences, n) -> np.ndarray:
    """Count matrix of the transitions in one state sequence or a list of sequences.

    Section 2.2 / eq. (4): counts[i, j] is the number of times state j directly
    follows state i.  ``sequences`` is one 1-D integer sequence, a list of such
    sequences (lengths may differ; no transition is counted across two
    sequences), or a 2-D array with one sequence per row.  States are integers
    0..n-1.  Returns an ``(n, n)`` float array.  Book: "Private transition matrices".

    >>> transition_counts([0, 1, 1, 0], 2)
    array([[0., 1.],
           [1., 1.]])
    """
    n = _n_states(n)
    if isinstance(sequences, np.ndarray) and sequences.ndim == 2:
        seqs = list(sequences)
    elif isinstance(sequences, np.ndarray) and sequences.ndim == 1:
        seqs = [sequences]
    elif isinstance(sequences, (list, tuple)) and len(sequences) and np.ndim(sequences[0]) == 0:
        seqs = [sequences]
    elif isinstance(sequences, (list, tuple)):
        seqs = list(sequences)
    else:
        raise ValueError(f"sequences={sequences!r} must be a sequence of states or a list of them")
    out = np.zeros((n, n))
    for s, seq in enumerate(seqs):
        if np.ndim(seq) != 1:
            raise ValueError(f"sequences[{s}] has shape {np.shape(seq)}: each sequence is 1-D")
        arr = _states(f"sequences[{s}]", seq, n)
        if arr.size >= 2:
            out += transition_counts_from_pairs(arr[:-1], arr[1:], n)
    return out


# --------------------------------------------------------------------------- checks
def _square(name: str, value) -> np.ndarray:
    arr = _checks.as_float_array(name, value)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] == 0:
        raise ValueError(f"{name} has shape {arr.shape}: expected a square matrix (..., n, n) "
                         "with n >= 1")
    return arr


@_checks.public
def check_counts(counts) -> np.ndarray:
    """Validate a transition count matrix: square, whole numbers >= 0, every row with data.

    An all-zero row i means state i was never left: D_i is empty, there is no
    count vector C(D_i) (eq. (3)) to privatize, and Assumption 6 cannot hold.
    Returns the counts as a float array.  Book: "Private transition matrices".
    """
    arr = _square("counts", counts)
    if arr.ndim != 2:
        raise ValueError(f"counts has shape {arr.shape}: expected one (n, n) matrix")
    bad = arr < 0
    if np.any(bad):
        raise ValueError(f"counts contains {arr[bad][0]!r}: counts must be >= 0")
    bad = arr != np.round(arr)
    if np.any(bad):
        raise ValueError(f"counts contains {arr[bad][0]!r}: counts must be whole numbers")
    empty = np.flatnonzero(~np.any(arr > 0, axis=1))
    if empty.size:
        raise ValueError(
            f"row {int(empty[0])} of counts is all zero: state {int(empty[0])} was never left, "
            "so D_i is empty and has no count vector (eq. 3; Assumption 6 needs data in "
            "every row)")
    return arr


@_checks.public
def check_feasible_observed(counts, feasible=None) -> np.ndarray:
    """Assumption 6: in every D_i, every feasible transition occurred at least once.

    ``feasible`` is a boolean ``(n, n)`` mask of the transitions that are possible
    (public knowledge, e.g. the road network).  Raises ``ValueError`` if a
    feasible transition has count 0, if an infeasible one has a positive count
    (the data contradict the mask), or if a row has no data at all.  With
    ``feasible=None`` the observed support is taken as the feasible set, so only
    empty rows are caught.  Returns the checked counts.  Book: "Stationary
    distribution and convergence".
    """
    arr = check_counts(counts)
    if feasible is None:
        return arr
    mask = _checks.bool_matrix("feasible", feasible, arr.shape)
    missing = mask & (arr == 0)
    if np.any(missing):
        i, j = (int(v) for v in np.argwhere(missing)[0])
        raise ValueError(f"transition {i}->{j} is feasible but was never observed "
                         f"(counts[{i}, {j}]=0; Assumption 6)")
    extra = ~mask & (arr > 0)
    if np.any(extra):
        i, j = (int(v) for v in np.argwhere(extra)[0])
        raise ValueError(f"transition {i}->{j} is marked infeasible but counts[{i}, {j}]="
                         f"{arr[i, j]:.0f}: the data contradict the feasibility mask")
    return arr


def _closed_class_message(pattern: np.ndarray) -> str:
    ncomp, labels = connected_components(pattern, directed=True, connection="strong")
    # a class is closed if no edge leaves it; a reducible chain has one that is not everything
    for c in range(ncomp):
        members = np.flatnonzero(labels == c)
        leaves = pattern[np.ix_(members, np.flatnonzero(labels != c))].any()
        if not leaves:
            outside = int(np.flatnonzero(labels != c)[0])
            shown = ", ".join(str(int(m)) for m in members[:8]) + (", ..." if members.size > 8 else "")
            return (f"{ncomp} communicating classes; states {{{shown}}} form a closed class "
                    f"from which state {outside} cannot be reached")
    return f"{ncomp} communicating classes"  # pragma: no cover (a finite chain has a closed class)


@_checks.public
def check_irreducible(P) -> np.ndarray:
    """Assumption 5: every state reaches every other (one strongly connected class).

    ``P`` is a transition matrix or a count matrix (only its pattern of positive
    entries matters), or a stack ``(..., n, n)``.  Irreducibility is decided on
    the directed graph i -> j for P[i, j] > 0 with strongly connected components
    (``scipy.sparse.csgraph.connected_components``).  Raises ``ValueError``
    naming a closed class otherwise; returns ``P`` as a float array.  Book:
    "Stationary distribution and convergence".
    """
    arr = _square("P", P)
    pats = (arr > 0).reshape(-1, arr.shape[-1], arr.shape[-1])
    if pats.shape[0] == 0:                              # an empty stack has nothing to check
        return arr
    first = pats[0]
    todo = [first] if np.all(pats == first) else list(pats)
    for s, pat in enumerate(todo):
        ncomp, _ = connected_components(pat, directed=True, connection="strong")
        if ncomp != 1:
            where = "" if len(todo) == 1 else f" (matrix {s} of the stack)"
            raise ValueError(f"P is reducible{where}: {_closed_class_message(pat)} "
                             "(Assumption 5 requires an irreducible chain)")
    return arr


@_checks.public
def check_stochastic(P) -> np.ndarray:
    """P is in S_n (Section 2.1): entries >= 0, rows sum to 1 (within ``ROW_SUM_ATOL``).

    Works on one matrix or a stack (..., n, n); returns P as a float array.
    Book: "Stationary distribution and convergence".
    """
    arr = _square("P", P)
    bad = arr < 0
    if np.any(bad):
        raise ValueError(f"P contains {arr[bad][0]!r}: a transition matrix has entries >= 0")
    with np.errstate(over="ignore"):           # an overflowing row sum is simply not 1
        sums = arr.sum(axis=-1)
    bad = np.abs(sums - 1) > ROW_SUM_ATOL
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"row {idx[-1]} of P sums to {sums[idx]!r}: rows of a stochastic "
                         f"matrix sum to 1 (tolerance {ROW_SUM_ATOL:g})")
    return arr


# --------------------------------------------------------------------------- Algorithm 2
def _row_design(counts, k, eta, support=None):
    """Validated counts, per-row k (shape (n,)) and Dirichlet parameters k_i C_ij.

    With ``support`` (Algorithm 2's public support) the counts must be positive
    exactly on it; the parameters are 0 outside it.
    """
    arr = check_counts(counts)
    n = arr.shape[0]
    if support is not None:
        check_support(arr, support)
    k_arr = _checks.positive("k", k)
    if k_arr.ndim > 1 or (k_arr.ndim == 1 and k_arr.shape[0] != n):
        raise ValueError(f"k has shape {k_arr.shape}: give one k or one per row ({n},)")
    k_rows = np.broadcast_to(k_arr, (n,)).astype(float)
    C = _checks.proportions(arr)
    if eta is not None:
        eta_arr = _checks.eta_ok(eta)
        if eta_arr.ndim > 1 or (eta_arr.ndim == 1 and eta_arr.shape[0] != n):
            raise ValueError(f"eta has shape {eta_arr.shape}: give one eta or one per row ({n},)")
        eta_rows = np.broadcast_to(eta_arr, (n,))
        check_support_border(arr, eta_rows)
        _checks.k_meets_assumption_4(k_rows, eta_rows)
    alpha = k_rows[:, None] * C
    small = (arr > 0) & (alpha < _checks.TINY)
    if np.any(small):
        i = int(np.argwhere(small)[0][0])
        raise ValueError(f"k={k_rows[i]!r} (row {i}) gives a Dirichlet parameter k_i*C_ij="
                         f"{alpha[small][0]!r} below the smallest normal double "
                         f"{_checks.TINY:.3g}: k is too small to compute with")
    return arr, k_rows, alpha


@_checks.public
def check_support(counts, support) -> np.ndarray:
    """Algorithm 2's public support: ``support[i, j]`` is True iff transition i -> j may occur.

    The support must be fixed before the data are seen (e.g. from the road network):
    Algorithm 2 publishes it exactly (entries outside it are exactly 0), so a support
    read off the counts would publish which transitions occurred, which no choice
    of k protects (book: "Private transition matrices", the support attack).  Data
    outside the support, or a zero count inside it (Assumption 6: every feasible
    transition was observed; Dir needs C_ij > 0), raise ``ValueError``.  Returns
    the support as a boolean array.
    """
    arr = check_counts(counts)
    mask = _checks.bool_matrix("support", support, arr.shape)
    outside = ~mask & (arr > 0)
    if np.any(outside):
        i, j = (int(v) for v in np.argwhere(outside)[0])
        raise ValueError(f"counts[{i}, {j}]={arr[i, j]:.0f} lies outside the support "
                         f"(support[{i}, {j}]=False): the support is fixed before the data are "
                         "seen, and data outside it cannot be released by Algorithm 2")
    zero = mask & (arr == 0)
    if np.any(zero):
        i, j = (int(v) for v in np.argwhere(zero)[0])
        raise ValueError(f"counts[{i}, {j}]=0 inside the support (support[{i}, {j}]=True): "
                         "every transition of the support needs a count > 0 (Assumption 6; "
                         "Dir(k C) is undefined for C_ij = 0)")
    return mask


def check_support_border(counts: np.ndarray, eta_rows: np.ndarray) -> None:
    """Assumption 3 on the support of each row: every observed count >= eta_i N_i.

    ``counts`` is a checked (n, n) count matrix (``check_counts``), ``eta_rows`` one
    border per row.  Unobserved transitions are infeasible (Assumption 6) and not
    categories of their row, so they are not checked.  Raises ``ValueError`` naming
    the first count below its row's border.  Book: "Private transition matrices".
    """
    with np.errstate(over="ignore"):
        N = counts.sum(axis=1)
    slack = 1 - _checks.REL_SLACK             # the rounding policy of ``min_count``
    if np.all(np.isfinite(N)):
        low = (counts > 0) & (counts < eta_rows[:, None] * N[:, None] * slack)
    else:
        low = (counts > 0) & (_checks.proportions(counts) < eta_rows[:, None] * slack)
    if np.any(low):
        i, j = (int(v) for v in np.argwhere(low)[0])
        raise ValueError(
            f"counts[{i}, {j}]={counts[i, j]:.0f} is below eta*N_i={eta_rows[i] * N[i]:.6g} "
            f"(eta={float(eta_rows[i])!r}, N_i={N[i]:.0f}; Assumption 3 on the support of row {i})")


def _streams(gen: np.random.Generator, alpha: np.ndarray):
    """The generators of the gamma variates and (if the log-space sampler is needed) uniforms.

    The uniforms come from a child of ``gen`` spawned once per call, so that a batch
    of matrices consumes both streams in order and batching never changes the draws.
    """
    if np.all(alpha[alpha > 0] >= 1):
        return gen, None
    return gen, gen.spawn(1)[0]


#: The most entries one sampler call draws: a larger batch is drawn matrix by matrix, in
#: slices of rows, so the sampler's temporaries (several arrays of the slice's size) stay
#: small next to the result (n = 5000: a 200 MB matrix used to peak at 1.7 GB).
_SLICE = 2**20


def _draw(streams, alpha: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` (b, n, n) with b private matrices, row by row Dir(alpha_i) on the support.

    Above ``_SLICE`` entries the matrices are drawn one by one, each in slices of rows,
    in the order of ``out``'s entries: the streams are consumed as by one call, so the
    matrices are the same, bit for bit."""
    gen, uniforms = streams
    if out.size <= _SLICE:
        return sample_dirichlet(alpha, out.shape[:1], gen, uniforms=uniforms, out=out)
    in_logs = uniforms is not None                  # ``_streams``: some alpha below 1
    rows = max(1, _SLICE // alpha.shape[1])
    for s in range(out.shape[0]):
        for r in range(0, alpha.shape[0], rows):
            sample_dirichlet(alpha[r:r + rows], (1,), gen, uniforms=uniforms,
                             out=out[s:s + 1, r:r + rows], in_logs=in_logs)
    return out


def _default_batch(n: int) -> int:
    return max(1, BATCH_BYTES // (8 * n * n))


@_checks.public
def iter_privatize_chain(counts, k, *, support, size, batch=None, rng=None, eta=None):
    """Algorithm 2 in batches: yield arrays of shape ``(b, n, n)`` until ``size`` draws are made.

    Same law and the same random stream as ``privatize_chain(counts, k,
    support=support, size=size, rng=rng)``: concatenating the batches gives exactly
    its output for the same seed.  Use it when ``size`` private matrices do not fit
    in memory at once (e.g. 1000 x 265 x 265 doubles = 562 MB): only one batch is
    alive at a time.  ``batch`` defaults to as many matrices as fit in 64 MiB.
    Book: "Private transition matrices".
    """
    _, _, alpha = _row_design(counts, k, eta, support)  # inputs are checked at the call,
    size = _checks.whole("size", size, 1)               # not at the first next()
    batch = _default_batch(alpha.shape[0]) if batch is None else _checks.whole("batch", batch, 1)
    if min(batch, size) * alpha.size > _checks.MAX_ELEMENTS:
        raise ValueError(f"batch={batch} matrices of shape {alpha.shape} need more than "
                         f"{_checks.MAX_ELEMENTS} doubles (2 GiB): choose a smaller batch")
    return _batches(_streams(_checks.generator(rng), alpha), alpha, size, batch)


def _batches(streams, alpha, size, batch):
    done = 0
    while done < size:
        b = min(batch, size - done)
        yield _draw(streams, alpha, np.empty((b,) + alpha.shape))
        done += b


@_checks.public
def privatize_chain(counts, k, *, support, rng=None, size=None, eta=None,
                    batch=None) -> np.ndarray:
    """Algorithm 2 / eq. (9): privatize every row of a transition count matrix.

    Row i of the private matrix is one draw from Dir(k_i C(D_i)) on the support of
    row i, with C(D_i) = counts[i] / N_i the count vector of the transitions out of
    state i (Algorithm 1 applied row by row; Theorem 3 gives the privacy of the
    whole).  The rows are drawn with the same log-space sampler as Algorithm 1
    (``mechanism.sample_dirichlet``): no row can underflow, no entry of the support
    is exactly 0, and no draw makes the call fail.

    Parameters
    ----------
    counts : (n, n) array
        Transition counts (whole numbers >= 0).  Every row needs data (an empty
        row raises ``ValueError``: D_i is empty; Assumption 6).
    k : float or (n,) array
        Dirichlet parameter, one for all rows or one per row (k_i).
    support : (n, n) boolean array, keyword only, required
        The transitions that can occur, fixed *before* the data are seen (public
        knowledge such as a road network).  Entries outside it are released as
        exactly 0; counts outside it, or a zero count inside it, raise
        ``ValueError`` (``check_support``).  It is required because the observed
        support ``counts > 0`` would be published exactly: the book's support
        attack reads a record off it at any k.
    rng : None, int, SeedSequence or numpy.random.Generator
        ``None`` uses fresh OS entropy (a real release).  Seeds are for teaching
        and testing only; a bool is an error.
    size : int, optional
        Number of independent private matrices: output shape ``(size, n, n)``.
        The result is allocated once; each batch of matrices is drawn straight
        into its slice of it.
    eta : float or (n,) array, optional
        If given, Assumption 3 (every count on the support >= eta_i N_i) and
        Assumption 4 (k_i >= 3/(2 eta_i)) are checked.
    batch : int, optional
        Matrices per sampler call (default: as many as fit in 64 MiB).  The result
        does not depend on it.  When every k_i C_ij >= 1 (always under Assumption
        4) the same seed gives the same matrices as one ``standard_gamma`` call on
        the whole ``(size, n, n)`` parameter array, rows divided by their sums.

    Returns
    -------
    numpy.ndarray
        A stochastic ``(n, n)`` matrix, or ``(size, n, n)`` of them.
    """
    _, _, alpha = _row_design(counts, k, eta, support)
    streams = _streams(_checks.generator(rng), alpha)
    if size is None:
        return _draw(streams, alpha, np.empty((1,) + alpha.shape))[0]
    size = _checks.whole("size", size, 1)
    batch = _default_batch(alpha.shape[0]) if batch is None else _checks.whole("batch", batch, 1)
    if size * alpha.size > _checks.MAX_ELEMENTS:
        raise ValueError(f"size={size} matrices of shape {alpha.shape} need more than "
                         f"{_checks.MAX_ELEMENTS} doubles (2 GiB): use iter_privatize_chain")
    out = np.empty((size,) + alpha.shape)
    for s in range(0, size, batch):          # each batch is drawn straight into its slice
        _draw(streams, alpha, out[s:s + batch])
    return out


@_checks.public
def row_eta(counts) -> np.ndarray:
    """Per-row smallest observed proportion min_{j in support} C_ij.

    Any eta_i up to this value satisfies Assumption 3 on the support of row i
    (Assumption 3 also needs eta_i < 1/4: take ``np.minimum(row_eta(c), 0.249)``
    or any smaller design value explicitly).  Book: "Private transition matrices".
    """
    arr = check_counts(counts)
    masked = np.where(arr > 0, _checks.proportions(arr), np.inf)
    return masked.min(axis=1)


# --------------------------------------------------------------------------- stationary

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

    ``A`` is scratch (overwritten).  Textbook GTH {cite}`grassmann1985` eliminates
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
    """
    if panel is None:
        panel = _gth_panel_width(A.shape[-1], A.shape[0])
    if A.shape[0] == 1:
        return _gth_blocked(A[0], panel, _pivots_one)[None]
    return _gth_blocked(A, panel, _pivots_stack)


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
        work[k] = W, np.empty_like(W), np.empty((k, b)), np.tril(np.ones((k, k), dtype=bool), -1)
    W, tmp, s, lower = work[k]
    Z = np.moveaxis(W, -1, 0)
    _gth_panel(A, lo, k, Z)
    for r in range(k - 1, -1, -1):
        zc = r + 1                                # state lo + r: its Z column
        np.add.reduce(W[r, :zc], axis=0, out=s[r])  # s_p = Z_0 + ... + Z_r of its row
        col = W[:r, zc]
        col /= s[r]
        W[:r, :zc] += np.multiply(col[:, None], W[r, None, :zc], out=tmp[:r, :zc])
    # the transposes of S - L and I - U (C-ordered: their .T are column-major)
    BT = np.negative(np.swapaxes(Z[..., 1:], -1, -2))
    SLT, IUT = np.where(lower, 0.0, BT), np.where(lower, BT, 0.0)
    SLT[:, np.arange(k), np.arange(k)] = s.T
    Gt = np.broadcast_to(np.eye(k), (b, k, k)).copy()          # becomes G^T
    for g, sl, iu in zip(Gt, SLT, IUT):                         # g.T: column-major G
        dtrsm(1.0, sl.T, g.T, side=1, lower=1, overwrite_b=1)
        dtrsm(1.0, iu.T, g.T, side=1, lower=0, diag=1, overwrite_b=1)
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
    {cite}`grassmann1985`, Gaussian elimination that only adds and divides
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
    batch = min(GTH_BATCH, _default_batch(n))
    for start in range(0, flat.shape[0], batch):
        stop = min(start + batch, flat.shape[0])
        with np.errstate(all="ignore"):                  # checked just below
            pi = _gth(flat[start:stop].copy())
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


# --------------------------------------------------------------------------- ergodicity
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

    This has the form of Ipsen and Selee's p-norm coefficients {cite}`ipsen2011`
    with p = infinity.  It is NOT the Dobrushin coefficient (see
    ``dobrushin_coefficient``): they agree for n <= 3, differ for n >= 4 (either
    can be the larger), and for n >= 4 tau_inf can exceed 1 (up to floor(n/2)).  Works for
    any real square matrix (a seminorm on matrices), and for stacks (..., n, n).
    """
    arr = _square("G", G)
    n = arr.shape[-1]
    h = n // 2
    col = np.sort(arr, axis=-2)
    with np.errstate(over="ignore", invalid="ignore"):
        spread = col[..., n - h:, :].sum(axis=-2) - col[..., :h, :].sum(axis=-2)
    out = spread.max(axis=-1)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"G has entries up to {np.abs(arr).max():.3g}: tau_inf(G) overflows "
                         "double precision (rescale G; tau_inf(c G) = |c| tau_inf(G))")
    return out if out.ndim else float(out)


@_checks.public
def dobrushin_coefficient(P) -> np.ndarray:
    """Dobrushin's coefficient delta(P) = (1/2) max_{i,l} sum_j |P_ij - P_lj|.

    Equals tau_1(P) = max ||P^T z||_1 over ||z||_1 = 1, z^T 1 = 0 (Seneta;
    Ipsen and Selee's 1-norm coefficient {cite}`ipsen2011`), lies in [0, 1] for a
    stochastic P (also in floating point: rows within 1e-9 of summing to 1 and entries
    >= 0 never give more than 1), and bounds |lambda_2|.  It is the coefficient the literature
    usually calls *the* ergodicity coefficient; Definition 7 is a different one
    (book, "Stationary distribution and convergence").  Stacks allowed.  Each unordered
    pair of rows is compared once (l > i): |a - b| = |b - a| exactly, so the result is
    the same as over all ordered pairs, bit for bit.
    """
    arr = _square("P", P)
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


# --------------------------------------------------------------------------- Theorems 4-5
@_checks.public
def row_kl_bounds(counts, k) -> np.ndarray:
    """Corollary 1 for every row: the bound on E[KL(C(D_i) || row i of P~)].

    Row i uses N_i and n_i = the size of its support (the Dirichlet of Algorithm 2
    lives there); a row with one feasible transition is released exactly and
    gets 0.  When every row is fully observed n_i = n, as in the paper's L.
    Book: "Stationary distribution and convergence".
    """
    arr, k_rows, _ = _row_design(counts, k, None)
    N = arr.sum(axis=1)
    if not np.all(np.isfinite(N)):
        raise ValueError("counts: a row total N_i overflows (counts near 1e308); Corollary 1 "
                         "needs N_i as a number")
    n_i = (arr > 0).sum(axis=1)
    out = np.zeros(arr.shape[0])
    many = n_i >= 2
    if np.any(many):
        out[many] = kl_bound(k_rows[many], N[many], n_i[many])
    return out


def _chain_parts(counts, k):
    arr = check_counts(counts)
    P = arr / arr.sum(axis=1, keepdims=True)
    pi = stationary_distribution(P)
    return P, pi, row_kl_bounds(arr, k)


@_checks.public
def stationary_tv_bound(counts, k, *, z_norm: str = "1") -> float:
    """Theorem 4's right-hand side as printed: (1/2) ||Z||_1 sqrt(2 L), L = sum_i pi(i) L_i.

    Z = (I - P + 1 pi^T)^{-1} (the sign corrected, see ``fundamental_matrix``),
    pi the stationary distribution of P = counts / N_i, L_i = ``row_kl_bounds``.
    ``z_norm="1"``: ||Z||_1 read as the induced 1-norm (largest absolute column
    sum), the usual meaning; ``z_norm="inf"``: largest absolute row sum, the norm
    the perturbation identity pi~^T - pi^T = pi~^T (P~ - P) Z actually needs.
    The book shows where the printed bound fails and gives a corrected one
    (``stationary_tv_bound_corrected``).
    """
    _checks.choice("z_norm", z_norm, ("1", "inf"))
    P, pi, Lrow = _chain_parts(counts, k)
    Z = fundamental_matrix(P)
    axis = 0 if z_norm == "1" else 1
    znorm = np.abs(Z).sum(axis=axis).max()
    return float(0.5 * znorm * np.sqrt(2 * pi @ Lrow))


@_checks.public
def ergodicity_bound(counts, k) -> float:
    """Theorem 5's right-hand side as printed: sqrt(2 L), L = sum_i pi(i) L_i (as in Theorem 4).

    The theorem claims E|tau_inf(P) - tau_inf(P~)| <= sqrt(2 L).  The book shows
    that this can fail (for Definition 7's tau_inf and for Dobrushin's
    coefficient) and gives ``ergodicity_bound_corrected``.
    """
    _, pi, Lrow = _chain_parts(counts, k)
    return float(np.sqrt(2 * pi @ Lrow))


# --------------------------------------------------------------------------- corrected bounds
@_checks.public
def stationary_tv_bound_corrected(counts, k) -> float:
    """A bound on E||pi - pi~||_TV that holds: (1/2) tau_1(Z) sqrt(2 sum_i L_i).

    Proof (book, "Stationary distribution and convergence"): with E = P~ - P,
    pi~^T - pi^T = pi~^T E Z exactly; pi~^T E sums to 0, so
    ||pi~^T E Z||_1 <= tau_1(Z) ||pi~^T E||_1 (tau_1 = ``dobrushin_coefficient``,
    <= the largest absolute row sum of Z); ||pi~^T E||_1 <= max_i ||E_i||_1 since
    pi~ is a probability vector; and E max_i ||E_i||_1 <= sqrt(sum_i E||E_i||_1^2)
    <= sqrt(2 sum_i L_i) by Pinsker and Corollary 1.  Compared with Theorem 4 the
    stationary weights pi(i) are gone: the identity weights rows by the *private*
    pi~, which the data do not control.  (TV is also at most 1.)
    """
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
    """
    _checks.choice("coefficient", coefficient, ("definition-7", "dobrushin"))
    Lrow = row_kl_bounds(counts, k)
    if coefficient == "dobrushin":
        return float(np.sqrt(2 * Lrow.sum()))
    return float(0.5 * np.sqrt(2 * Lrow).sum())

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

from . import _checks
from .accuracy import kl_bound
from .mechanism import sample_dirichlet

#: Rows of a stochastic matrix must sum to 1 within this absolute tolerance.
ROW_SUM_ATOL = 1e-9
#: Bytes of one batch of Algorithm 2 (one ``standard_gamma`` call; the size of the
#: arrays ``iter_privatize_chain`` yields).
BATCH_BYTES = 64 * 2**20


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

    Parameters
    ----------
    from_states : array_like of int
        The states transitions leave, each a whole number in 0..n-1.
    to_states : array_like of int
        The states they enter, as many as ``from_states``, each in 0..n-1.
    n : int
        The number of states, 1 <= n <= ``MAX_STATES``.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        The counts, as floats.

    Raises
    ------
    ValueError
        If ``n`` is out of range, a state is not a whole number in 0..n-1 (or is NaN),
        or the two arrays differ in size.
    TypeError
        If ``n`` is not an int (a bool, a float or text), or a state is not a real
        number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.transition_counts_from_pairs([0, 0, 1, 1], [1, 0, 1, 1], 2)
    array([[1., 1.],
           [0., 2.]])
    """
    n = _n_states(n)
    a = _states("from_states", from_states, n)
    b = _states("to_states", to_states, n)
    if a.shape != b.shape:
        raise ValueError(f"from_states has {a.size} entries but to_states has {b.size}: "
                         "they must pair up")
    # [book:transition_counts_from_pairs]
    return np.bincount(a * n + b, minlength=n * n).reshape(n, n).astype(float)


@_checks.public
def transition_counts(sequences, n) -> np.ndarray:
    """Count matrix of the transitions in one state sequence or a list of sequences.

    Section 2.2 / eq. (4): counts[i, j] is the number of times state j directly
    follows state i.  ``sequences`` is one 1-D integer sequence, a list of such
    sequences (lengths may differ; no transition is counted across two
    sequences), or a 2-D array with one sequence per row.  States are integers
    0..n-1.  Returns an ``(n, n)`` float array.  Book: "Private transition matrices".

    Parameters
    ----------
    sequences : array_like of int, list of them, or 2-D array
        One state sequence, a list of sequences, or one sequence per row; each state a
        whole number in 0..n-1.
    n : int
        The number of states, 1 <= n <= ``MAX_STATES``.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        The counts, as floats.

    Raises
    ------
    ValueError
        If ``n`` is out of range, ``sequences`` is not a sequence of states or a list of
        them, a sequence is not 1-D, or a state is not a whole number in 0..n-1.
    TypeError
        If ``n`` is not an int (a bool, a float or text), or a state is not a real
        number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.transition_counts([0, 1, 1, 0], 2)
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
@_checks.public
def check_counts(counts) -> np.ndarray:
    """Validate a transition count matrix: square, whole numbers >= 0, every row with data.

    An all-zero row i means state i was never left: D_i is empty, there is no
    count vector C(D_i) (eq. (3)) to privatize, and Assumption 6 cannot hold.
    Returns the counts as a float array.  Book: "Private transition matrices".

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).

    Returns
    -------
    numpy.ndarray, shape (n, n)
        The counts as a float array.

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a
        negative or non-whole entry, or has an all-zero row.
    TypeError
        If an entry of ``counts`` is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.check_counts([[3, 1], [2, 4]]).shape
    (2, 2)
    """
    return _counts_matrix(counts)


def _counts_matrix(counts) -> np.ndarray:
    """The body of ``check_counts``, for callers inside the package boundary."""
    arr = _checks.square_matrix("counts", counts)
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

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).
    feasible : array_like of bool, shape (n, n), optional
        The possible transitions (True = possible); None takes the observed support.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        The checked counts as a float array.

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a negative or
        non-whole entry, or has an all-zero row; if ``feasible`` has another shape; if a
        feasible transition has count 0 (Assumption 6) or an infeasible one a positive
        count.
    TypeError
        If ``feasible`` is not a boolean array, or an entry of ``counts`` is not a real
        number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> counts = [[3, 1], [2, 0]]
    >>> dm.check_feasible_observed(counts, [[True, True], [True, False]]).shape
    (2, 2)
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
    from scipy.sparse.csgraph import connected_components   # here: 0.3 s to import
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

    Parameters
    ----------
    P : array_like, shape (..., n, n)
        A transition or count matrix, or a stack of them (finite real entries).

    Returns
    -------
    numpy.ndarray, shape (..., n, n)
        ``P`` as a float array.

    Raises
    ------
    ValueError
        If ``P`` is not a stack of square matrices, holds NaN or an infinity, or a
        matrix is reducible (the message names a closed class and, in a stack, the
        matrix).
    TypeError
        If an entry of ``P`` is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.check_irreducible([[0.5, 0.5], [0.2, 0.8]]).shape
    (2, 2)
    """
    from scipy.sparse.csgraph import connected_components   # here: 0.3 s to import
    arr = _checks.square_matrix("P", P)
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

    Parameters
    ----------
    P : array_like, shape (..., n, n)
        A matrix, or a stack of them, to check.

    Returns
    -------
    numpy.ndarray, shape (..., n, n)
        ``P`` as a float array.

    Raises
    ------
    ValueError
        If ``P`` is not a stack of square matrices, holds NaN or an infinity, has a
        negative entry, or a row does not sum to 1 within ``ROW_SUM_ATOL``.
    TypeError
        If an entry of ``P`` is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.check_stochastic([[0.5, 0.5], [0.2, 0.8]]).shape
    (2, 2)
    """
    arr = _checks.square_matrix("P", P)
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
    lean = None if eta is not None or support is None else _lean_design(counts, k, support)
    if lean is not None:
        return lean
    arr = _counts_matrix(counts)
    n = arr.shape[0]
    if support is not None:
        _support_of(arr, support)
    k_arr = _checks.positive("k", k)
    if k_arr.ndim > 1 or (k_arr.ndim == 1 and k_arr.shape[0] != n):
        raise ValueError(f"k has shape {k_arr.shape}: give one k or one per row ({n},)")
    k_rows = k_arr.astype(float) if k_arr.ndim else np.full(n, float(k_arr))
    C = _checks.proportions(arr)
    if eta is not None:
        eta_arr = _checks.eta_ok(eta)
        if eta_arr.ndim > 1 or (eta_arr.ndim == 1 and eta_arr.shape[0] != n):
            raise ValueError(f"eta has shape {eta_arr.shape}: give one eta or one per row ({n},)")
        eta_rows = np.broadcast_to(eta_arr, (n,))
        check_support_border(arr, eta_rows)
        _checks.k_meets_assumption_4(k_rows, eta_rows)
    alpha = np.multiply(k_rows[:, None], C, out=C)
    # alpha is 0 at the zero counts; a parameter below TINY elsewhere makes more entries
    # below TINY than there are zero counts (one counting pass each)
    if np.count_nonzero(alpha < _checks.TINY) > arr.size - np.count_nonzero(arr != 0):
        small = (arr > 0) & (alpha < _checks.TINY)
        i = int(np.argwhere(small)[0][0])
        raise ValueError(f"k={k_rows[i]!r} (row {i}) gives a Dirichlet parameter k_i*C_ij="
                         f"{alpha[small][0]!r} below the smallest normal double "
                         f"{_checks.TINY:.3g}: k is too small to compute with")
    return arr, k_rows, alpha



def _lean_design(counts, k, support):
    """``_row_design`` (with a support, without eta) for the usual input, in a few passes.

    Taken: a float64 (n, n) array of finite whole counts >= 0 with data in every row and
    a finite total per row, positive exactly on ``support`` (a boolean array of its
    shape), and k a finite number > 0 (a float, or an int below 2**63) or a float64
    vector of n of them, with every supported k_i C_ij at least the smallest normal
    double.  Then (counts, k_i, k_i C_ij) are the full checks' numbers, bit for bit (the
    same row sums, division and product); ``k_i`` may be ``k`` itself.  None when anything
    fails or the input is of another kind: ``_row_design`` then runs the full checks,
    which raise the message naming the parameter, the value and the rule (or accept).
    """
    if not (type(counts) is np.ndarray and counts.dtype == np.float64 and counts.ndim == 2
            and counts.shape[0] == counts.shape[1] and 0 < counts.size <= _checks.MAX_ELEMENTS
            and type(support) is np.ndarray and support.dtype == bool
            and support.shape == counts.shape):
        return None
    n = counts.shape[0]
    if type(k) in (float, np.float64) or type(k) is int and k < 2**63:
        if not 0 < k < np.inf:
            return None
        k_rows = np.full(n, float(k))
    elif type(k) is np.ndarray and k.dtype == np.float64 and k.shape == (n,):
        if not (k.min() > 0 and k.max() < np.inf):
            return None
        k_rows = k
    else:
        return None
    with np.errstate(over="ignore"):
        totals = counts.sum(axis=1, keepdims=True)         # as _checks.proportions
    # the minimum >= 0 refuses NaN; finite totals refuse infinities; each total > 0 is a
    # row with data
    if not (counts.min() >= 0 and totals.max() < np.inf and totals.min() > 0
            and np.array_equal(counts > 0, support)):
        return None
    alpha = np.rint(counts)             # whole counts; then the same memory holds k_i C_ij
    if not np.array_equal(alpha, counts):
        return None
    np.divide(counts, totals, out=alpha)
    np.multiply(k_rows[:, None], alpha, out=alpha)
    # the zero counts give exactly 0; no supported parameter below TINY adds none to those
    if np.count_nonzero(alpha < _checks.TINY) != alpha.size - np.count_nonzero(support):
        return None
    return counts, k_rows, alpha

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

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).
    support : array_like of bool, shape (n, n)
        The transitions that may occur, fixed before the data are seen.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        The support.

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a negative or
        non-whole entry, or has an all-zero row; if ``support`` has another shape; or if
        a count lies outside the support or is 0 inside it.
    TypeError
        If ``support`` is not a boolean array, or an entry of ``counts`` is not a real
        number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> import numpy as np
    >>> counts = np.array([[3, 1], [2, 0]])
    >>> int(dm.check_support(counts, counts > 0).sum())
    3
    """
    return _support_of(_counts_matrix(counts), support)


def _support_of(arr: np.ndarray, support) -> np.ndarray:
    """``check_support`` on counts already checked by ``check_counts``."""
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
    """The generators of the gamma variates and (if the log-space sampler is needed) uniforms,
    and the masks (alpha > 0, alpha >= 1) that ``sample_dirichlet`` reads, formed once per call.

    The uniforms come from a child of ``gen`` spawned once per call, so that a batch
    of matrices consumes both streams in order and batching never changes the draws.
    They are needed where some supported alpha is below 1: where fewer parameters are
    >= 1 than are > 0.
    """
    support, big = alpha > 0, alpha >= 1
    if np.count_nonzero(big) == np.count_nonzero(support):    # every alpha > 0 is >= 1
        return gen, None, (support, big)
    return gen, gen.spawn(1)[0], (support, big)


#: The most entries one sampler call draws: a larger batch is drawn matrix by matrix, in
#: slices of rows, so the sampler's temporaries (several arrays of the slice's size) stay
#: small next to the result (n = 5000: a 200 MB matrix used to peak at 1.7 GB).
_SLICE = 2**20


def _draw(streams, alpha: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` (b, n, n) with b private matrices, row by row Dir(alpha_i) on the support.

    Above ``_SLICE`` entries the matrices are drawn one by one, each in slices of rows,
    in the order of ``out``'s entries: the streams are consumed as by one call, so the
    matrices are the same, bit for bit."""
    gen, uniforms, (support, big) = streams
    if out.size <= _SLICE:
        return sample_dirichlet(alpha, out.shape[:1], gen, uniforms=uniforms, out=out,
                                masks=(support, big))
    in_logs = np.count_nonzero(big) == 0            # decided once for the whole array
    rows = max(1, _SLICE // alpha.shape[1])
    for s in range(out.shape[0]):
        for r in range(0, alpha.shape[0], rows):
            sample_dirichlet(alpha[r:r + rows], (1,), gen, uniforms=uniforms,
                             out=out[s:s + 1, r:r + rows], in_logs=in_logs,
                             masks=(support[r:r + rows], big[r:r + rows]))
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

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).
    k : float or array_like, shape (n,)
        Dirichlet parameter, > 0, one for all rows or one per row (k_i).
    support : array_like of bool, shape (n, n), keyword only, required
        The public support, as in ``privatize_chain``.
    size : int, keyword only
        The number of private matrices, >= 1.
    batch : int, optional
        Matrices per yielded array, >= 1 (default: as many as fit in 64 MiB).
    rng : None, int, SeedSequence or numpy.random.Generator, optional
        ``None`` (default) uses fresh OS entropy; seeds are for teaching and testing.
    eta : float or array_like, shape (n,), optional
        If given, Assumptions 3 and 4 are checked, as in ``privatize_chain``.

    Returns
    -------
    iterator of numpy.ndarray
        Arrays of shape ``(b, n, n)``, b <= ``batch``, holding ``size`` stochastic
        matrices in all.  The inputs are checked at the call, not at the first ``next``.

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a negative or
        non-whole entry, or has an all-zero row (``check_counts``); if a count lies
        outside ``support`` or is 0 inside it (``check_support``); if ``k`` is not > 0,
        or is neither one number nor one per row; if ``eta`` is given and breaks 0 <
        eta_i < 1/4, Assumption 3 (a supported count below eta_i N_i) or Assumption 4
        (k_i < 3/(2 eta_i)); if a parameter k_i C_ij is below the smallest normal
        double; if ``size`` or ``batch`` is not >= 1; or if the matrices asked for
        exceed ``MAX_ELEMENTS`` doubles (2 GiB).
    TypeError
        If ``support`` is not a boolean array, ``size`` or ``batch`` is not an int,
        ``rng`` is not None, an int, a SeedSequence or a Generator (a bool is refused),
        or an entry of ``counts``, ``k`` or ``eta`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> import numpy as np
    >>> counts = np.array([[30, 10], [5, 55]])
    >>> batches = dm.iter_privatize_chain(counts, 100.0, support=counts > 0, size=5,
    ...                                   batch=2, rng=0)
    >>> [b.shape for b in batches]
    [(2, 2, 2), (2, 2, 2), (1, 2, 2)]
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

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a negative or
        non-whole entry, or has an all-zero row (``check_counts``); if a count lies
        outside ``support`` or is 0 inside it (``check_support``); if ``k`` is not > 0,
        or is neither one number nor one per row; if ``eta`` is given and breaks 0 <
        eta_i < 1/4, Assumption 3 (a supported count below eta_i N_i) or Assumption 4
        (k_i < 3/(2 eta_i)); if a parameter k_i C_ij is below the smallest normal
        double; if ``size`` or ``batch`` is not >= 1; or if the matrices asked for
        exceed ``MAX_ELEMENTS`` doubles (2 GiB).
    TypeError
        If ``support`` is not a boolean array, ``size`` or ``batch`` is not an int,
        ``rng`` is not None, an int, a SeedSequence or a Generator (a bool is refused),
        or an entry of ``counts``, ``k`` or ``eta`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> import numpy as np
    >>> counts = np.array([[30, 10], [5, 55]])
    >>> P = dm.privatize_chain(counts, 100.0, support=counts > 0, rng=0, size=3)
    >>> P.shape, bool(np.allclose(P.sum(axis=-1), 1))
    ((3, 2, 2), True)
    """
    _, _, alpha = _row_design(counts, k, eta, support)
    streams = _streams(_checks.generator(rng), alpha)
    if size is None:
        return _draw(streams, alpha, alpha[None])[0]     # drawn over its own parameters
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

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).

    Returns
    -------
    numpy.ndarray, shape (n,)
        min_j C_ij over the positive counts of each row.

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a
        negative or non-whole entry, or has an all-zero row.
    TypeError
        If an entry of ``counts`` is not a real number (a bool, complex number or text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.row_eta([[30, 10], [5, 55]]).round(4)
    array([0.25  , 0.0833])
    """
    arr = check_counts(counts)
    masked = np.where(arr > 0, _checks.proportions(arr), np.inf)
    return masked.min(axis=1)


# --------------------------------------------------------------------------- Corollary 1, row by row
@_checks.public
def row_kl_bounds(counts, k) -> np.ndarray:
    """Corollary 1 for every row: the bound on E[KL(C(D_i) || row i of P~)].

    Row i uses N_i and n_i = the size of its support (the Dirichlet of Algorithm 2
    lives there); a row with one feasible transition is released exactly and
    gets 0.  When every row is fully observed n_i = n, as in the paper's L.
    Book: "Stationary distribution and convergence".

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data (``check_counts``).
    k : float or array_like, shape (n,)
        The Dirichlet parameter of Algorithm 2, > 0: one for all rows or one per row.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The Corollary 1 bound L_i of each row (0 for a row with one transition).

    Raises
    ------
    ValueError
        If ``counts`` is not one square matrix, holds NaN, an infinity, a negative or
        non-whole entry, or has an all-zero row (``check_counts``); if ``k`` is not > 0,
        or is neither one number nor one per row; or if a parameter k_i C_ij is below
        the smallest normal double; or if a row total N_i overflows (counts near 1e308)
        or is 2**53 or more (not exact in double precision).
    TypeError
        If an entry of ``counts`` or ``k`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.row_kl_bounds([[30, 10], [5, 55]], 100.0).round(4)
    array([0.0053, 0.0055])
    """
    arr, k_rows, _ = _row_design(counts, k, None)
    N = arr.sum(axis=1)
    if not np.all(np.isfinite(N)):
        raise ValueError("counts: a row total N_i overflows (counts near 1e308); Corollary 1 "
                         "needs N_i as a number")
    N = _checks.exact_row_totals("counts", arr)
    n_i = (arr > 0).sum(axis=1)
    out = np.zeros(arr.shape[0])
    many = n_i >= 2
    if np.any(many):
        out[many] = kl_bound(k_rows[many], N[many], n_i[many])
    return out

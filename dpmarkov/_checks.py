"""The one input-validation layer of the package, and its boundary (``public``).

Policy (issue 10, section 2): every public function, for every input, returns a
finite, in-domain result or raises ``ValueError`` / ``TypeError`` whose message
names the parameter, the offending value and the rule it breaks, e.g.
``k=10.0 is below 3/(2*eta)=20.55 (Assumption 4)``.  Nothing is clipped, coerced
or returned as NaN: a guarantee computed from a bad input would be a wrong number.

What the checks here reject, once for every module:

* numbers that are not real numbers: ``bool`` (``True`` is not the number 1 here),
  complex values (never truncated to their real part), strings and bytes (never
  parsed), ``None``, dates and other objects;
* Python integers too large for a double (``10**400``), NaN and infinities;
* ragged nested lists, a 0-d value where an array is meant, and an array where
  one number is meant;
* seeds that are not ``None``, an int, a ``SeedSequence`` or a ``Generator``
  (``rng=True`` is an error, not seed 1); sizes that are not whole numbers
  (``size=1.7``, ``size='3'``).

``public`` is the package boundary: every public function is wrapped by it.  Inside
it, any ``RuntimeWarning``, ``IntegrationWarning`` or ``ComplexWarning`` is an error,
and a non-finite result is refused, so neither a stray warning nor a NaN can reach
a user.  The functions fix such root causes in their bodies (log-space arithmetic,
rescaling); the boundary only guarantees that a case nobody foresaw fails loudly,
with a ``ValueError`` naming every argument, instead of returning a wrong number.
Book: chapter "Private transition matrices" (the policy) and every chapter's code.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import reprlib
import sys
import warnings

import numpy as np

#: Largest number of entries of an array a function may take or allocate (2**28 doubles =
#: 2 GiB); beyond it the call is refused instead of failing with MemoryError.
MAX_ELEMENTS = 2**28
#: The smallest positive normal double: parameters below it lose precision as subnormals.
TINY = float(np.finfo(float).tiny)

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxlist = _short.maxtuple = 6


def show(value) -> str:
    """A short repr of ``value`` for an error message (arrays are abbreviated)."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=6, edgeitems=2, max_line_width=70)
    return _short.repr(value)


def first_bad(values: np.ndarray, bad: np.ndarray):
    """The first offending entry of ``values`` where the mask ``bad`` is true."""
    value = np.broadcast_to(values, np.shape(bad))[bad].flat[0]
    return value.item() if hasattr(value, "item") else value


# ------------------------------------------------------------------ numbers and arrays
def real_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float array, refusing everything that is not a real number."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} is a bool: a number is meant here")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}={value!r} is a string: pass a number, not text")
    try:
        if isinstance(value, (np.ndarray, float, int)):
            arr = np.asarray(value)                # no nesting: nothing to warn about
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")    # e.g. numpy's ragged-array deprecation
                arr = np.asarray(value)
    except (ValueError, TypeError, Warning) as err:
        raise ValueError(f"{name}={show(value)} is not a rectangular array of numbers "
                         f"(nested lists of unequal length?): {err}") from err
    if arr.dtype == np.float64:                    # the common case: nothing to refuse
        return arr
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{name}={show(value)} is boolean: numbers are meant here")
    if kind == "c":
        raise TypeError(f"{name}={show(value)} is complex: a real number is meant "
                        "(the imaginary part is never dropped silently)")
    if kind in "USa":
        raise TypeError(f"{name}={show(value)} holds text: pass numbers, not strings")
    if kind in "mMV":
        raise TypeError(f"{name}={show(value)} has dtype {arr.dtype}: numbers are meant")
    if kind == "O":
        flat = arr.ravel()
        for item in flat:
            if (isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real)):
                raise TypeError(f"{name} contains {show(item)} ({type(item).__name__}): "
                                "every entry must be a real number")
        out = np.empty(arr.shape, dtype=float)
        for i, item in enumerate(flat):
            try:
                out.flat[i] = float(item)
            except OverflowError as err:
                raise ValueError(f"{name} contains the integer {show(item)}, too large for a "
                                 "double (the largest is about 1.8e308)") from err
        return out
    if kind not in "iuf":
        raise TypeError(f"{name}={show(value)} has dtype {arr.dtype}: numbers are meant")
    with np.errstate(over="ignore"):               # float128 beyond 1.8e308 -> inf, caught below
        return arr.astype(float, copy=False)


def as_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float array of real, finite numbers (see the module docstring)."""
    arr = real_float_array(name, value)
    if arr.size and not np.isfinite(arr).all():
        bad = first_bad(arr, ~np.isfinite(arr))
        raise ValueError(f"{name} contains {bad!r}: every entry must be finite")
    if arr.size > MAX_ELEMENTS:
        raise ValueError(f"{name} has {arr.size} entries: at most {MAX_ELEMENTS} are handled")
    return arr


def scalar(name: str, value) -> float:
    """One real, finite number (an array of shape () only)."""
    arr = as_float_array(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name}={show(value)} has shape {arr.shape}: one number is meant")
    return float(arr)


def array(name: str, value, *, min_ndim: int = 1, max_ndim: int | None = None) -> np.ndarray:
    """A float array of real, finite numbers with ``min_ndim <= ndim <= max_ndim``.

    A 0-d value where a vector is meant is an error (it would otherwise fail later
    with an ``IndexError``), as is an empty last axis.
    """
    arr = as_float_array(name, value)
    if arr.ndim < min_ndim:
        what = "a vector" if min_ndim == 1 else f"an array with at least {min_ndim} axes"
        raise ValueError(f"{name}={show(value)} has shape {arr.shape}: {what} is meant")
    if max_ndim is not None and arr.ndim > max_ndim:
        raise ValueError(f"{name} has shape {arr.shape}: at most {max_ndim} axes are allowed")
    if arr.ndim and arr.shape[-1] == 0:
        raise ValueError(f"{name} has shape {arr.shape}: it is empty")
    return arr


def square_matrix(name: str, value) -> np.ndarray:
    """A float array of square matrices (..., n, n), n >= 1."""
    arr = as_float_array(name, value)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] == 0:
        raise ValueError(f"{name} has shape {arr.shape}: expected a square matrix (..., n, n) "
                         "with n >= 1")
    return arr


def positive(name: str, value) -> np.ndarray:
    """Finite and strictly positive, elementwise."""
    arr = as_float_array(name, value)
    bad = arr <= 0
    if bad.any():
        raise ValueError(f"{name}={first_bad(arr, bad)!r} must be > 0")
    return arr


def at_least_tiny(name: str, value: np.ndarray, derived: np.ndarray, what: str) -> None:
    """Refuse a ``value`` whose ``derived`` parameters fall below the smallest normal double."""
    bad = derived < TINY
    if bad.any():
        raise ValueError(f"{name}={first_bad(np.broadcast_to(value, bad.shape), bad)!r} gives "
                         f"{what}={first_bad(derived, bad)!r}, below the smallest normal double "
                         f"{TINY:.3g}: too small to compute with")


def positive_scalar(name: str, value) -> float:
    """One real, finite number > 0 (an array of shape () only)."""
    v = scalar(name, value)
    if not v > 0:
        raise ValueError(f"{name}={v!r} must be > 0")
    return v


def whole_number(name: str, value, lowest: int) -> int:
    """One whole number >= ``lowest`` (an int or an integral float; shape () only)."""
    arr = integer_at_least(name, value, lowest)
    if arr.ndim != 0:
        raise ValueError(f"{name}={show(value)} has shape {arr.shape}: one number is meant")
    return int(arr)


def integer_at_least(name: str, value, lowest: int) -> np.ndarray:
    """Whole numbers (int or integral float) that are >= ``lowest``."""
    arr = as_float_array(name, value)
    bad = arr != np.rint(arr)
    if bad.any():
        raise ValueError(f"{name}={first_bad(arr, bad)!r} must be a whole number")
    bad = arr < lowest
    if bad.any():
        raise ValueError(f"{name}={first_bad(arr, bad)!r} must be >= {lowest}")
    return arr


def whole(name: str, value, lowest: int, *, highest: int | None = None) -> int:
    """One Python int >= ``lowest``: an int or a numpy integer, never a bool, float or text."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}={show(value)} must be an int (a whole number >= {lowest}); "
                        f"got {type(value).__name__}")
    v = int(value)
    if v < lowest:
        raise ValueError(f"{name}={v!r} must be a whole number >= {lowest}")
    if highest is not None and v > highest:
        raise ValueError(f"{name}={v!r} must be at most {highest}")
    return v


def length(name: str, n: int) -> int:
    """A length ``n`` of an array to build: at most ``MAX_ELEMENTS`` (no hang, no MemoryError)."""
    if n > MAX_ELEMENTS:
        raise ValueError(f"{name}={n!r} would build an array of {n} entries: at most "
                         f"{MAX_ELEMENTS} are handled")
    return n


def flag(name: str, value) -> bool:
    """A bool (``True``/``False``), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={show(value)} must be True or False")
    return bool(value)


def choice(name: str, value, options) -> str:
    """One of the strings ``options``."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name}={show(value)} must be one of {', '.join(map(repr, options))}")
    return value


def size_shape(size, *, lowest: int = 1, per_draw: int = 1) -> tuple:
    """``size`` of a sampler as a shape: None -> (), an int -> (size,), a tuple of ints.

    The output (``per_draw`` numbers a draw) must fit in ``MAX_ELEMENTS`` doubles.
    """
    if size is None:
        return ()
    parts = size if isinstance(size, tuple) else (size,)
    shape = tuple(whole("size", s, lowest) for s in parts)
    total = math.prod(shape) * per_draw              # Python ints: exact
    if total > MAX_ELEMENTS:
        raise ValueError(f"size={size!r} asks for {total} numbers: at most {MAX_ELEMENTS} "
                         "(2 GiB) per call")
    return shape


def generator(rng) -> np.random.Generator:
    """The seed rule: None -> fresh OS entropy; an int >= 0 or a SeedSequence -> seeded;
    a Generator as is.  A bool is an error (``rng=True`` is not seed 1)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng={rng!r} is a bool: pass None (fresh entropy), an int seed, "
                        "a SeedSequence or a numpy.random.Generator")
    if isinstance(rng, (int, np.integer)) and rng < 0:
        raise ValueError(f"rng={rng!r}: an int seed must be >= 0")
    if rng is None or isinstance(rng, (int, np.integer, np.random.SeedSequence)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng={show(rng)} must be None, an int seed, a SeedSequence or a "
                    "numpy.random.Generator")


def bool_matrix(name: str, value, shape: tuple) -> np.ndarray:
    """A boolean array of exactly ``shape`` (e.g. a support or feasibility mask)."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as err:
        raise ValueError(f"{name}={show(value)} is not a rectangular boolean array") from err
    if arr.dtype != bool:
        raise TypeError(f"{name} must be a boolean array (True = possible), got dtype "
                        f"{arr.dtype}")
    if arr.shape != tuple(shape):
        raise ValueError(f"{name} has shape {arr.shape}: expected {tuple(shape)}")
    return arr


# ------------------------------------------------------------------ the paper's data
def counts_array(name: str, counts, *, min_categories: int = 2) -> np.ndarray:
    """Category counts along the last axis: finite, non-negative whole numbers.

    Every vector along the last axis must hold at least one record (an empty
    database has no count vector, eq. (3)).
    """
    arr = as_float_array(name, counts)
    if arr.ndim == 0:
        raise ValueError(f"{name}={show(counts)} must be an array of counts, one per category")
    if arr.shape[-1] < min_categories:
        raise ValueError(
            f"{name} has {arr.shape[-1]} categories: at least {min_categories} are needed")
    bad = arr < 0
    if np.any(bad):
        raise ValueError(f"{name} contains {first_bad(arr, bad)!r}: counts must be >= 0")
    bad = arr != np.rint(arr)
    if np.any(bad):
        raise ValueError(
            f"{name} contains {first_bad(arr, bad)!r}: counts must be whole numbers")
    if arr.size == 0:
        raise ValueError(f"{name} has shape {arr.shape}: there is no count vector in it")
    with np.errstate(over="ignore"):              # an overflowing total is still > 0
        totals = arr.sum(axis=-1)
    if np.any(totals == 0):
        where = np.argwhere(np.atleast_1d(totals == 0))[0]
        at = "" if arr.ndim == 1 else f" at index {tuple(int(i) for i in where)}"
        raise ValueError(f"{name}{at} sums to 0: an empty database has no count vector (eq. 3)")
    return arr


def proportions(arr: np.ndarray) -> np.ndarray:
    """counts / N along the last axis, also when N overflows (counts near 1e308)."""
    with np.errstate(over="ignore"):
        total = arr.sum(axis=-1, keepdims=True)
    if np.all(np.isfinite(total)):
        return arr / total
    scaled = arr / arr.max(axis=-1, keepdims=True)
    return scaled / scaled.sum(axis=-1, keepdims=True)


def exact_row_totals(name: str, arr: np.ndarray) -> np.ndarray:
    """The row totals N_i of a checked count matrix, refused unless each is below 2**53.

    Whole counts >= 0 sum exactly in any order while the total is below 2**53; from 2**53
    on a float total is rounded (counts 2**52 + 1 and 2**52 give 2**53, not 2**53 + 1), and
    the bounds that use N_i would rest on a number that is not the data's.
    """
    with np.errstate(over="ignore"):
        N = arr.sum(axis=-1)
    bad = ~(N < 2.0 ** 53)
    if np.any(bad):
        i = int(np.flatnonzero(np.ravel(bad))[0])
        raise ValueError(f"{name} row {i} sums to N_i={float(np.ravel(N)[i]):.17g} (rounded): a row "
                         "total must be below 2**53 = 9007199254740992 to be exact in double "
                         "precision")
    return N


def eta_ok(eta) -> np.ndarray:
    """Assumption 3: 0 < eta < 1/4."""
    arr = as_float_array("eta", eta)
    bad = (arr <= 0) | (arr >= 0.25)
    if bad.any():
        raise ValueError(f"eta={first_bad(arr, bad)!r} must satisfy 0 < eta < 1/4 (Assumption 3)")
    return arr


def k_meets_assumption_4(k: np.ndarray, eta: np.ndarray) -> None:
    """Assumption 4: k >= 3/(2*eta) (a relative slack of 1e-12 absorbs rounding)."""
    k_min = 1.5 / eta
    bad = k < k_min * (1 - REL_SLACK)
    if bad.any():
        kb = first_bad(np.asarray(k), bad)
        mb = first_bad(np.asarray(k_min), bad)
        raise ValueError(f"k={kb!r} is below 3/(2*eta)={mb:.6g} (Assumption 4)")


def gamma_ok(gamma, n: np.ndarray) -> np.ndarray:
    """Assumption 2 (gamma <= 1/(n-1)) and the stricter gamma < 1/n.

    The paper allows gamma up to 1/(n-1), but for gamma >= 1/n the set
    Omega_1 = {x : x_i >= gamma} is empty or a single point, so delta = 1 and
    there is no guarantee: such gamma are rejected too (book, Preliminaries).
    """
    g = positive("gamma", gamma)
    upper = 1.0 / (n - 1)
    bad = g > upper
    if bad.any():
        raise ValueError(
            f"gamma={first_bad(g, bad)!r} exceeds 1/(n-1)={first_bad(upper, bad):.6g} "
            "(Assumption 2)")
    bad = g >= 1.0 / n
    if bad.any():
        raise ValueError(
            f"gamma={first_bad(g, bad)!r} is >= 1/n={first_bad(1.0 / n, bad):.6g}: "
            "then Omega_1 = {x : every x_i >= gamma} has probability 0 and delta = 1 "
            "(Assumption 2 as printed allows it; the book requires gamma < 1/n)")
    return g


#: Rounding policy for the borders of Assumptions 3 and 4.  eta*N and 3/(2*eta) are float
#: results (eta = 0.07 is stored as 0.07000000000000000666..., so 0.07*100 = 7.000000000000001);
#: a count c meets Assumption 3 when c >= eta*N*(1 - REL_SLACK) and k meets Assumption 4 when
#: k >= 3/(2*eta)*(1 - REL_SLACK).  The slack is below one record for every N < 1e12 and
#: far below any k a user would type, and every guarantee is computed for the minimum
#: count ``min_count`` this policy gives, so the slack never makes a bound unsound.
REL_SLACK = 1e-12


def min_count(eta, N) -> np.ndarray:
    """The fewest records a category may hold under Assumption 3: ceil(eta*N) (policy above).

    The smallest integer m with m >= eta*N*(1 - REL_SLACK): for eta*N = 7.5 it is 8, for
    eta*N = 7 (also when the float product is 7.000000000000001) it is 7.  The one rule
    every function of the package uses (book: "delta", "The exact worst case").
    """
    return np.ceil(np.asarray(eta, float) * np.asarray(N, float) * (1 - REL_SLACK))


def design_ok(eta: np.ndarray, N: np.ndarray, n: np.ndarray) -> None:
    """Some count vector of N records in n categories has every count >= eta*N."""
    smallest = min_count(eta, N)
    bad = n * smallest > N
    if bad.any():
        raise ValueError(
            f"no count vector of N={first_bad(N, bad):.0f} records in n={first_bad(n, bad):.0f} "
            f"categories has every count >= eta*N with eta={first_bad(eta, bad)!r} "
            "(Assumption 3 cannot hold)")


def finite_result(name, out, k):
    """A privacy number that exceeds the float range is an error naming k, never inf or NaN."""
    out = np.asarray(out, float)
    if not np.isfinite(out).all():
        bad = ~np.isfinite(out)
        raise ValueError(
            f"k={first_bad(np.asarray(k, float), bad)!r} gives {name} beyond the "
            "largest float (1.8e308): no release can use it; choose a smaller k")
    return out if out.ndim else float(out)


def k_scale_ok(k, N, where=True):
    """k/N (the step h of every increment) must be a normal float: subnormal k is rejected.

    Checked where ``where`` holds.
    """
    bad = (np.asarray(k, float) / np.asarray(N, float) < np.finfo(float).tiny) & where
    if np.any(bad):
        raise ValueError(
            f"k={first_bad(np.asarray(k, float), bad)!r} is so small that "
            f"k/N={first_bad(np.asarray(k / N, float), bad)!r} underflows below the "
            "smallest normal float (2.2e-308): the privacy loss cannot be evaluated there")


def theorem1_design(k, eta, N, n, gamma, *, assumption_4=True):
    """Validate and broadcast (k, eta, N, n, gamma) against Assumptions 2-4 (4 optional)."""
    k = positive("k", k)
    eta = eta_ok(eta)
    N = integer_at_least("N", N, 2)
    n = integer_at_least("n", n, 2)
    gamma = gamma_ok(gamma, n)
    design_ok(eta, N, n)
    if assumption_4:
        k_meets_assumption_4(k, eta)
    return k, eta, N, n, gamma


def theorem1_flat_design(k, eta, N, n, gamma):
    """``theorem1_design``, then the five parameters broadcast and flattened.

    Returns (shape, [k, eta, N, n, gamma]), each a 1-d float array of the broadcast size:
    the form the cores of ``privacy.epsilon``, ``exit_probability.delta`` and the
    baselines' calibrations work on.
    """
    k, eta, N, n, gamma = theorem1_design(k, eta, N, n, gamma)
    shape = np.broadcast(k, eta, N, n, gamma).shape
    return shape, [(v if v.shape == shape else np.broadcast_to(v, shape)).ravel()
                   for v in (k, eta, N, n, gamma)]


# ------------------------------------------------------------------ the boundary
#: Warnings that must never reach a user: inside ``public`` they are errors.  SciPy's
#: ``IntegrationWarning`` joins them once ``scipy.integrate`` is imported (see
#: ``numeric_warnings``): the package itself does not import it (0.9 s at start-up).
NUMERIC_WARNINGS = (RuntimeWarning, np.exceptions.ComplexWarning)


def numeric_warnings() -> tuple:
    """``NUMERIC_WARNINGS``, plus ``IntegrationWarning`` if anything imported scipy.integrate.

    A warning class whose module was never imported cannot be raised, so this is the
    same set as listing it always, without importing scipy.integrate at start-up.
    """
    integrate = sys.modules.get("scipy.integrate")
    extra = getattr(integrate, "IntegrationWarning", None)
    return NUMERIC_WARNINGS if extra is None else NUMERIC_WARNINGS + (extra,)


class NumericalFailure(ValueError):
    """A public function met a case it cannot compute in double precision."""


def _all_finite(result) -> bool:
    """Whether every number in ``result`` (array, float, tuple of them) is finite."""
    if isinstance(result, (bool, np.bool_, str, bytes)) or result is None:
        return True
    if isinstance(result, float):                  # also numpy.float64
        return math.isfinite(result)
    if isinstance(result, (np.floating, np.ndarray)):
        arr = np.asarray(result)
        return arr.dtype.kind not in "fc" or bool(np.isfinite(arr).all())
    if isinstance(result, tuple):
        return all(_all_finite(r) for r in result)
    return True


def public(func=None, *, finite: bool = True):
    """Decorator for every public function: the package boundary of the policy above.

    Calls ``func`` with numeric warnings (``numeric_warnings()``) raised as errors and
    numpy's floating-point errors reported (``np.errstate(over, invalid, divide)``
    as warnings, hence errors, unless the body handles them itself).  A warning,
    an ``OverflowError``/``ZeroDivisionError``/``FloatingPointError`` or (with
    ``finite=True``) a result holding NaN or an infinity becomes a
    ``NumericalFailure`` (a ``ValueError``) that names every argument and value.
    """
    if func is None:
        return functools.partial(public, finite=finite)
    signature = inspect.signature(func)

    def failure(args, kwargs, what):
        try:
            bound = signature.bind(*args, **kwargs)
            shown = ", ".join(f"{k}={show(v)}" for k, v in bound.arguments.items())
        except TypeError:
            shown = ", ".join([show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()])
        return NumericalFailure(f"{func.__name__}({shown}): {what}; no finite result in double "
                                "precision for these arguments (every result must be finite)")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        numeric = numeric_warnings()
        with warnings.catch_warnings():
            for category in numeric:
                warnings.simplefilter("error", category)
            try:
                result = func(*args, **kwargs)
            except numeric as err:
                raise failure(args, kwargs, f"{type(err).__name__}: {err}") from err
            except (OverflowError, ZeroDivisionError, FloatingPointError) as err:
                raise failure(args, kwargs, f"{type(err).__name__}: {err}") from err
        if finite and not _all_finite(result):
            raise failure(args, kwargs, "the result is not finite")
        return result

    wrapper.__signature__ = signature
    return wrapper

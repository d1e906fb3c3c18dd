"""Many releases: composing the Dirichlet mechanism, from basic composition to Google's dp_accounting.

A city that publishes its taxi chain every month composes Algorithm 1 (or 2) T times.
Four accountants, from loosest to tightest:

- ``basic_composition``: T times Theorem 1's (epsilon, delta) (Dwork and Roth 2014, Thm 3.16);
- ``advanced_composition``: Dwork, Rothblum and Vadhan (2010), with a slack delta';
- ``DirichletRdpAccountant``: dp_accounting's RDP accountant fed with the closed-form Renyi
  DP curve ``renyi.rdp_epsilon`` (Mironov 2017);
- ``DirichletPldAccountant``: dp_accounting's privacy-loss-distribution accountant fed with a
  pessimistic discretisation of the exact privacy loss of the worst adjacent pair
  (``privacy_loss_distribution``).

For n >= 3 categories the worst pair (counts (m, m+1) -> (m+1, m)) dominates every other
adjacent pair: every other pair's two laws are a post-processing of its two laws (book:
"Many releases"), so its privacy loss distribution composes into a valid guarantee for any
sequence of releases.  The adjacency is Definition 3's: one record changes category.
Book: chapter "Many releases".
"""
from __future__ import annotations

import collections
import functools
import math
from fractions import Fraction

import attr
import numpy as np
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import rdp_privacy_accountant
from scipy.special import betaln, logit

from . import _checks
from .loss import loss_data_term
from ._numerics import U, above_floor, log_lower_tail, outward
from ._pairs import rdp_design
from .renyi import rdp_epsilon


@attr.define(frozen=True)
class DirichletDpEvent(dp_event.DpEvent):
    """One release of Algorithm 1: Dir(k c/N) for a count vector of N records in n categories,
    every count >= min_count (Assumption 3 with min_count = ceil(eta N))."""
    k: float
    N: int
    n: int
    min_count: int


def _event_design(k, N, n, min_count):
    """The event's parameters, checked; n >= 3 (the dominating pair is proved for n >= 3)."""
    k, N, n, m = rdp_design(k, N, n, min_count)
    if n < 3:
        raise ValueError(f"n={n}: the privacy loss distribution needs n >= 3 categories, where "
                         "one adjacent pair dominates all others (book: Many releases); for n = 2 "
                         "use the RDP accountant")
    return k, N, n, m


def _log_odds_quantile(q, a, b):
    """log(z / (1 - z)) for the q-quantile z of Beta(a, b), also when z underflows.

    For a tiny quantile, I_z(a, b) = z^a / (a B(a, b)) (1 + O(z)), so
    log z = [log q + log a + log B(a, b)] / a.
    """
    from scipy.stats import beta as beta_law    # imported here: scipy.stats costs 0.6 s
    z = beta_law.ppf(q, a, b)
    if z > 1e-250:
        return float(logit(z))
    return float((math.log(q) + math.log(a) + betaln(a, b)) / a)


#: The most bins a privacy loss distribution may have (a loss range of 2000 nats at the
#: default discretization 1e-3): dp_accounting holds them in a dict and an array.
MAX_BINS = 2_000_000


@_checks.public
def privacy_loss_distribution(k, N, n, min_count, *, discretization=1e-3, tail_mass=1e-15):
    """dp_accounting's PrivacyLossDistribution of one release, pessimistic (an upper bound).

    Pessimistic in the losses (each rounded up to its bin); the bins' probabilities are
    SciPy's Beta tails (``log_lower_tail``), accurate to about 1e-12 relative at moderate
    shapes and not rounded outward.

    The loss of the worst pair c = (.., m, m+1, ..) -> c' = (.., m+1, m, ..) is
    L = D + h log(x_j / x_i) with D = ``loss_data_term(m, m+1, k, N)`` and h = k/N; under
    Dir(k c/N), Y = x_i/(x_i + x_j) is Beta(k m/N, k(m+1)/N).  Its law is discretised on
    multiples of ``discretization`` by rounding every loss up (pessimistic), the lower tail
    below probability ``tail_mass``/2 is moved up into the first bin, and the upper tail
    above 1 - ``tail_mass``/2 is counted as infinite loss.  The reversed pair is the same
    pair with i and j swapped, so the distribution is symmetric.
    """
    k, N, n, m = _event_design(k, N, n, min_count)
    step = _checks.positive_scalar("discretization", discretization)
    tail = _checks.positive_scalar("tail_mass", tail_mass)
    if tail >= 1e-3:
        raise ValueError(f"tail_mass={tail!r} must be < 1e-3")
    h = k / N
    a_i, a_j = k * m / N, k * (m + 1) / N
    data = loss_data_term(m, m + 1, k, N)
    # With Z = 1 - Y ~ Beta(a_j, a_i): F(t) = P(L <= t) = P(Z <= expit((t - D)/h)) and
    # 1 - F(t) = P(Y < expit((D - t)/h)); both tails are taken as lower tails, accurately.
    t_lo = data + h * _log_odds_quantile(tail / 2, a_j, a_i)
    t_hi = data - h * _log_odds_quantile(tail / 2, a_i, a_j)
    k_lo, k_hi = math.ceil(t_lo / step), math.ceil(t_hi / step)
    if k_hi - k_lo + 1 > MAX_BINS:             # estimated before anything is allocated
        raise ValueError(f"k={k!r}, N={N!r}, discretization={step!r}: the loss spans "
                         f"{t_hi - t_lo:.4g} nats (from {t_lo:.6g}), {k_hi - k_lo + 1:.3g} bins of the "
                         f"discretization; at most {MAX_BINS} are handled (raise discretization)")
    # [book:privacy_loss_distribution]
    grid = np.arange(k_lo, k_hi + 1) * step
    # both tails in logarithms: expit((t - D)/h) underflows for t - D > 745 h,
    # yet its Beta tail I_z(a, b) ~ z^a / (a B(a, b)) is far from 0 when a is
    # small; cdf is F(t), sf is 1 - F(t)
    z_lo = -np.logaddexp(0.0, (data - grid) / h)
    z_hi = -np.logaddexp(0.0, (grid - data) / h)
    cdf = np.exp(log_lower_tail(a_j, a_i, z_lo))
    sf = np.exp(log_lower_tail(a_i, a_j, z_hi))
    # mass of (t_{k-1}, t_k]: difference of the smaller of F and 1 - F, for
    # accuracy
    use_cdf = cdf[1:] <= 0.5
    mass = np.maximum(np.where(use_cdf, cdf[1:] - cdf[:-1], sf[:-1] - sf[1:]), 0.0)
    # [/book:privacy_loss_distribution]
    probs = {int(k_lo): float(cdf[0])}                       # loss <= t_lo, rounded up
    for idx, p in zip(range(k_lo + 1, k_hi + 1), mass):
        if p > 0:
            probs[int(idx)] = float(p)
    infinity = float(max(sf[-1], 0.0))                       # loss above t_hi
    return pld_lib.PrivacyLossDistribution.create_from_rounded_probability(
        probs, infinity, step, pessimistic_estimate=True)


#: The RDP accountant's default orders: dense up to 64, then geometric (5% apart) up to
#: 1e12.  A small loss per release is best converted at a large order (about 900 for
#: k = 3, N = 1e4, min_count = 1000; 1e5 at N = 1e6); orders stopping at 64 gave 15 times
#: the epsilon there.  Orders >= min_count + 1 have infinite RDP and are skipped.
DEFAULT_ORDERS = np.concatenate([np.linspace(1.01, 2.0, 100), np.linspace(2.05, 64, 400),
                                 np.geomspace(64, 1e12, 400)[1:]])


#: Distinct releases whose Renyi curve or privacy loss distribution is kept (per process).
CACHED_RELEASES = 64


def _kept(function, *args):
    """``function(*args)`` through its cache; arguments that cannot be keys (an array
    where a number is meant) go to the uncached function, whose checks name them.  The
    caches are typed, so a bool is never served the result of the equal int."""
    try:
        hash(args)
    except TypeError:
        return function.__wrapped__(*args)
    return function(*args)


@functools.lru_cache(maxsize=CACHED_RELEASES, typed=True)
def _rdp_curve(orders: bytes, k, N, n, min_count) -> np.ndarray:
    """``rdp_epsilon`` at the orders (float64 bytes) of one release, computed once, read-only."""
    curve = rdp_epsilon(np.frombuffer(orders), k, N, n, min_count)
    curve.setflags(write=False)
    return curve


@functools.lru_cache(maxsize=CACHED_RELEASES, typed=True)
def _release_pld(k, N, n, min_count, discretization):
    """``privacy_loss_distribution`` of one release, computed once (dp_accounting's PLDs are
    never changed in place: composing makes a new one)."""
    return privacy_loss_distribution(k, N, n, min_count, discretization=discretization)


def _by_multiplicity(accountant, event, count, do_compose):
    """A ``ComposedDpEvent`` composed release by distinct release: equal ``DirichletDpEvent``
    are counted and each distinct one is composed once with its multiplicity (composition is
    commutative, so this is the same guarantee); other events go to the parent in order."""
    if not do_compose:             # the check pass of ``compose``: nothing to count
        for e in event.events:
            failed = accountant._maybe_compose(e, count, False)
            if failed is not None:
                return failed
        return None
    distinct, first = collections.Counter(), {}
    for e in event.events:
        key = _release_key(e)
        if key is None:
            failed = accountant._maybe_compose(e, count, do_compose)
            if failed is not None:
                return failed
        else:
            distinct[key] += 1
            first.setdefault(key, e)
    for key, times in distinct.items():
        failed = accountant._maybe_compose(first[key], count * times, do_compose)
        if failed is not None:
            return failed
    return None


def _release_key(event):
    """What makes two ``DirichletDpEvent`` the same release: the type and value of each
    field (k = True and k = 1 are not the same: the first is refused by the checks);
    None for another event or a field that cannot be a key (an array)."""
    if not isinstance(event, DirichletDpEvent):
        return None
    key = tuple((type(v), v) for v in (event.k, event.N, event.n, event.min_count))
    try:
        hash(key)
    except TypeError:
        return None
    return key


class DirichletRdpAccountant(rdp_privacy_accountant.RdpAccountant):
    """dp_accounting's RDP accountant that also accounts for ``DirichletDpEvent``.

    Each event adds ``rdp_epsilon(orders, k, N, n, min_count)`` to the curve, times its
    count; other events are handled as by the parent.  The curve of a release is computed
    once per process (the last ``CACHED_RELEASES`` distinct releases and orders are kept),
    and the equal releases of a ``ComposedDpEvent`` are composed once with their
    multiplicity.  Neighbouring relation: replace one record.  ``orders`` defaults to
    ``DEFAULT_ORDERS``, which reach the orders where a small per-release loss converts best.
    """

    def __init__(self, orders=None):
        if orders is None:
            orders = DEFAULT_ORDERS
        super().__init__(orders, NeighboringRelation.REPLACE_ONE)
        self._orders_key = np.ascontiguousarray(orders, dtype=np.float64).tobytes()

    def _maybe_compose(self, event, count, do_compose):
        if isinstance(event, DirichletDpEvent):
            if do_compose:
                self._rdp += count * _kept(_rdp_curve, self._orders_key, event.k, event.N,
                                           event.n, event.min_count)
            return None
        if isinstance(event, dp_event.ComposedDpEvent):
            return _by_multiplicity(self, event, count, do_compose)
        return super()._maybe_compose(event, count, do_compose)

    def _finite_part(self, target_delta):
        """The orders and curve without the orders of infinite RDP (every order >= 1, delta
        > 0, at least one finite value): there dp_accounting's conversion gives epsilon =
        inf, which is never its minimum, so leaving them out changes neither the epsilon
        nor the order it returns; otherwise the whole curve."""
        orders, rdp = np.asarray(self._orders), self._rdp
        keep = ~np.isposinf(rdp)
        if (not target_delta > 0 or keep.all() or not keep.any()
                or np.any(orders[~keep] < 1)):
            return self._orders, rdp
        return orders[keep], rdp[keep]

    def get_epsilon_and_optimal_order(self, target_delta):
        """The parent's epsilon and order, from the orders of finite RDP only (the same
        result: ``_finite_part``)."""
        return rdp_privacy_accountant.compute_epsilon(*self._finite_part(target_delta),
                                                      target_delta)

    def get_epsilon(self, target_delta):
        """The parent's epsilon, from the orders of finite RDP only (the same number)."""
        return self.get_epsilon_and_optimal_order(target_delta)[0]


class DirichletPldAccountant(pld_privacy_accountant.PLDAccountant):
    """dp_accounting's PLD accountant that also accounts for ``DirichletDpEvent`` (n >= 3).

    Each event composes ``privacy_loss_distribution`` of the worst pair ``count`` times
    (``self_compose``).  The distribution of a release is computed once per process (the
    last ``CACHED_RELEASES`` distinct releases are kept), the equal releases of a
    ``ComposedDpEvent`` are composed once with their multiplicity, and the first release
    composed into a fresh accountant replaces its identity distribution instead of being
    convolved with it (as dp_accounting used directly would do).
    """

    def __init__(self, discretization=1e-3):
        super().__init__(NeighboringRelation.REPLACE_ONE, discretization)
        self._identity = self._pld

    def _maybe_compose(self, event, count, do_compose):
        if isinstance(event, DirichletDpEvent):
            if do_compose:
                one = _kept(_release_pld, event.k, event.N, event.n, event.min_count,
                            self._value_discretization_interval)
                many = one.self_compose(count) if count > 1 else one
                self._pld = many if self._pld is self._identity else self._pld.compose(many)
            return None
        if isinstance(event, dp_event.ComposedDpEvent):
            return _by_multiplicity(self, event, count, do_compose)
        return super()._maybe_compose(event, count, do_compose)


def _releases(T) -> int:
    T = _checks.integer_at_least("T", T, 1)
    if T.ndim:
        raise ValueError(f"T={T!r} must be a scalar")
    return int(T)


def _rounded_up(value, exact):
    """The double ``value`` computed for the rational ``exact``, or the next double above it
    where its rounding went down (compared exactly, in fractions)."""
    return math.nextafter(value, math.inf) if Fraction(value) < exact else value


@_checks.public
def basic_composition(epsilon, delta, T):
    """(T epsilon, T delta): T releases, each (epsilon, delta)-DP (Dwork and Roth 2014, Thm 3.16).

    Each product is rounded up where its double falls below the real product, so neither
    level is understated (T delta capped at 1).
    """
    eps = _checks.scalar("epsilon", epsilon)
    d = _checks.scalar("delta", delta)
    if eps < 0 or not 0 <= d <= 1:
        raise ValueError(f"epsilon={eps!r} must be >= 0 and delta={d!r} in [0, 1]")
    T = _releases(T)
    return (_rounded_up(T * eps, T * Fraction(eps)),
            min(_rounded_up(T * d, T * Fraction(d)), 1.0))


@_checks.public
def advanced_composition(epsilon, delta, T, delta_slack):
    """Advanced composition (Dwork, Rothblum and Vadhan 2010; Dwork and Roth 2014, Thm 3.20).

    T releases, each (epsilon, delta)-DP, are (epsilon', T delta + delta_slack)-DP with
    epsilon' = sqrt(2 T log(1/delta_slack)) epsilon + T epsilon (e^epsilon - 1).  Both are
    rounded outward: epsilon' by 16u of itself (12u, and 4u for the last sum; its two
    positive terms carry at most about 5u each from the logarithm, the square root, expm1
    and the products), the delta by one double where its sum rounded down.
    """
    eps = _checks.scalar("epsilon", epsilon)
    d = _checks.scalar("delta", delta)
    s = _checks.scalar("delta_slack", delta_slack)
    if eps < 0 or not 0 <= d <= 1:
        raise ValueError(f"epsilon={eps!r} must be >= 0 and delta={d!r} in [0, 1]")
    if not 0 < s < 1:
        raise ValueError(f"delta_slack={s!r} must satisfy 0 < delta_slack < 1")
    T = _releases(T)
    eps_total = math.sqrt(-2 * T * math.log(s)) * eps + T * eps * math.expm1(eps)
    total = _rounded_up(T * d + s, T * Fraction(d) + Fraction(s))
    # (a subnormal epsilon' loses the relative margin: above_floor adds spacings there)
    eps_total = above_floor(outward(eps_total, 12.0 * U * eps_total), slack=4)
    return float(eps_total), min(total, 1.0)

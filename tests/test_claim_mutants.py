"""Claim checks that fail when the code they rest on has a one-line bug (issue 40, item 5).

tests/test_claims.py swaps whole functions for wrong ones; the checks below were not reached by
any realistic one-line bug (a comparison off at its edge, a floor for a ceil, a parameter
slipped).  Each row is such a bug, written as the function with that one line changed, and
the claims whose checks must notice it; each check's docstring names the bugs it guards against.
The eight checks of the issue: asm-2, asm-3, asm-4, lem-1, sec5-rate, sec6.2-N, fig-2, fig-3.
"""
from pathlib import Path

import numpy as np
import pytest

import dpmarkov.verify.claims as cl
from dpmarkov import _checks, accuracy, chain, composition, datasets
from dpmarkov.datasets import taxi
from dpmarkov.verify.claims import _shared

_privatize_chain = chain.privatize_chain
_load_taxi_counts = datasets.load_taxi_counts


def _gamma_ok(strict_edge=True, paper_only=False, upper_n=None):
    """``_checks.gamma_ok`` with one line changed (the comparisons of its two rules)."""
    def gamma_ok(gamma, n):
        g = _checks.positive("gamma", gamma)
        if np.any(g > 1.0 / (n - 1)):
            raise ValueError("gamma exceeds 1/(n-1)")
        if paper_only:
            return g
        limit = 1.0 / (n if upper_n is None else upper_n(n))
        if np.any(g >= limit if strict_edge else g > limit):
            raise ValueError("gamma >= 1/n")
        return g
    return gamma_ok


def _design_ok(strict=False):
    def design_ok(eta, N, n):
        smallest = _checks.min_count(eta, N)
        if np.any(n * smallest >= N if strict else n * smallest > N):
            raise ValueError("Assumption 3 cannot hold")
    return design_ok


def _min_count_floor(eta, N):
    return np.floor(np.asarray(eta, float) * np.asarray(N, float) * (1 + _checks.REL_SLACK))


def _k_slip(counts, k, **kw):                # every k_i 5 % too large: 5 % too little noise
    return _privatize_chain(counts, 1.05 * np.asarray(k), **kw)


def _swapped(*args, **kw):                  # trip_counts(DO, PU): pickup and drop-off swapped
    counts, zones = _load_taxi_counts(*args, **kw)
    return counts.T.copy(), zones


def _rows_not_trips(borough="Manhattan", *, years=None):  # weights= left out: rows counted
    import pandas as pd
    table = pd.read_csv(Path(taxi.__file__).parent / "data" / "taxi_trip_counts.csv")
    return taxi.trip_counts(table["PULocationID"], table["DOLocationID"], borough=borough)


def _vertex_weights_swapped(k, N, n, m):     # w = (1, n - 1) for (n - 1, 1)
    k, N, n, m = np.broadcast_arrays(k, N, n, m)
    C = np.stack([m / N, (N - (n - 1) * m) / N], axis=-1)
    return accuracy._eq8(k, C, np.stack([np.ones_like(n), n - 1], axis=-1))


def _vertex_two_records(k, N, n):            # kl_bound's vertex with m = 2 for m = 1
    return accuracy._kl_at_vertex(np.asarray(k, float), float(N), float(n), 2.0)


def _kron_reversed(*mechanisms):             # np.kron(M, out) for np.kron(out, M)
    out = np.ones((1, 1))
    for M in mechanisms:
        out = np.kron(np.asarray(M, float), out)
    return out


def _assumption_4_loose(k, eta):              # 1.0 / eta for 1.5 / eta
    bad = k < 1.0 / eta * (1 - _checks.REL_SLACK)
    if np.any(bad):
        raise ValueError("k is below 1/eta (Assumption 4)")


BUGS = [
    (_checks, "gamma_ok", _gamma_ok(paper_only=True), ["asm-2"]),     # Assumption 2 as printed
    (_checks, "gamma_ok", _gamma_ok(strict_edge=False), ["asm-2"]),   # > 1/n for >= 1/n
    (_checks, "gamma_ok", _gamma_ok(upper_n=lambda n: n + 1), ["asm-2"]),  # 1/(n+1) for 1/n
    (_checks, "design_ok", _design_ok(strict=True), ["asm-3"]),
    (_checks, "k_meets_assumption_4", _assumption_4_loose, ["asm-4"]),        # >= for >
    (_checks, "min_count", _min_count_floor, ["asm-3"]),               # floor for ceil
    (chain, "privatize_chain", _k_slip, ["fig-2", "fig-3"]),
    (datasets, "load_taxi_counts", _swapped, ["sec6.2-N"]),
    (composition, "compose_parallel", _kron_reversed, ["lem-1"]),
    (accuracy, "_kl_at_vertex", _vertex_weights_swapped, ["sec5-rate"]),
    (accuracy, "kl_bound", _vertex_two_records, ["sec5-rate"]),
    (datasets, "load_taxi_counts", _rows_not_trips, ["sec6.2-N"]),
]


@pytest.fixture(autouse=True)
def fresh_caches():
    """The registry caches the taxi chain and its Monte Carlo: a bug must see them anew."""
    _shared.clear_caches()
    yield
    _shared.clear_caches()


def _holds(cid):
    try:
        return bool(cl.get(cid).check()[1])
    except (ValueError, TypeError, FloatingPointError, IndexError):
        return False                                    # a crash also notices


@pytest.mark.parametrize("module, name, wrong, claims", BUGS,
                         ids=[f"{n}-{i}" for i, (_, n, _, _) in enumerate(BUGS)])
def test_a_one_line_bug_flips_the_claims_resting_on_it(monkeypatch, module, name, wrong, claims):
    for cid in claims:                                  # the fixture: they hold as shipped
        assert _holds(cid), cid
    monkeypatch.setattr(module, name, wrong)
    _shared.clear_caches()
    still = [cid for cid in claims if _holds(cid)]
    assert not still, f"{module.__name__}.{name} with a one-line bug, and {still} still hold"

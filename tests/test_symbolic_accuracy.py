"""Theorem 2 (eq. (8)) derived with SymPy for symbolic n, and the package held to the derivation.

Book: chapter "Expected KL divergence", section "A derivation for every n".
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import dpmarkov as dm
from dpmarkov.verify import highprec
from dpmarkov.verify import symbolic_accuracy as S


def test_gamma_mgf_and_sum_of_gammas():
    assert sp.simplify(S.gamma_mgf() - (1 - S.t) ** (-S.a)) == 0
    # the shape of a sum of n independent Gamma variables, n symbolic
    assert S.gamma_sum_shape() == sp.Sum(S.a_[S.j], (S.j, 1, S.n))


def test_beta_marginal_and_normaliser():
    beta_density = (S.x ** (S.a - 1) * (1 - S.x) ** (S.b - 1)
                    * sp.gamma(S.a + S.b) / (sp.gamma(S.a) * sp.gamma(S.b)))
    assert sp.simplify(S.beta_marginal() / beta_density) == 1
    assert sp.simplify(S.beta_normaliser() - sp.beta(S.a, S.b).rewrite(sp.gamma)) == 0


def test_beta_log_moment():
    assert sp.simplify(S.beta_log_moment()
                       - (sp.polygamma(0, S.a) - sp.polygamma(0, S.a + S.b))) == 0
    # and against quadrature of the defining integral at a point with a < 1 (density unbounded)
    # (x = w^(1/a) absorbs the factor x^(a-1); quadrature at 40 digits, compared to 25)
    with mp.workdps(40):
        av, bv = mp.mpf("0.7"), mp.mpf("3.2")
        quad = mp.quad(lambda w: mp.log(w) / av * (1 - w ** (1 / av)) ** (bv - 1), [0, 1]) / av
        derived = S.beta_log_moment().subs({S.a: sp.Rational(7, 10), S.b: sp.Rational(16, 5)})
        assert abs(quad / mp.beta(av, bv) - sp.N(derived, 30)) < mp.mpf(10) ** -25


def test_derivation_gives_eq8_for_every_n():
    assert S.matches_eq8()
    # the comparison has teeth: eq. (8) with psi(k + 1), or without log C_i, is not matched
    derived = S.expected_kl_derived().function
    for wrong in (S.C[S.i] * (sp.log(S.C[S.i]) + sp.polygamma(0, S.k + 1)
                              - sp.polygamma(0, S.k * S.C[S.i])),
                  S.C[S.i] * (sp.polygamma(0, S.k) - sp.polygamma(0, S.k * S.C[S.i]))):
        assert sp.simplify(sp.expand(derived - wrong)) != 0


def _cases():
    rng = np.random.default_rng(20260222)       # seeded: for testing only
    out = [([0.2, 0.3, 0.5], 20.6), ([0.02, 0.98], 1e-3), ([0.5, 0.5], 1e9),
           (list(np.array([28, 31, 21, 9, 9]) / 98), 20.6)]
    for _ in range(12):
        nn = int(rng.integers(2, 40))
        out.append((list(rng.dirichlet(np.ones(nn))), float(10 ** rng.uniform(-3, 9))))
    return out


@pytest.mark.parametrize("C, k", _cases())
def test_float_expected_kl_equals_the_derived_expression(C, k):
    # The derived expression is evaluated at 50 digits at the exact binary inputs, so it is the
    # truth for these inputs; dm.expected_kl sums n terms, each to a few ulps (its r(x) series
    # keeps them free of cancellation), hence 1e-13 relative.  Any change of the formula that moves
    # E[KL] by more than 1e-13 relative (psi(k+1) for psi(k), a dropped term of r's series at
    # k = 1e9, which is ~1e-10 relative) fails.
    truth = S.expected_kl_value(C, k)
    assert abs(dm.expected_kl(np.array(C), k) - truth) <= 1e-13 * truth


@pytest.mark.parametrize("C, k", [(["0.25", "0.125", "0.625"], "20.5"), (["0.5", "0.5"], "0.75"),
                                  (["0.0625"] * 8 + ["0.5"], "1048576")])
def test_highprec_twin_equals_the_derived_expression(C, k):
    # dyadic inputs: the twin (which reads str(value)) and the derivation see the same numbers,
    # so the only difference is rounding at 50-60 digits
    Cf, kf = [float(v) for v in C], float(k)
    truth = S.expected_kl_value(Cf, kf, dps=60)
    with mp.workdps(60):
        assert abs(highprec.expected_kl(Cf, kf) - truth) < mp.mpf(10) ** -45 * abs(truth)


def test_highprec_expected_kl_is_the_naive_transcription_bit_for_bit():
    # the twin evaluates psi(k) once instead of once per term; the value must not move at all
    # (a twin that dropped psi(k), or used psi(k + 1), would differ by far more than one ulp)
    rng = np.random.default_rng(7)
    for _ in range(20):
        C, kf = rng.dirichlet(np.ones(int(rng.integers(2, 30)))), 10 ** rng.uniform(-3, 9)
        with mp.workdps(highprec.DPS):
            Cm, km = [mp.mpf(str(v)) for v in C], mp.mpf(str(kf))
            naive = +mp.fsum(v * (mp.log(v) + mp.digamma(km) - mp.digamma(km * v)) for v in Cm)
        assert highprec.expected_kl(C, kf) == naive

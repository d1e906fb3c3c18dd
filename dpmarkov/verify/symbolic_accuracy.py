"""Theorem 2 (eq. (8)) derived with SymPy from the Dirichlet law, for a symbolic number n of categories.

The derivation has four steps, each a SymPy computation (no step is typed in as a result):

1. ``gamma_sum_shape``: the sum of independent Gamma(a_j, 1) variables, j = 1..n with n
   symbolic, is Gamma(sum_j a_j, 1) (the log of the product of their moment generating
   functions, each obtained by integrating the Gamma density).
2. ``beta_marginal``: if U ~ Gamma(a), V ~ Gamma(b) are independent, X = U / (U + V) has the density
   x^(a-1) (1-x)^(b-1) Gamma(a+b) / (Gamma(a) Gamma(b)) (change of variables, integrate out U + V).
   With step 1 (V = the sum of the other coordinates' Gamma variables), the coordinate X_i of
   Dir(a) is Beta(a_i, a_0 - a_i).  As a density integrates to one, the normalising
   constant is B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b).
3. ``beta_log_moment``: differentiating the integrand of B(a, b) under the integral gives
   E[log X] = d/da log B(a, b) = psi(a) - psi(a + b).
4. ``expected_kl_derived``: E[KL(C || C~)] = sum_i C_i log C_i - sum_i C_i E[log C~_i] with
   a_i = k C_i and a_0 = k sum_j C_j = k, for symbolic n: eq. (8).

``expected_kl_value`` evaluates the derived expression with mpmath, so that tests can hold
``dm.expected_kl`` and ``verify.highprec.expected_kl`` to it.  Book: chapter "Expected KL divergence",
section "A derivation for every n".
"""
from __future__ import annotations

from functools import lru_cache

import mpmath as mp
import sympy as sp

a, b, x, s, t = sp.symbols("a b x s t", positive=True)
k = sp.Symbol("k", positive=True)
c = sp.Symbol("c", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
# The Dirichlet parameters a_j (book: notation). Their label is the Symbol a itself (a label
# of its own loses the positivity through solve), so a substitution for a also rewrites every
# a_j already in an expression: substitute for a before a_ enters (expected_kl_derived).
a_ = sp.IndexedBase("a", positive=True)
C = sp.IndexedBase("C", positive=True)


def gamma_density(shape, var):
    """The Gamma(shape, 1) density at ``var``."""
    return var ** (shape - 1) * sp.exp(-var) / sp.gamma(shape)


@lru_cache(maxsize=None)
def gamma_mgf():
    """E exp(t U) for U ~ Gamma(a, 1) and t < 1, by integrating the density: (1 - t)^(-a)."""
    tt = sp.Symbol("tt", negative=True)          # t < 0 < 1: the integral converges
    mgf = sp.integrate(sp.exp(tt * x) * gamma_density(a, x), (x, 0, sp.oo), conds="none")
    return sp.simplify(mgf).subs(tt, t)


@lru_cache(maxsize=None)
def gamma_sum_shape():
    """Shape of sum_{j=1}^n U_j, U_j ~ Gamma(a_j) independent, n symbolic: sum_j a_j.

    The log-MGF of an independent sum is the sum of the log-MGFs; it equals the log-MGF of
    Gamma(shape) exactly when shape = sum_j a_j (solved for, not assumed).
    """
    log_mgf_sum = sp.expand_log(sp.Sum(sp.log(gamma_mgf().subs(a, a_[j])), (j, 1, n)),
                                force=True)
    shape = sp.Symbol("shape", positive=True)
    log_mgf_gamma = sp.expand_log(sp.log(gamma_mgf().subs(a, shape)), force=True)
    solution = sp.solve(sp.Eq(sp.simplify(log_mgf_sum), log_mgf_gamma), shape)
    if len(solution) != 1:
        raise ArithmeticError(f"expected one shape, SymPy found {solution!r}")
    return solution[0]


@lru_cache(maxsize=None)
def beta_marginal():
    """Density of X = U / (U + V), U ~ Gamma(a), V ~ Gamma(b) independent (change of variables).

    u = x s, v = (1 - x) s with Jacobian s; the factor depending on s integrates to Gamma(a + b).
    """
    u, v = sp.symbols("u v", positive=True)
    joint = gamma_density(a, u) * gamma_density(b, v)
    jacobian = sp.Matrix([x * s, (1 - x) * s]).jacobian([x, s]).det()
    in_xs = sp.powsimp(sp.expand_power_base(joint.subs({u: x * s, v: (1 - x) * s}) * jacobian,
                                            force=True), force=True)
    x_part, s_part = in_xs.as_independent(s)
    return sp.simplify(x_part * sp.integrate(s_part, (s, 0, sp.oo), conds="none"))


@lru_cache(maxsize=None)
def beta_normaliser():
    """B(a, b) = int_0^1 x^(a-1) (1-x)^(b-1) dx, read off the marginal density (it integrates to 1)."""
    kernel = x ** (a - 1) * (1 - x) ** (b - 1)
    return sp.simplify(kernel / beta_marginal())


@lru_cache(maxsize=None)
def beta_log_moment():
    """E[log X] for X ~ Beta(a, b): d/da log B(a, b), from differentiating under the integral.

    d/da [x^(a-1) (1-x)^(b-1)] = log(x) x^(a-1) (1-x)^(b-1), so d/da B = B * E[log X].
    """
    kernel = x ** (a - 1) * (1 - x) ** (b - 1)
    if sp.simplify(sp.diff(kernel, a) - sp.log(x) * kernel) != 0:
        raise ArithmeticError("the a-derivative of the Beta kernel is not log(x) times it")
    log_b = sp.expand_log(sp.log(beta_normaliser()), force=True)
    return sp.simplify(sp.diff(log_b, a))


@lru_cache(maxsize=None)
def expected_kl_derived():
    """E[KL(C || C~)] for C~ ~ Dir(k C) and symbolic n: a SymPy ``Sum`` over i = 1..n.

    E[log C~_i] is ``beta_log_moment`` at a = a_i, a + b = a_0 (the Beta marginal of
    step 2 with V the sum of the other coordinates, whose shape is ``gamma_sum_shape`` minus
    a_i); a_i = k C_i, and a_0 = k sum_i C_i = k because C sums to one.
    """
    # a_0 = sum_j a_j; substitute a first: a_ is labelled a
    a_0 = gamma_sum_shape()
    e_log = beta_log_moment().subs(a, a_[i]).subs(b, a_0 - a_[i])
    e_log = e_log.subs(a_0, k * sp.Sum(C[j], (j, 1, n)))
    e_log = e_log.subs(a_[i], k * C[i])
    # C is a count vector
    e_log = e_log.subs(sp.Sum(C[j], (j, 1, n)), 1)
    # KL(C || C~) = sum_i C_i log(C_i / C~_i); linearity of E, termwise
    return sp.Sum(sp.expand(C[i] * sp.log(C[i]) - C[i] * e_log), (i, 1, n))


def eq8():
    """Eq. (8) as printed: sum_i C_i (log C_i + psi(k) - psi(k C_i)), n symbolic."""
    return sp.Sum(C[i] * (sp.log(C[i]) + sp.polygamma(0, k) - sp.polygamma(0, k * C[i])),
                  (i, 1, n))


def matches_eq8() -> bool:
    """True when the derived sum and eq. (8) agree term by term, for every n."""
    derived, printed = expected_kl_derived(), eq8()
    return sp.simplify(sp.expand(derived.function - printed.function)) == 0 and \
        derived.limits == printed.limits


@lru_cache(maxsize=None)
def _summand():
    term = expected_kl_derived().function.subs(C[i], c)
    return sp.lambdify((c, k), term, modules="mpmath")


def expected_kl_value(C_values, k_value, dps: int = 50):
    """The derived expression at a concrete count vector, with mpmath at ``dps`` digits.

    The inputs are taken at their exact binary values (``mp.mpf(float)``), so the result is the
    derived formula at the very numbers a float implementation receives.
    """
    f = _summand()
    with mp.workdps(dps):
        kk = mp.mpf(k_value)
        return +mp.fsum(f(mp.mpf(ci), kk) for ci in C_values)

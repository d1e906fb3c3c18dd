"""Theorem 1 from the log-density ratio of the Dirichlet mechanism, in SymPy.

Three steps, each a SymPy computation (SymPy simplifies the ratio; the maximiser of
step 2 is argued in the book and substituted, not found by SymPy) (book: "The privacy
loss of the Dirichlet mechanism", where it is shown, and "The exact worst case"):

1. ``privacy_loss_expression``: log f_c(x) - log f_c'(x) for Dir(k c/N) against
   Dir(k c'/N), c' = c + e_i - e_j, for a symbolic number n of categories (the
   categories other than i and j enter through a symbolic sum that cancels).  SymPy
   reduces it to a data term in log Gamma plus (k/N)(log x_j - log x_i).
2. ``worst_case_expression``: the data term increases in c_i and decreases in c_j (its
   derivatives are differences of digamma values, of known sign), and the output term
   is largest at the vertex x_i = gamma, x_j = 1 - (n-1) gamma of Omega_1; substituting
   the worst pair c_i = N - (n-1) m - 1, c_j = m + 1 gives the exact worst case.
3. ``bound_expression``: the paper's eq. (6) (1 - 2 eta, m = eta N) and our corrected
   eq. (6) (1 - (n-1) eta) are the worst case with m = eta N and the largest share of
   the receiving category set to 1 - 2 eta or 1 - (n-1) eta.

``as_mpmath(expr)`` turns a derived expression into an mpmath function, which the tests
compare with the package's float code and its mpmath twins, so a change in either fails.
"""
from __future__ import annotations

import sympy as sp

k, N, n, gamma, eta, m = sp.symbols("k N n gamma eta m", positive=True)
c_i, c_j, x_i, x_j = sp.symbols("c_i c_j x_i x_j", positive=True)
_l = sp.Idx("l")
_c = sp.IndexedBase("c", positive=True)
_x = sp.IndexedBase("x", positive=True)


def _log_dirichlet(alpha_i, alpha_j, others, total):
    """log density of Dir at x for parameters (alpha_i, alpha_j, others_l), sum ``total``."""
    rest = sp.Sum((others - 1) * sp.log(_x[_l]), (_l, 3, n))
    log_norm = (sp.loggamma(total) - sp.loggamma(alpha_i) - sp.loggamma(alpha_j)
                - sp.Sum(sp.loggamma(others), (_l, 3, n)))
    return log_norm + (alpha_i - 1) * sp.log(x_i) + (alpha_j - 1) * sp.log(x_j) + rest


def privacy_loss_expression():
    """Step 1: log f_c(x) - log f_c'(x), simplified; returns (loss, data_term, output_term)."""
    h = k / N
    others = k * _c[_l] / N
    total = k                                     # sum_l k c_l / N = k, for c and c'
    f_c = _log_dirichlet(k * c_i / N, k * c_j / N, others, total)
    f_cp = _log_dirichlet(k * (c_i + 1) / N, k * (c_j - 1) / N, others, total)
    loss = sp.expand(f_c - f_cp)
    data = (sp.loggamma(k * c_i / N + h) - sp.loggamma(k * c_i / N)
            - (sp.loggamma(k * c_j / N) - sp.loggamma(k * c_j / N - h)))
    output = h * (sp.log(x_j) - sp.log(x_i))
    residual = sp.expand(loss - data - output)
    if residual != 0:
        raise AssertionError(f"the log-density ratio does not split as claimed: {residual}")
    return loss, data, output


def monotonicity_derivatives():
    """d(data)/dc_i and d(data)/dc_j as digamma differences (signs: > 0 and < 0).

    digamma is strictly increasing on (0, inf), so h (psi(a + h) - psi(a)) > 0 for h > 0:
    the data term grows with c_i and falls with c_j.
    """
    _, data, _ = privacy_loss_expression()
    h = k / N
    d_i = sp.diff(data, c_i)
    d_j = sp.diff(data, c_j)
    want_i = h * (sp.polygamma(0, k * c_i / N + h) - sp.polygamma(0, k * c_i / N))
    want_j = -h * (sp.polygamma(0, k * c_j / N) - sp.polygamma(0, k * c_j / N - h))
    if sp.expand(d_i - want_i) != 0 or sp.expand(d_j - want_j) != 0:
        raise AssertionError("the derivatives of the data term are not digamma differences")
    return d_i, d_j


def worst_case_expression():
    """Step 2: the exact worst-case loss in (k, N, n, gamma, m)."""
    _, data, output = privacy_loss_expression()
    vertex = {x_i: gamma, x_j: 1 - (n - 1) * gamma}
    worst = {c_i: N - (n - 1) * m - 1, c_j: m + 1}
    return data.subs(worst) + output.subs(vertex)


def bound_expression(variant):
    """Step 3: ``"paper"`` (eq. (6) as printed) or ``"corrected"``, in (k, eta, N, n, gamma).

    The worst case with m = eta N and the receiving category's share N - (n-1) m over N
    replaced by 1 - 2 eta (paper) or 1 - (n-1) eta (corrected).
    """
    share = {"paper": 1 - 2 * eta, "corrected": 1 - (n - 1) * eta}[variant]
    _, data, output = privacy_loss_expression()
    vertex = {x_i: gamma, x_j: 1 - (n - 1) * gamma}
    pair = {c_i: N * share - 1, c_j: eta * N + 1}
    return sp.expand(data.subs(pair)) + output.subs(vertex)


def _log_beta(a, b):
    """log B(a, b) = log Gamma(a) + log Gamma(b) - log Gamma(a + b) (definition of B)."""
    return sp.loggamma(a) + sp.loggamma(b) - sp.loggamma(a + b)


def paper_equation_6():
    """eq. (6) as printed: log[B(k eta, k(1-2eta)) / B(k(eta+1/N), k(1-2eta-1/N))] + (k/N) log(...)."""
    return (_log_beta(k * eta, k * (1 - 2 * eta))
            - _log_beta(k * (eta + 1 / N), k * (1 - 2 * eta - 1 / N))
            + k / N * sp.log((1 - (n - 1) * gamma) / gamma))


def paper_form_matches_derivation():
    """eq. (6) as printed minus the derived paper variant: SymPy reduces it to 0."""
    return sp.simplify(sp.expand(paper_equation_6() - bound_expression("paper")))


def as_mpmath(expr, variables):
    """An mpmath function of ``variables`` that evaluates ``expr`` (for the tests)."""
    return sp.lambdify(variables, expr, modules="mpmath")

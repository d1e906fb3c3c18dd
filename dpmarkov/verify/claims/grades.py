"""Claims about Section 6.1 (grade distribution) and Figure 1."""
from __future__ import annotations

from math import comb

from ._parts import *  # noqa: F401,F403  (the parts' one header, see _parts)


# ============================================================================ Section 6.1
@add_claim("sec6.1-N", "Sec. 6.1", "The Calculus 1 course has N = 98 students.", "reproduction",
        "not reproducible",
        "the paper cites the grade distributions as publicly available but does not print the "
        "section's counts or say which section it used (the version the book checks); "
        "N = 98 is consistent with eta = 0.073 "
        "(every grade needs >= 8 students)", GRADES,
        kind="number", support="data unavailable")
def _sec61_N():
    worst = privacy.worst_counts(**{k: GRADE[k] for k in ("eta", "N", "n")})   # raises if infeasible
    simplex.check_assumption_3(worst, GRADE["eta"])
    try:
        simplex.check_assumption_3(worst - np.eye(5)[0] + np.eye(5)[4], GRADE["eta"])
        seven_rejected = False
    except ValueError:
        seven_rejected = True
    m = float(worst.min())
    return (dict(min_count_required=m, total=float(worst.sum())),
            m == GRADE_MIN_COUNT and worst.sum() == 98 and seven_rejected)


@add_claim("sec6.1-n", "Sec. 6.1", "n = 5 categories (A, B, C, D, F).", "consistency", "holds",
        "gamma = 0.0004 < 1/n and eta = 0.073 < 1/n", GRADES,
        kind="definition", support="definition")
def _sec61_n():
    n = GRADE["n"]
    g = float(_checks.gamma_ok(np.asarray(GRADE["gamma"]), np.asarray(float(n))))
    _checks.design_ok(np.asarray(GRADE["eta"]), np.asarray(98.0), np.asarray(float(n)))
    u = np.full(n, 1 / n)
    # eta <= 1/n: the uniform vector is in the bordered simplex of border eta
    return dict(n=n), g == GRADE["gamma"] and bool(simplex.in_bordered_simplex(u, GRADE["eta"]))


@add_claim("sec6.1-eta", "Sec. 6.1", "eta = 0.073.", "consistency", "holds but loose",
        "eta*N = 7.15 is no whole count: valid if every grade has >= 8 students, but then "
        "eta = 8/98 = 0.082 was allowed and gives a smaller epsilon* (1.949 against 2.2065)", GRADES,
        kind="definition", support="computation")
def _sec61_eta():
    eps_paper = privacy.epsilon_star_paper(**GRADE)
    eps_8 = privacy.epsilon_star_paper(8 / 98, 98, 5, 4e-4)
    return (dict(eta_N=0.073 * 98, epsilon_star=eps_paper, epsilon_star_eta_8_98=eps_8),
            agrees(eps_8, "1.949") and agrees(eps_paper, "2.2065")
            and abs(0.073 * 98 - round(0.073 * 98)) > 0.1)


@add_claim("sec6.1-gamma", "Sec. 6.1", "gamma = 0.0004.", "consistency", "holds",
        "below 1/n, so Omega_1 has positive probability; eq. (7) then gives delta = 7.3e-4 at k = 20.6",
        GRADES,
        kind="definition", support="computation")
def _sec61_gamma():
    ok = float(_checks.gamma_ok(np.asarray(4e-4), np.asarray(5.0))) == 4e-4
    d = privacy.delta(20.6, **GRADE)                  # P(leave Omega_1) at the worst counts
    return dict(gamma=4e-4, one_over_n=0.2, delta_eq7=d), ok and agrees(d, "7.3e-4")


@add_claim("sec6.1-k-grid", "Sec. 6.1", "k in {20.6, 21.6, ..., 110.6}; the smallest k gives the "
        "strongest privacy Assumption 4 allows.", "high precision", "holds but loose",
        "91 values, but 3/(2 eta) = 20.548 < 20.6: the strongest allowed epsilon is 2.2065, "
        "not eq. (6) at 20.6 (2.2119)", GRADES,
        kind="number", support="computation")
def _sec61_kgrid():
    kmin = privacy.k_min(0.073)
    return (dict(k_min=kmin, eps_at_20_6=privacy.epsilon_paper(20.6, **GRADE),
                 epsilon_star=privacy.epsilon_star_paper(**GRADE)),
            K_GRID[0] > kmin and agrees(kmin, "20.548")
            and agrees(privacy.epsilon_paper(20.6, **GRADE), "2.2119")
            and agrees(privacy.epsilon_star_paper(**GRADE), "2.2065"))


@add_claim("sec6.1-eps", "Sec. 6.1", "At the smallest k, epsilon = 2.255.", "high precision", "fails",
        "eq. (6) at the stated parameters gives 2.212 at k = 20.6 and 2.207 at k_min = 20.548 "
        "(mpmath agrees); 2.255 needs k = 21.01", GRADES,
        kind="number", support="computation")
def _sec61_eps():
    e = privacy.epsilon_paper(20.6, **GRADE)
    twin = float(highprec.epsilon(20.6, **GRADE))
    return (dict(eps_at_20_6=e,
                 eps_at_k_min=privacy.epsilon_star_paper(**GRADE),
                 k_for_2_255=privacy.k_for_epsilon_paper(2.255, **GRADE)),
            abs(e - twin) < 1e-12 and agrees(e, "2.212")
            and agrees(privacy.epsilon_star_paper(**GRADE), "2.207")
            and agrees(privacy.k_for_epsilon_paper(2.255, **GRADE), "21.01"))


@add_claim("sec6.1-kl", "Sec. 6.1", "At the smallest epsilon the mean KL divergence is 0.103.",
        "consistency", "not reproducible",
        "needs the unpublished counts; Theorem 2 at k = 20.6 rounds to 0.103 for 56% of the "
        "557,845 count vectors Assumption 3 allows (range 0.102-0.107)", GRADES,
        kind="number", support="data unavailable")
def _sec61_kl():
    allowed = bruteforce.composition_array(98, 5, GRADE_MIN_COUNT)
    # eq. (8) is a sum over the categories, so it depends on the multiset of counts only:
    # evaluate it once per sorted count vector (a few thousand), then spread to all
    multisets = np.sort(allowed, axis=1)
    _, where, inverse = np.unique(multisets @ 99 ** np.arange(5), return_index=True,
                                  return_inverse=True)
    kl = accuracy.expected_kl(multisets[where] / 98.0, 20.6)[inverse]
    share = float(np.mean(np.round(kl, 3) == 0.103))
    return (dict(count_vectors=len(allowed), share_rounding_to_0_103=share,
                 smallest=float(kl.min()), largest=float(kl.max())),
            len(allowed) == comb(98 - 5 * GRADE_MIN_COUNT + 4, 4) and agrees(share, "0.56") and agrees(kl.min(), "0.102")
            and agrees(kl.max(), "0.107"))


@add_claim("sec6.1-delta", "Sec. 6.1", "At the smallest epsilon, delta = 0.0026.", "high precision",
        "fails",
        "eq. (7) gives 7.3e-4 (integer counts, Boole bound) or 2.0e-3 (continuous worst "
        "vector); no reading gives 0.0026", PRIV_DELTA,
        kind="number", support="computation")
def _sec61_delta():
    integer = privacy.delta(20.6, **GRADE)
    cont = privacy.exit_probability_union([73, 73, 73, 73, 708], 20.6, 4e-4)
    return (dict(integer_reading=integer, continuous_reading=cont),
            agrees(integer, "7.3e-4") and agrees(cont, "2.0e-3"))


@add_claim("sec6.1-delta-3.31", "Sec. 6.1", "At epsilon = 3.31, delta = 1.3e-4.", "high precision",
        "fails", "eq. (6) reaches 3.31 at k = 31.16, where eq. (7) gives 1.4e-5 (integer) or "
        "6.2e-5 (continuous)", PRIV_DELTA,
        kind="number", support="computation")
def _sec61_delta331():
    k = privacy.k_for_epsilon_paper(3.31, **GRADE)
    integer = privacy.delta(k, **GRADE)
    cont = privacy.exit_probability_union([73, 73, 73, 73, 708], k, 4e-4)
    return (dict(k=k, integer_reading=integer, continuous_reading=cont),
            agrees(k, "31.16") and agrees(integer, "1.4e-5") and agrees(cont, "6.2e-5"))


@add_claim("sec6.1-guarantee", "Sec. 6.1", "The grade release is (2.255, 0.0026)-DP.",
        "high precision", "holds but loose",
        "true, since both numbers exceed Theorem 1's own at k = 20.6, but the exact delta at "
        "epsilon = 2.255 is 4e-9", GRADES,
        kind="number", support="computation")
def _sec61_guarantee():
    k = 20.6
    tight = profile.privacy_profile(2.255, k, 98, 5, GRADE_MIN_COUNT)
    return (dict(exact_delta_at_2_255=tight),
            privacy.epsilon_paper(k, **GRADE) <= 2.255 and privacy.delta(k, **GRADE) <= 0.0026
            and agrees(tight, "4e-9"))


@add_claim("fig-1", "Fig. 1 / Sec. 6.1", "As epsilon grows, Corollary 1 approaches the true mean KL "
        "divergence.", "high precision", "supported numerically, not proved",
        "both fall like (n-1)/(2k): the ratio of bound to E[KL] goes from 1.4 at k = 20.6 to "
        "1.1 at 110.6 and 1.0 at 1e4", GRADES,
        kind="statement", support="numerical evidence only",
        checked="the book's illustrative grade counts at k = 20.6, 21.6, ..., 110.6 and 1e4")
def _fig1():
    C = simplex.count_vector(ILLUSTRATIVE_GRADES)
    ks = np.array([20.6, 110.6, 1e4])
    ratio = accuracy.kl_bound(ks, 98, 5) / accuracy.expected_kl(C, ks)
    gap = accuracy.kl_bound(K_GRID, 98, 5) - accuracy.expected_kl(C, K_GRID)
    return (dict(ratio_20_6=float(ratio[0]), ratio_110_6=float(ratio[1]),
                 ratio_1e4=float(ratio[2])),
            bool(np.all(np.diff(ratio) < 0) and agrees(ratio[0], "1.4") and agrees(ratio[1], "1.1")
                 and agrees(ratio[2], "1.0")
                 and np.all(np.diff(gap) < 0)))



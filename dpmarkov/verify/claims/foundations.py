"""Claims about the paper's definitions and assumptions (Defs. 1-7, Asms. 1-6)."""
from __future__ import annotations

from ._parts import *  # noqa: F401,F403  (the parts' one header, see _parts)


# ============================================================================ Definitions
@add_claim("def-1", "Def. 1", "The unit simplex: non-negative vectors summing to one.",
        "brute force", "holds",
        "every Dirichlet release lies in it; negative or non-summing vectors are rejected",
        PRELIM,
        kind="definition", support="definition")
def _def1():
    x = mechanism.privatize(ILLUSTRATIVE_GRADES, 20.6, rng=SEED, size=2000)
    err = float(np.abs(x.sum(axis=1) - 1).max())
    ok = bool(np.all(simplex.in_simplex(x)) and not simplex.in_simplex([0.5, 0.6, -0.1])
              and not simplex.in_simplex([0.5, 0.6, 0.1]))
    return dict(max_sum_error=err, min_entry=float(x.min())), ok and err < 1e-12


@add_claim("def-2", "Def. 2", "The bordered simplex: stochastic vectors with every entry >= eta.",
        "brute force", "holds",
        "non-empty exactly when eta <= 1/n (the uniform vector is its last point)", PRELIM,
        kind="definition", support="definition")
def _def2():
    n = 5
    u = np.full(n, 1 / n)
    x = mechanism.privatize(ILLUSTRATIVE_GRADES, 20.6, rng=SEED, size=20_000)
    largest_min = float(x.min(axis=1).max())
    ok = (bool(simplex.in_bordered_simplex(u, 1 / n))
          and not bool(simplex.in_bordered_simplex(u, 1 / n + 1e-9)) and largest_min <= 1 / n)
    return dict(largest_min_entry_of_20000_draws=largest_min, one_over_n=1 / n), ok


@add_claim("def-3", "Def. 3", "Adjacent databases differ in one entry; every part keeps its "
        "size N_i.", "brute force", "holds but loose",
        "a record may change category but never move to another part: the row sizes (taxi "
        "origins) are public; a record moving between rows j, l costs (eps_j + eps_l, "
        "1 - (1 - delta_j)(1 - delta_l)): delta 0.24 instead of 0.05 at the rows' epsilon 0.8, "
        "0.0975 at epsilon 1.6", CHAINS,
        kind="definition", support="computation")
def _def3():
    # substitution adjacency on counts: exactly one record moves, N fixed
    i, j = loss.adjacent_indices([8, 9, 8, 8, 65], [9, 8, 8, 8, 65])
    try:
        loss.adjacent_indices([8, 9, 8, 8, 65], [9, 9, 8, 8, 65])      # add one record
        add_rejected = False
    except ValueError:
        add_rejected = True
    # a record moving between two leaky-randomized-response rows (outside Def. 3)
    eps0, lam = 0.8, 0.05
    Mr = leaky_rr(2, eps0, lam)
    joint2 = composition.compose_parallel(Mr, Mr)
    moved = np.array([(np.ravel_multi_index((c0, c1), (3, 3)),
                       np.ravel_multi_index((c0 - 1, c1 + 1), (3, 3)))
                      for c0 in (1, 2) for c1 in (0, 1)])
    d_move = float(composition.profile_discrete(joint2, moved, eps0))
    d_sum = float(composition.profile_discrete(joint2, moved, 2 * eps0))
    return (dict(delta_record_moves_rows=d_move, delta_rows=lam, delta_at_eps_sum=d_sum),
            (i, j) == (0, 1) and add_rejected and agrees(d_move, "0.24")
            and abs(d_sum - (1 - (1 - lam) ** 2)) < 1e-12)


@add_claim("def-4", "Def. 4", "(epsilon, delta)-differential privacy: P(M(D) in T) <= "
        "e^eps P(M(D') in T) + delta for all adjacent D, D' and all sets T.",
        "brute force", "holds",
        "standard definition; on a toy mechanism all 8 output sets obey it with delta and "
        "one violates it without", PRELIM,
        kind="definition", support="definition")
def _def4():
    toy = np.array([[0.60, 0.399, 0.001], [0.40, 0.600, 0.000]])
    eps = float(np.max(np.abs(np.log(toy[0, :2] / toy[1, :2]))))
    dlt = float(toy[:, 2].max())
    sets = np.array(np.meshgrid(*[[0, 1]] * 3, indexing="ij")).reshape(3, -1).T.astype(float)
    pt = sets @ toy.T
    worst = max(np.max(pt[:, a] - np.exp(eps) * pt[:, b]) for a, b in [(0, 1), (1, 0)])
    # the hockey-stick divergence is the worst set
    hs = max(composition.hockey_stick_discrete(toy[a], toy[b], eps) for a, b in [(0, 1), (1, 0)])
    return (dict(worst_violation_without_delta=float(worst), delta=dlt, hockey_stick=float(hs)),
            worst <= dlt + 1e-15 and worst > 0 and abs(hs - worst) < 1e-15)


@add_claim("def-5", "Def. 5", "The Dirichlet mechanism releases a draw from Dir(k p) with the "
        "stated density.", "high precision", "holds but loose",
        "the formula is a density written as a probability, and is undefined when a count is 0 "
        "(Gamma(0) = infinity); dm.log_density agrees with a 30-digit evaluation", MECH,
        kind="definition", support="computation")
def _def5():
    import mpmath as mp
    from ..highprec_privacy import log_beta
    x = np.array([0.2, 0.3, 0.1, 0.15, 0.25])
    ours = float(mechanism.log_density(x, ILLUSTRATIVE_GRADES, 20.6))
    with mp.workdps(30):            # -log B(a) + sum (a_i - 1) log x_i
        a = [mp.mpf(20.6) * int(c) / 98 for c in ILLUSTRATIVE_GRADES]
        xs = [mp.mpf(float(v)) for v in x]
        ref = float(-log_beta(a) + mp.fsum((ai - 1) * mp.log(xi) for ai, xi in zip(a, xs)))
    try:
        mechanism.privatize([12, 0, 7], 15.0, rng=SEED)
        zero_rejected = False
    except ValueError:
        zero_rejected = True
    return dict(log_density_minus_30_digits=ours - ref), abs(ours - ref) < 1e-12 and zero_rejected


@add_claim("def-6", "Def. 6 and Sec. 3", "Probabilistic DP: a bad set Omega_2 of probability "
        "<= delta and a log-density ratio <= epsilon elsewhere; it implies (epsilon, delta)-DP.",
        "brute force", "holds",
        "on a leaky randomized response the probabilistic delta equals the exact DP delta; "
        "the implication is proved in the book", PRELIM,
        kind="definition", support="our proof", proof="prop-pdp-implies-dp")
def _def6():
    N, eps0, lam = JOINT_SPECS[0]
    M = leaky_rr(N, eps0, lam)
    pd = float(composition.probabilistic_delta(M, line_chain(N), eps0))
    prof = float(composition.profile_discrete(M, line_chain(N), eps0))
    return dict(probabilistic_delta=pd, dp_delta=prof), prof <= pd + 1e-15 and abs(pd - lam) < 1e-12


@add_claim("def-7", "Def. 7", "The infinity-norm ergodicity coefficient tau_inf(G) = max "
        "||G^T z||_inf over ||z||_inf = 1, z^T 1 = 0, a proxy for |lambda_2|.",
        "brute force", "holds but loose",
        "it bounds |lambda_2|, but it is not Dobrushin's coefficient and reaches floor(n/2) "
        "(3 for n = 6), so it is a weak proxy for a rate", STAT,
        kind="definition", support="computation")
def _def7():
    halves = np.zeros((6, 6))
    halves[:3, 0] = halves[3:, 1] = 1
    t = float(ergodicity.ergodicity_coefficient(halves))
    S = np.random.default_rng(SEED).dirichlet(np.full(6, 0.5), size=(300, 6))
    lam2 = np.sort(np.abs(np.linalg.eigvals(S)), axis=-1)[:, -2]
    ok = bool(np.all(lam2 <= ergodicity.ergodicity_coefficient(S) + 1e-12))
    return (dict(tau_inf_of_0_1_matrix=t, dobrushin=float(ergodicity.dobrushin_coefficient(halves))),
            ok and t == 3.0)


# ============================================================================ Assumptions
@add_claim("asm-1", "Asm. 1", "Each database entry belongs to exactly one category.",
        "consistency", "holds",
        "makes C(D, rho) a stochastic vector (counts sum to N)", PRELIM,
        kind="definition", support="definition")
def _asm1():
    C = simplex.count_vector(ILLUSTRATIVE_GRADES)
    return dict(sum_of_C=float(C.sum())), abs(C.sum() - 1) < 1e-15


@add_claim("asm-2", "Asm. 2", "The border of Omega_1 satisfies gamma <= 1/(n-1).",
        "brute force", "holds but loose",
        "for gamma >= 1/n Omega_1 is empty or one point, so delta = 1: the guarantee is vacuous "
        "rather than false, but eq. (6) then reports a small (even negative) epsilon; it should "
        "read gamma < 1/n", PRELIM,
        kind="definition", support="computation")
def _asm2():
    """Guards ``_checks.gamma_ok``, the rule every public function applies to gamma.

    Wrong implementations it fails on: the paper's rule alone (gamma <= 1/(n-1), so 0.22 for
    n = 5 is accepted); the book's rule with the wrong comparison at its edge (gamma > 1/n
    instead of >= 1/n, so gamma = 1/n itself, where Omega_1 is one point, is accepted); a rule
    that refuses admissible values (gamma just below 1/n refused, e.g. 1/(n+1) or <= for <);
    a sampler whose releases leave the simplex (then a draw can have every entry >= 0.22).
    Each was planted and flips this check (tests/test_claim_mutants.py keeps them).
    """
    n, g = 5, 0.22                          # 1/n = 0.2 < 0.22 <= 1/(n-1) = 0.25
    x = mechanism.privatize(ILLUSTRATIVE_GRADES, 20.6, rng=SEED, size=20_000)
    in_omega1 = float(np.mean(x.min(axis=1) >= g))
    output_term = float(np.log(1 - (n - 1) * g) - np.log(g))

    def refused(gamma):
        try:
            _checks.gamma_ok(np.asarray(gamma), np.asarray(float(n)))
        except ValueError:
            return True
        return False

    # the edge of the book's rule gamma < 1/n, on both sides
    edge_ok = refused(1 / n) and not refused(np.nextafter(1 / n, 0.0))
    # P_in_Omega1 = 0: every release leaves Omega_1, so delta = 1 (a vacuous guarantee)
    return (dict(P_in_Omega1=in_omega1, log_ratio_term=output_term),
            in_omega1 == 0 and output_term < 0 and refused(g) and edge_ok)


@add_claim("asm-3", "Asm. 3", "eta in (0, 1/4), and every count vector lies in the bordered "
        "simplex of border eta.", "consistency", "holds but loose",
        "the range ignores n (for n = 5, eta in (1/5, 1/4) admits no count vector), and eta may "
        "be read off the very counts it protects (the paper's remark that a user enforces the "
        "assumption by selecting eta invites it; how the paper chose eta is not said)", MECH,
        kind="definition", support="computation")
def _asm3():
    """Guards ``_checks.design_ok`` (and ``_checks.min_count``), which every design passes.

    Wrong implementations it fails on: no feasibility check (eta = 0.22 for n = 5 accepted);
    the minimum count rounded down, floor(eta N) for ceil(eta N) (eta = 0.201, N = 100, n = 5:
    floor gives 20 and 5 * 20 = 100 records, accepted, though every count >= 20.1 needs 105);
    the comparison made strict the wrong way (n m >= N refused: eta = 0.2, N = 100, n = 5,
    where the uniform counts (20, ..., 20) exist, refused).  Each was planted and flips this
    check (tests/test_claim_mutants.py keeps them).
    """
    def refused(eta, N, n):
        try:
            _checks.design_ok(np.asarray(eta), np.asarray(float(N)), np.asarray(float(n)))
        except ValueError:
            return True
        return False

    rejected = refused(0.22, 98, 5)
    edges = refused(0.201, 100, 5) and not refused(0.2, 100, 5)
    return dict(eta=0.22, n=5, feasible=not rejected), rejected and edges


def _eq6_unchecked(k, eta, N, n, gamma):
    """Eq. (6) as printed, without dpmarkov's input checks (to evaluate it below Assumption 4)."""
    return (betaln(k * eta, k * (1 - 2 * eta))
            - betaln(k * (eta + 1 / N), k * (1 - 2 * eta - 1 / N))
            + k / N * np.log((1 - (n - 1) * gamma) / gamma))


@add_claim("asm-4", "Asm. 4 and Sec. 3.1", "k >= 3/(2 eta); so not every count vector can be made "
        "arbitrarily private: epsilon* at k = 3/(2 eta) is the strongest level.",
        "high precision", "holds but loose",
        "3/(2*0.073) = 20.548 and eq. (6) increases in k, but eq. (6) stays a valid bound below "
        "3/(2 eta): at k = 10 it is 1.11, above the exact worst loss 1.07 (with delta 0.044 from "
        "eq. (7)), so epsilon* = 2.2065 is a floor of the assumption, not of the mechanism (our "
        "copy of the paper shows only fragments of the proof of Theorem 1, so we cannot say "
        "where the proof uses the assumption)", PRIV_LOSS,
        kind="definition", support="computation")
def _asm4():
    """Rests on ``privacy.k_min``, ``epsilon_paper``, ``loss.epsilon_exact``, eq. (7) and the
    package's Assumption 4 rule (``_checks.k_meets_assumption_4``, applied by ``dm.epsilon``).

    Wrong implementations it fails on: k_min other than 3/(2 eta) (1/eta, 3/eta); the rule
    not applied, or with another constant (1/eta) or without its slack for rounding (then
    k = k_min itself, as the float 1.5/eta, may be refused): the rule is tested on both sides
    of its edge (k_min accepted, k_min (1 - 1e-9) refused, beyond the 1e-12 slack); eq. (6),
    the exact loss or eq. (7) off (their values at k = 10 are pinned to the quoted digits).
    Planted and flipping this check: tests/test_claim_mutants.py.
    """
    def refused(k):
        try:
            privacy.epsilon(k, **GRADE)
        except ValueError:
            return True
        return False

    eps = privacy.epsilon_paper(K_GRID, **GRADE)
    kmin = privacy.k_min(GRADE["eta"])
    below = _eq6_unchecked(10.0, **GRADE)
    exact = loss.epsilon_exact(10.0, 98, 5, 4e-4, GRADE_MIN_COUNT)
    d10 = privacy.exit_probability_union(privacy.worst_counts(0.073, 98, 5), 10.0, 4e-4)
    return (dict(k_min=kmin, epsilon_star=privacy.epsilon_star_paper(**GRADE), eq6_at_k_10=float(below),
                 exact_loss_at_k_10=exact, delta_eq7_at_k_10=d10),
            bool(np.all(np.diff(eps) > 0)) and abs(kmin - 1.5 / 0.073) < 1e-12
            and below >= exact and below < privacy.epsilon_star_paper(**GRADE)
            and agrees(kmin, "20.548") and agrees(privacy.epsilon_star_paper(**GRADE), "2.2065")
            and agrees(below, "1.11") and agrees(exact, "1.07") and agrees(d10, "0.044")
            and not refused(kmin) and refused(kmin * (1 - 1e-9)))


@add_claim("asm-5", "Asm. 5", "Every state is reachable from every other state (irreducible).",
        "brute force", "holds",
        "checked by dm.check_irreducible; a chain with a closed class is rejected", STAT,
        kind="definition", support="definition")
def _asm5():
    good = np.array([[5, 1, 0], [0, 3, 2], [4, 0, 1.0]])
    bad = np.array([[5, 1, 0], [2, 3, 0], [4, 0, 1.0]])
    chain.check_irreducible(good)
    try:
        chain.check_irreducible(bad)
        rejected = False
    except ValueError:
        rejected = True
    return dict(reducible_rejected=rejected), rejected


@add_claim("asm-6", "Asm. 6", "Every feasible transition has occurred at least once.",
        "brute force", "holds but loose",
        "zeros of the count matrix stay exactly zero in every release, so the support is "
        "published: harmless only if the feasible set is public", CHAINS,
        kind="definition", support="computation")
def _asm6():
    K = np.array([[5, 1, 0], [0, 3, 2], [4, 0, 1.0]])
    Pt = chain.privatize_chain(K, 20.0, support=K > 0, rng=SEED, size=500)
    kept = bool(np.all(Pt[:, K == 0] == 0) and np.all(Pt[:, K > 0] > 0))
    return dict(zero_pattern_released=kept), kept



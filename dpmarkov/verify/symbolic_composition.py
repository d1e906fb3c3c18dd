"""Lemma 1 (parallel composition): its proof's steps checked in SymPy, the lemma in mpmath.

The paper (Lemma 1, proof in its Supplement C.4) releases M(D) = (M_1(D_1), ..., M_m(D_m))
for a partition D_1, ..., D_m of the database and claims (max eps_i, max delta_i)-DP.
Book: chapter "Private transition matrices", section on Lemma 1.

What is checked here, symbolically: the identities and inequalities each step of the
conditioning proof rests on (the proof itself is the book's).  Each function returns the
SymPy expressions it reduced to 0 or showed to be non-negative, and raises
``AssertionError`` otherwise:

1. ``conditioning_step``: for adjacent D, D' that differ inside part j only, and any
   output set S, conditioning on the other parts' outputs y gives
   P(M(D) in S) = sum_y w_y a_y with a_y = P(M_j(D_j) in S_y) <= e^eps_j b_y + delta_j,
   b_y = P(M_j(D'_j) in S_y), w_y >= 0, sum_y w_y = 1.  Writing a_y = e^eps_j b_y +
   delta_j - s_y with slack s_y >= 0, for a symbolic number L of values y:
   sum_y w_y a_y = e^eps_j P(M(D') in S) + delta_j - sum_y w_y s_y.
2. ``relaxation_step``: e^eps_j B + delta_j <= e^E B + Delta for E = max eps_i >= eps_j,
   Delta = max delta_i >= delta_j and B >= 0 (e^(eps_j + t) - e^eps_j = e^eps_j
   int_0^t e^u du >= 0).  1 and 2 together are Lemma 1 for conventional DP
   (Definition 4), for every (eps_i, delta_i).
3. ``union_step``: the paper's proof bounds the probability of the bad set of the
   joint release by prod_i delta_i.  The bad set of the joint release is the set
   where SOME part is in its bad set (the complement of the product of the good
   sets), whose probability for independent parts is 1 - prod_i (1 - q_i) with
   q_i = P(M_i(D_i) in Omega_2^i) <= delta_i.  Proved by induction on m from
   P(A or B) = P(A) + P(B) - P(A) P(B) (independence); it is increasing in every q_i,
   lies between max_i q_i and sum_i q_i, and exceeds prod_i q_i.  So the
   probabilistic-DP route of the paper's proof yields (max eps_i, 1 - prod(1 - delta_i)),
   not (max eps_i, max delta_i); Lemma 1's conclusion for conventional DP still holds
   by 1-2.

``exact_profile_mp`` computes, at 50 digits, the exact privacy profile
delta(eps) = max over adjacent ordered pairs of sum_y max(P(y) - e^eps Q(y), 0) of the
joint release of asymmetric discrete mechanisms (both orders of every pair: an
asymmetric mechanism is what catches an implementation that looks at one order only).
"""
from __future__ import annotations

import itertools

import mpmath as mp
import sympy as sp

DPS = 50


def conditioning_step():
    """Step 1: sum_y w_y a_y - (e^eps B + delta) = -sum_y w_y s_y <= 0, for symbolic L."""
    L = sp.Symbol("L", integer=True, positive=True)
    y = sp.Symbol("y", integer=True)
    w, b, s = sp.IndexedBase("w"), sp.IndexedBase("b"), sp.IndexedBase("s")
    eps, delta = sp.symbols("epsilon_j delta_j", nonnegative=True)

    def total(f):
        return sp.Sum(f, (y, 1, L))

    a = sp.exp(eps) * b[y] + delta - s[y]                 # the part's (eps_j, delta_j) bound
    p_d = total(w[y] * a)                                 # P(M(D) in S), conditioned on y
    p_dprime = total(w[y] * b[y])                         # P(M(D') in S): same weights w_y
    gap = p_d - (sp.exp(eps) * p_dprime + delta * total(w[y])) + total(w[y] * s[y])
    assert sp.simplify(sp.expand(gap)) == 0, gap
    # with sum_y w_y = 1 the bound reads P(M(D) in S) <= e^eps_j P(M(D') in S) + delta_j,
    # the slack sum_y w_y s_y being >= 0 (w_y, s_y >= 0)
    return {"identity": gap, "slack": total(w[y] * s[y])}


def relaxation_step():
    """Step 2: (e^E B + Delta) - (e^eps_j B + delta_j) >= 0 for E >= eps_j, Delta >= delta_j."""
    eps, t, u, B, delta, r = sp.symbols("epsilon_j t u B delta_j r", nonnegative=True)
    E, Delta = eps + t, delta + r                          # the maxima, written with t, r >= 0
    difference = (sp.exp(E) * B + Delta) - (sp.exp(eps) * B + delta)
    integral = sp.integrate(sp.exp(u), (u, 0, t))          # e^t - 1 = int_0^t e^u du >= 0
    factored = sp.exp(eps) * B * integral + r              # a sum of non-negative terms
    assert sp.simplify(difference - factored) == 0, difference
    assert sp.exp(u).is_positive and t.is_nonnegative      # integrand > 0 on [0, t], t >= 0
    return {"difference": difference, "as_sum_of_nonnegatives": factored}


def union_step():
    """Step 3: the bad set of the joint release has probability 1 - prod(1 - q_i).

    Induction on m: with U_m = P(some part among the first m is bad) and Q = 1 - U_m,
    P(A or B) = P(A) + P(B) - P(A) P(B) for the independent new part gives
    1 - U_{m+1} = Q (1 - q_{m+1}).  Then the bounds max q_i <= U <= sum q_i and
    U >= prod q_i, each by the same induction.
    """
    Q, q = sp.symbols("Q q", nonnegative=True)         # Q = prod_{i<=m} (1 - q_i), q = q_{m+1}
    U_m = 1 - Q                                         # induction hypothesis
    U_next = U_m + q - U_m * q                          # union with an independent event
    step = sp.simplify((1 - U_next) - Q * (1 - q))
    assert step == 0, step
    # monotone: dU_{m+1}/dq = Q >= 0 and dU_{m+1}/dU_m = 1 - q >= 0, so q_i <= delta_i gives
    # U <= 1 - prod(1 - delta_i)
    assert sp.simplify(sp.diff(U_next, q) - Q) == 0
    # U_{m+1} - U_m = q (1 - U_m) >= 0 and U_{m+1} - q = U_m (1 - q) >= 0: U >= max q_i
    assert sp.simplify((U_next - U_m) - q * (1 - U_m)) == 0
    assert sp.simplify((U_next - q) - U_m * (1 - q)) == 0
    # U_{m+1} <= U_m + q (Boole): the gap is U_m q >= 0, so U <= sum q_i
    assert sp.simplify((U_m + q - U_next) - U_m * q) == 0
    # the paper's prod q_i is below U: with P_m = prod_{i<=m} q_i <= U_m, P_{m+1} = P_m q
    # <= U_m q <= U_{m+1}, because U_{m+1} - U_m q = U_m (1 - q) + q (1 - U_m) >= 0
    assert sp.simplify((U_next - q * U_m) - (U_m * (1 - q) + q * (1 - U_m))) == 0
    return {"step": step, "union": U_next}


def paper_union_gap(deltas):
    """1 - prod(1 - delta_i) minus prod(delta_i) and minus max(delta_i), exactly (rationals)."""
    ds = [sp.Rational(str(d)) for d in deltas]
    union = 1 - sp.prod([1 - d for d in ds])
    return union, union - sp.prod(ds), union - max(ds)


# ------------------------------------------------------------------ mpmath: exact profiles
def _mp_matrix(M):
    return [[mp.mpf(str(v)) if not isinstance(v, mp.mpf) else v for v in row] for row in M]


def hockey_stick_mp(p, q, eps):
    """sum_y max(p_y - e^eps q_y, 0) at the working precision."""
    ee = mp.exp(eps)
    return mp.fsum(max(a - ee * b, mp.mpf(0)) for a, b in zip(p, q))


def part_profile_mp(M, pairs, eps):
    """max over the adjacent pairs of M, BOTH orders, of the hockey-stick divergence."""
    with mp.workdps(DPS):
        M, eps = _mp_matrix(M), mp.mpf(str(eps))
        return max(max(hockey_stick_mp(M[a], M[b], eps), hockey_stick_mp(M[b], M[a], eps))
                   for a, b in pairs)


def exact_profile_mp(mechanisms, pairs_per_part, eps):
    """delta(eps) of the joint release (M_1(D_1), ..., M_m(D_m)), by brute force at 50 digits.

    Inputs are tuples (a_1, ..., a_m); adjacent inputs differ in one part i along one of
    its pairs; outputs are tuples (y_1, ..., y_m) with probability prod_i M_i[a_i, y_i].
    Every ordered adjacent pair and every output tuple is visited: nothing of Lemma 1 is
    assumed.  Returns (delta, the maximising ordered pair).
    """
    with mp.workdps(DPS):
        Ms = [_mp_matrix(M) for M in mechanisms]
        eps = mp.mpf(str(eps))
        sizes = [len(M) for M in Ms]
        outputs = list(itertools.product(*[range(len(M[0])) for M in Ms]))

        def law(inp):
            return [mp.fprod(M[a][y] for M, a, y in zip(Ms, inp, out)) for out in outputs]

        best, arg = mp.mpf(-1), None
        for i, pairs in enumerate(pairs_per_part):
            others = [range(s) for j, s in enumerate(sizes) if j != i]
            for rest in itertools.product(*others):
                for a, b in pairs:
                    for first, second in ((a, b), (b, a)):
                        x = list(rest[:i]) + [first] + list(rest[i:])
                        z = list(rest[:i]) + [second] + list(rest[i:])
                        h = hockey_stick_mp(law(x), law(z), eps)
                        if h > best:
                            best, arg = h, (tuple(x), tuple(z))
        return best, arg

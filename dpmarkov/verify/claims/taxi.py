"""Claims about Section 6.2 (NYC taxis), Figures 2-3, the abstract, introduction and conclusion."""
from __future__ import annotations

from ._parts import *  # noqa: F401,F403  (the parts' one header, see _parts)


# ============================================================================ Section 6.2
@add_claim("sec6.2-2.68", "Sec. 6.2", "The strongest privacy of the taxi chain is "
        "(2.68, 0.0214)-DP, read (as the book does) with rows over Manhattan's 69 zones.",
        "consistency", "fails",
        "under that reading, impossible with gamma = 1e-8 and at most 69 feasible transitions per row (n_i <= 69, "
        "the Manhattan zones): any such row with epsilon* <= 2.68 and at most 2,933,898 trips "
        "has delta* <= 0.0066, and delta* = 0.0214 needs one zone with about 6.6 million trips "
        "(6.9 million at n_i = 65); with n_i = 265 (all NYC zones) 2.6 million would do, so the "
        "conditions matter", TAXI,
        kind="number", support="computation")
def _sec62_268():
    m = brentq(lambda m: privacy.epsilon_paper(1.5 * TAXI_N_PAPER / m, m / TAXI_N_PAPER, TAXI_N_PAPER,
                                         69, TAXI_GAMMA) - 2.68, 2.0, 1e4, xtol=1e-6)
    d_max = delta_star(m / TAXI_N_PAPER, 69)
    e69 = eta_for_delta(0.0214, 69)
    need = m_for_eps(2.68, e69, 69) / e69
    need65 = taxi_pair(2.68, 0.0214)["N_row"]
    e265 = eta_for_delta(0.0214, 265)
    need265 = m_for_eps(2.68, e265, 265) / e265
    return (dict(max_delta_possible=d_max, trips_needed_in_one_row=need,
                 trips_needed_n_65=need65, trips_needed_n_265=need265),
            agrees(d_max, "0.0066") and agrees(need, "6.6e6") and agrees(need65, "6.9e6")
            and agrees(need265, "2.6e6") and need > TAXI_N_PAPER > need265)


@add_claim("sec6.2-design", "Sec. 6.2", "gamma_i = 1e-8 for every row; k_i runs from k_min,i to "
        "3 k_min,i in steps of k_min,i / 10; 1,000 private chains per level.", "consistency",
        "holds but loose",
        "valid (gamma < 1/n_i), but log(1/gamma) = 18.4 makes epsilon* about 1.5 (18.4 + "
        "psi(3/(2 eta)))/m for a row whose rarest transition has m trips (41 for a transition "
        "seen once among 10,000 trips): rare transitions, not N, set the privacy", TAXI,
        kind="definition", support="computation")
def _sec62_design():
    ell = float(np.log1p(-68 * TAXI_GAMMA) - np.log(TAXI_GAMMA))
    ok = float(_checks.gamma_ok(np.asarray(TAXI_GAMMA), np.asarray(69.0))) == TAXI_GAMMA
    # a row with m = 1 (a transition seen once) among 10,000 trips: epsilon* ~ 1.5 (ell + ...)
    eps_once = privacy.epsilon_star_paper(1e-4, 10_000, 20, TAXI_GAMMA)
    return (dict(log_one_over_gamma=ell, eps_star_rarest_count_1=eps_once),
            ok and agrees(ell, "18.4") and agrees(eps_once, "41"))


@add_claim("sec6.2-strongest", "Sec. 6.2", "The strongest privacy is stated twice, as epsilon = "
        "2.68 and as epsilon = 3.73.", "consistency", "inconsistent within the paper",
        "two different 'strongest possible' levels in one paragraph; only (3.73, 3e-6) is "
        "consistent with eqs. (6)-(7) (at epsilon* <= 2.68 delta* is at most 0.0066; from "
        "3e-6 the grid step 1.4 k_min gives 4.8e-9)", TAXI,
        kind="number", support="the paper's own text")
def _sec62_strongest():
    d = _sec62_268()[0]["max_delta_possible"]
    p = taxi_pair(3.73, 3e-6)
    return (dict(max_delta_at_2_68=d, delta_14_from_3e_6=p["delta_14"]),
            d < 0.0214 and p["m"] > 2 and agrees(d, "0.0066") and agrees(p["delta_14"], "4.8e-9"))


@add_claim("sec6.2-N", "Sec. 6.2", "Manhattan had N = 2,933,898 taxi trips (January 2025).",
        "reproduction", "not reproducible",
        "the January 2025 file is not available offline; the book uses the TLC sample shipped "
        "with dpmarkov (301,456 Manhattan trips, about ten times fewer)", TAXI,
        kind="number", support="data unavailable")
def _sec62_N():
    """Rests on ``datasets.load_taxi_counts`` (the count matrix every taxi claim uses).

    Wrong implementations it fails on: trips counted as rows of the shipped table instead of
    by its ``trips`` column; a zone kept when only its pickup (or only its drop-off) is in
    Manhattan; pickup and drop-off swapped (the same total, the transposed matrix); the
    trips within one zone dropped.  The matrix is rebuilt here from the shipped CSV files
    with pandas alone (a pivot of the Manhattan-to-Manhattan rows) and must equal the
    loader's entry for entry.  Planted and flipping this check: tests/test_claim_mutants.py.
    """
    from importlib import resources

    import pandas as pd

    from ...datasets import load_taxi_counts
    counts, zones = load_taxi_counts("Manhattan")
    data = resources.files("dpmarkov.datasets") / "data"
    with resources.as_file(data / "taxi_zone_lookup.csv") as path:
        lookup = pd.read_csv(path)
    with resources.as_file(data / "taxi_trip_counts.csv") as path:
        trips = pd.read_csv(path)
    ids = sorted(lookup.loc[lookup["Borough"] == "Manhattan", "LocationID"])
    inside = trips[trips["PULocationID"].isin(ids) & trips["DOLocationID"].isin(ids)]
    rebuilt = (inside.pivot_table(index="PULocationID", columns="DOLocationID", values="trips",
                                  aggfunc="sum", fill_value=0)
               .reindex(index=ids, columns=ids, fill_value=0).to_numpy())
    n_sample = taxi_chain()[0]
    return (dict(trips_in_shipped_sample=int(n_sample)),
            n_sample < TAXI_N_PAPER and agrees(n_sample, "301456")
            and list(zones["LocationID"]) == ids and np.array_equal(counts, rebuilt))


@add_claim("sec6.2-3.73", "Sec. 6.2 and Sec. 7", "The strongest privacy is (3.73, 3e-6)-DP.",
        "consistency", "not reproducible",
        "needs the authors' data; consistent with eqs. (6)-(7): a row whose rarest transition "
        "has 10.3 trips (real-valued; about 10) among 1.08e4 gives it, "
        "and the grid step 1.4 k_min then gives (5.19, 5e-9)", TAXI,
        kind="number", support="data unavailable")
def _sec62_373():
    p = taxi_pair(3.73, 3e-6)
    return dict(rarest_count=p["m"], trips_in_row=p["N_row"], delta_at_1_4_k_min=p["delta_14"]), \
        (agrees(p["m"], "10.3") and agrees(p["N_row"], "1.08e4") and p["N_row"] < TAXI_N_PAPER
         and agrees(p["delta_14"], "5e-9"))


@add_claim("sec6.2-5.19", "Sec. 6.2", "delta = 5e-9 at epsilon = 5.19.", "consistency", "not reproducible",
        "needs the authors' data; the row that gives (3.73, 3e-6) reaches epsilon = 5.19 at k = 1.397 k_min, next to "
        "the level 1.4 of the paper's grid, where delta is 4.8e-9 ~ 5e-9", TAXI,
        kind="number", support="data unavailable")
def _sec62_519():
    p = taxi_pair(3.73, 3e-6)
    e, m, N_row = p["eta"], p["m"], p["N_row"]
    s = brentq(lambda s: privacy.epsilon_paper(s * 1.5 / e, e, round(N_row), 65, TAXI_GAMMA) - 5.19,
               1.0, 3.0)
    return (dict(k_over_k_min=s, delta_at_1_4=p["delta_14"]),
            agrees(s, "1.397") and agrees(p["delta_14"], "4.8e-9"))


@add_claim("intro-6e-6", "Sec. 1 (contributions) vs Sec. 6.2, Sec. 7", "The introduction reports "
        "(3.73, 6e-6)-DP; Section 6.2 and the conclusion report (3.73, 3e-6).", "consistency",
        "inconsistent within the paper",
        "the two deltas differ by a factor 2; from 6e-6 the grid step to 1.4 k_min gives "
        "1.3e-8, not the reported 5e-9, while 3e-6 gives 4.8e-9: 3e-6 is the consistent value",
        TAXI,
        kind="number", support="computation")
def _intro_6e6():
    p3, p6 = taxi_pair(3.73, 3e-6), taxi_pair(3.73, 6e-6)
    return (dict(delta_14_from_3e_6=p3["delta_14"], delta_14_from_6e_6=p6["delta_14"]),
            agrees(p6["delta_14"], "1.3e-8") and agrees(p3["delta_14"], "4.8e-9"))


@add_claim("concl-3.73", "Sec. 7", "Conclusion: (3.73, 3e-6)-DP with less than 2% error on "
        "N = 2,933,898 trips.", "consistency", "not reproducible",
        "needs the authors' data; agrees with Section 6.2 (E[TV] = 0.017; a row whose rarest "
        "transition has 10.3 trips gives (3.73, 3e-6) and then 4.8e-9 at 1.4 k_min) and with eqs. (6)-(7); disagrees with the "
        "introduction's 6e-6", TAXI,
        kind="number", support="data unavailable")
def _concl():
    p = taxi_pair(3.73, 3e-6)
    return (dict(delta_at_1_4_k_min=p["delta_14"], rarest_count=p["m"]),
            agrees(p["delta_14"], "4.8e-9") and agrees(p["m"], "10.3") and p["N_row"] < TAXI_N_PAPER)


@add_claim("abstract-2pct", "Abstract, Sec. 1, Sec. 7", "Under a typical privacy level the "
        "stationary distribution has less than 2% error.", "reproduction", "not reproducible",
        "the paper's data are not available; on the shipped TLC sample (ten times fewer trips) "
        "the error is 0.023 at the strongest level (epsilon 2.56) and 0.019 at epsilon 3.8: "
        "the same order", TAXI,
        kind="number", support="data unavailable")
def _abstract_2pct():
    tv1, se1 = taxi_tv(1.0)
    tv15, se15 = taxi_tv(1.5)
    return (dict(tv_at_k_min=tv1, eps_at_k_min=taxi_eps(1.0), tv_at_1_5_k_min=tv15,
                 eps_at_1_5_k_min=taxi_eps(1.5)),
            agrees(tv1, "0.023", se1) and agrees(tv15, "0.019", se15)
            and agrees(taxi_eps(1.0), "2.56") and agrees(taxi_eps(1.5), "3.8")
            and taxi_chain()[0] < TAXI_N_PAPER)


@add_claim("sec6.2-tv", "Sec. 6.2", "At (3.73, 3e-6) the mean TV distance between the stationary "
        "distributions is 0.017.", "reproduction", "not reproducible",
        "needs the January 2025 file; our chain gives the same order (0.019 at epsilon ~3.8)",
        TAXI,
        kind="number", support="data unavailable")
def _sec62_tv():
    tv15, se = taxi_tv(1.5)
    return (dict(tv_at_1_5_k_min=tv15, se=se, eps=taxi_eps(1.5)),
            agrees(tv15, "0.019", se) and agrees(taxi_eps(1.5), "3.8"))


@add_claim("fig-2", "Fig. 2", "As epsilon grows, the private stationary distribution approaches "
        "the non-private one.", "Monte Carlo", "supported numerically, not proved",
        "on the book's taxi chain the error falls like 1/sqrt(k): E[TV] at k_min / at 3 k_min "
        "is 1.74, within 5 standard errors of the first-order law's sqrt(3) = 1.732 (E[TV] = "
        "0.023 at k_min)", TAXI,
        kind="statement", support="numerical evidence only",
        checked="the book's taxi chain at k = k_min and 3 k_min, 200 releases each")
def _fig2():
    """Rests on ``chain.privatize_chain`` and ``stationary.stationary_distribution``.

    Wrong implementations it fails on: a stationary distribution of the columns (tv and the
    ratio move); k_i slipped by a few percent, or given to the wrong rows: E[TV] moves by less
    than its quoted tolerance, so the releases' spread is tested too (``taxi_spread``: their
    total variance against Dir(k_i C_i)'s, |z| < 5, the sampling rule; 5 % too much k gives
    z = -12).  Planted and flipping this check: tests/test_claim_mutants.py.
    """
    tv1, se1 = taxi_tv(1.0)
    tv3, se3 = taxi_tv(3.0)
    ratio = tv1 / tv3
    se = ratio * np.hypot(se1 / tv1, se3 / tv3)
    # first-order theory: E[TV] ~ 1/sqrt(k), so the ratio is sqrt(3) up to sampling error
    return (dict(ratio=ratio, se=se, sqrt3=float(np.sqrt(3)), tv_at_k_min=tv1),
            abs(ratio - np.sqrt(3)) < 5 * se and agrees(ratio, "1.74", se)
            and agrees(tv1, "0.023", se1) and all(abs(taxi_spread(s)) < 5 for s in (1.0, 3.0)))


@add_claim("fig-3", "Fig. 3", "The expected TV distance of the stationary distributions decreases "
        "as epsilon grows.", "Monte Carlo", "supported numerically, not proved",
        "E[TV] decreases over k = (1, 1.5, 3) k_min (0.023, 0.019, 0.013) beyond 5 standard "
        "errors", TAXI,
        kind="statement", support="numerical evidence only",
        checked="the book's taxi chain at k = (1, 1.5, 3) k_min, 200 releases each")
def _fig3():
    """Rests on ``chain.privatize_chain`` and ``stationary.stationary_distribution``.

    Wrong implementations it fails on: those of ``_fig2`` (the same releases), at the three
    scales of the figure: the spread of the releases at each is that of Dir(k_i C_i)
    (``taxi_spread``, |z| < 5), so a k that is slightly off, or off at one scale only, fails.
    """
    vals = [taxi_tv(s) for s in (1.0, 1.5, 3.0)]
    ok = (all(a[0] - b[0] > 5 * np.hypot(a[1], b[1]) for a, b in zip(vals, vals[1:]))
          and all(agrees(v, q, s) for (v, s), q in zip(vals, ("0.023", "0.019", "0.013")))
          and all(abs(taxi_spread(s)) < 5 for s in (1.0, 1.5, 3.0)))
    return dict(tv_1=vals[0][0], tv_1_5=vals[1][0], tv_3=vals[2][0]), ok



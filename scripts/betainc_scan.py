"""Measure scipy's incomplete Beta function against its budget (``_numerics.betainc_budget``).

Draws random shapes and points, evaluates ``scipy.special.betainc`` where ``log_betainc``
trusts it (values from 1e-200 to 1), and compares its logarithm with the 40-digit value of
``verify.highprec.lower_tail``.  Prints how many cases were checked and the worst ratio of
the error to the budget, with its case; exit status 1 if a ratio exceeds 1.

    .venv/bin/python scripts/betainc_scan.py [--cases 12000] [--seed 22] [--whole | --large]

The three families: ``--whole`` draws whole shapes with the smaller below 200 and the larger
up to 1e9 (Boost's binomial path below 40); ``--large`` both shapes large, the smaller from
1e4 to 5e8 and the larger up to 1000 times it; otherwise a from 0.3 to 3e4 and b from 1 to
1e12 (either way round).  x lies from 40 standard deviations below the mean to 8 above (30
below to 4 above for ``--large``).  Cases whose reference would need more than about 10^4
series terms (2.5 10^5 for ``--large``) are skipped (mpmath's time).  The numbers quoted at
``BETAINC_LOG_REL`` come from the default run (5,048 cases checked, worst ratio 0.115) and
from ``--whole --seed 21 --cases 19000`` (8,095 checked, worst 0.035); those at
``BETAINC_SHAPE_REL`` from ``--large``.
tests/test_delta.py checks the worst cases found (``_BETAINC_WORST``), each beyond the
budget ``log_betainc`` had before.
"""
from __future__ import annotations

import argparse
import sys

import mpmath as mp
import numpy as np
from scipy.special import betainc

from dpmarkov._numerics import betainc_budget
from dpmarkov.verify.highprec import lower_tail, series_terms


def scan(cases, seed, family):
    """(checked, worst) over ``cases`` draws: worst = (ratio, error, budget, a, b, x, I)."""
    rng = np.random.default_rng(seed)
    worst, checked = (0.0,), 0
    terms, low, high = (2.5e5, -30, 4) if family == "large" else (1e4, -40, 8)
    for _ in range(cases):
        if family == "whole":
            a, b = float(rng.integers(1, 200)), float(np.floor(10 ** rng.uniform(0.5, 9)))
        elif family == "large":
            a = 10 ** rng.uniform(4, 8.7)
            b = a * 10 ** rng.uniform(0, 3)
        else:
            a, b = 10 ** rng.uniform(-0.5, 4.5), 10 ** rng.uniform(0, 12)
        if rng.random() < 0.5:
            a, b = b, a
        mean = a / (a + b)
        sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        x = mean + rng.uniform(low, high) * sd
        if not 0 < x < 1 or min(series_terms(a, b, x), series_terms(b, a, 1 - x)) > terms:
            continue
        value = betainc(a, b, x)
        ratio0 = (a + b) * x / (a + 1)
        if not value >= 1e-200 or (value < 1e-9 and (series_terms(a, b, x) > terms or (
                ratio0 < 1 and 200 / (1 - ratio0) > 10 * terms))):
            continue                         # a small tail whose direct series is too long
        error = abs(float(mp.log(value) - mp.log(lower_tail(a, b, x, dps=40))))
        budget = float(betainc_budget(a, b, np.log(value)))
        checked += 1
        if error / budget > worst[0]:
            worst = (error / budget, error, budget, a, b, x, value)
    return checked, worst


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=12000)
    parser.add_argument("--seed", type=int, default=22)
    family = parser.add_mutually_exclusive_group()
    family.add_argument("--whole", action="store_true")
    family.add_argument("--large", action="store_true")
    args = parser.parse_args(argv)
    checked, worst = scan(args.cases, args.seed,
                          "whole" if args.whole else "large" if args.large else "other")
    print(f"{checked} cases; worst error / budget {worst[0]:.3g}"
          + (" at error {:.3g}, budget {:.3g}, a = {:.6g}, b = {:.6g}, x = {:.6g}, "
             "I = {:.3g}".format(*worst[1:]) if checked else ""))
    return 1 if worst[0] > 1 else 0


if __name__ == "__main__":
    sys.exit(main())

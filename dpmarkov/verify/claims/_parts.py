"""The one import header of the registry's parts (book: "Verification report").

Every part (``foundations``, ``privacy``, ``accuracy``, ``chains``, ``grades``, ``taxi``)
starts with ``from ._parts import *``: numpy, the package modules its checks call, the
independent twins they compare with (``dpmarkov.verify``), the registry's constants, chapter
names and decorator (``_core``), and the helpers shared by several parts (``_shared``).
"""
from __future__ import annotations

import numpy as np
from scipy.special import betaln

from ... import (_checks, accuracy, audit, chain, composition, ergodicity, loss, mechanism,
                 privacy, profile, simplex, stationary)
from .. import bruteforce, highprec, highprec_privacy
from ._core import (ACC, AUDIT, CHAINS, GRADE, GRADE_MIN_COUNT, GRADES, K_GRID, KLW, MECH, PRELIM,
                    PRIV_DELTA, PRIV_EPS, PRIV_LOSS, PRIV_N2, PRIV_PROFILE, SEED, STAT,
                    STAT_BOUNDS, TAXI, TAXI_GAMMA, TAXI_N_PAPER, add_claim, agrees)
from ._shared import (JOINT_SPECS, ILLUSTRATIVE_GRADES, delta_star, eta_for_delta, joint_chain, leaky_rr,
                      line_chain, m_for_eps, taxi_chain, taxi_eps, taxi_pair, taxi_spread, taxi_tv,
                      brentq)

__all__ = [
    "np", "betaln",
    "_checks", "accuracy", "audit", "chain", "composition", "ergodicity", "loss", "mechanism",
    "privacy", "profile", "simplex", "stationary", "bruteforce", "highprec", "highprec_privacy",
    "ACC", "AUDIT", "CHAINS", "GRADE", "GRADE_MIN_COUNT", "GRADES", "K_GRID", "KLW", "MECH",
    "PRELIM", "PRIV_DELTA", "PRIV_EPS", "PRIV_LOSS", "PRIV_N2", "PRIV_PROFILE", "SEED", "STAT",
    "STAT_BOUNDS", "TAXI", "TAXI_GAMMA", "TAXI_N_PAPER", "add_claim", "agrees",
    "JOINT_SPECS", "ILLUSTRATIVE_GRADES", "delta_star", "eta_for_delta", "joint_chain", "leaky_rr",
    "line_chain", "m_for_eps", "taxi_chain", "taxi_eps", "taxi_pair", "taxi_spread", "taxi_tv", "brentq",
]

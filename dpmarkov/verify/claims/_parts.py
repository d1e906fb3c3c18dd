"""The one import header of the registry's parts (book: "Verification report").

Every part (``foundations``, ``privacy``, ``accuracy``, ``chains``, ``grades``, ``taxi``)
starts with ``from ._parts import *``: numpy, the package modules its checks call, the
independent twins they compare with (``dpmarkov.verify``), the registry's constants, chapter
names and decorator (``_core``), and the helpers shared by several parts (``_shared``).
"""
from __future__ import annotations

import numpy as np
from scipy.special import betaln

from ... import (_checks, accuracy, audit, chain, composition, loss, mechanism, privacy, profile,
                 simplex)
from .. import bruteforce, highprec, highprec_privacy
from ._core import (ACC, AUDIT, CHAINS, GRADE, GRADE_MIN_COUNT, GRADES, K_GRID, KLW, MECH, PRELIM,
                    PRIV_DELTA, PRIV_EPS, PRIV_LOSS, PRIV_N2, PRIV_PROFILE, SEED, STAT,
                    STAT_BOUNDS, TAXI, TAXI_GAMMA, TAXI_N_PAPER, _claim, agrees)
from ._shared import (_SPECS, ILLUSTRATIVE_GRADES, _delta_star, _eta_for_delta, _joint, _leaky_rr,
                      _line, _m_for_eps, _taxi, _taxi_eps, _taxi_pair, _taxi_tv, brentq)

__all__ = [
    "np", "betaln",
    "_checks", "accuracy", "audit", "chain", "composition", "loss", "mechanism", "privacy",
    "profile", "simplex", "bruteforce", "highprec", "highprec_privacy",
    "ACC", "AUDIT", "CHAINS", "GRADE", "GRADE_MIN_COUNT", "GRADES", "K_GRID", "KLW", "MECH",
    "PRELIM", "PRIV_DELTA", "PRIV_EPS", "PRIV_LOSS", "PRIV_N2", "PRIV_PROFILE", "SEED", "STAT",
    "STAT_BOUNDS", "TAXI", "TAXI_GAMMA", "TAXI_N_PAPER", "_claim", "agrees",
    "_SPECS", "ILLUSTRATIVE_GRADES", "_delta_star", "_eta_for_delta", "_joint", "_leaky_rr",
    "_line", "_m_for_eps", "_taxi", "_taxi_eps", "_taxi_pair", "_taxi_tv", "brentq",
]

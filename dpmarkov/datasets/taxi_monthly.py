"""NYC taxi trips month by month: 36 releases of the same chain (book: "Many releases").

The shipped file ``taxi_trip_counts_monthly.csv.gz`` holds the trips per (year, month,
pickup zone, drop-off zone) of the 36 monthly TLC samples 2018-01 ... 2020-12 (10,000
trips each; provenance in ``data/PROVENANCE-taxi.md``).  Summed over the months of a year
it equals the yearly file behind ``load_taxi_counts`` (a test checks this).
"""
from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .taxi import trip_counts

_DATA = resources.files("dpmarkov.datasets") / "data"


def load_taxi_monthly_counts(borough="Manhattan"):
    """One count matrix per month: ``(months, counts, zones)``.

    ``months`` is a list of (year, month) pairs in time order (36 of them),
    ``counts`` an int64 array of shape (36, n, n) with ``counts[t, i, j]`` the trips of
    month t from zone i to zone j within ``borough`` (69 zones for Manhattan), and
    ``zones`` the zone table of the borough (row i is state i), as ``trip_counts`` gives.
    Book: chapter "Many releases".
    """
    with resources.as_file(_DATA / "taxi_trip_counts_monthly.csv.gz") as path:
        table = pd.read_csv(path)
    months = sorted({(int(y), int(m)) for y, m in zip(table["year"], table["month"])})
    mats, zones = [], None
    for year, month in months:
        part = table[(table["year"] == year) & (table["month"] == month)]
        counts, zones = trip_counts(part["PULocationID"], part["DOLocationID"],
                                    weights=part["trips"], borough=borough)
        mats.append(counts)
    return months, np.stack(mats), zones

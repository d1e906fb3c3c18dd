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

from .taxi import state_counts, trip_counts

_DATA = resources.files("dpmarkov.datasets") / "data"


def load_taxi_monthly_counts(borough="Manhattan"):
    """One count matrix per month: ``(months, counts, zones)``.

    ``months`` is a list of (year, month) pairs in time order (36 of them),
    ``counts`` an int64 array of shape (36, n, n) with ``counts[t, i, j]`` the trips of
    month t from zone i to zone j within ``borough`` (69 zones for Manhattan), and
    ``zones`` the zone table of the borough (row i is state i), as ``trip_counts`` gives.
    The file is read once and ``trip_counts`` checks every zone id and trip count of
    all months in one call; the months are then counted by its counting step with the
    month as a layer (one ``bincount`` over (month, pickup, drop-off)), the same counts as
    one ``trip_counts`` call per month (a test compares the two).  Book: chapter "Many releases".
    """
    with resources.as_file(_DATA / "taxi_trip_counts_monthly.csv.gz") as path:
        table = pd.read_csv(path)
    year, month = table["year"].to_numpy(np.int64), table["month"].to_numpy(np.int64)
    keys, t = np.unique(12 * year + (month - 1), return_inverse=True)   # time order
    months = [(int(k // 12), int(k % 12) + 1) for k in keys]
    _, zones = trip_counts(table["PULocationID"], table["DOLocationID"],
                           weights=table["trips"], borough=borough)     # checks every row
    counts = state_counts(zones["LocationID"].to_numpy(np.int64),
                           table["PULocationID"].to_numpy(np.int64),
                           table["DOLocationID"].to_numpy(np.int64),
                           table["trips"].to_numpy(float), t, len(months))
    return months, counts, zones

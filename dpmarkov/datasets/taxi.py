"""NYC taxi trips as a Markov chain over taxi zones (the paper's Section 6.2).

State i of the chain is a TLC taxi zone; the count ``counts[i, j]`` is the number
of trips picked up in zone i and dropped off in zone j, so row i is the database
D_i of all departures from zone i and its count vector is row i of eq. (4).
Book: chapter "Case study: NYC taxis".

Shipped data (see ``data/PROVENANCE-taxi.md``): trip counts per (year, pickup,
drop-off) aggregated from 36 monthly samples of 10,000 TLC trip records
(2018-2020), and the TLC zone table.  The paper's own data, the full January 2025
file, is not shipped; ``trip_counts_from_file`` reads that layout (CSV or parquet)
so the case study can be rerun on it.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

_DATA = resources.files("dpmarkov.datasets") / "data"

# Column names of the trip files: the TLC layout first, then the samples' names.
ID_COLUMNS = (("PULocationID", "DOLocationID"), ("pickup_location_id", "dropoff_location_id"))


def load_taxi_zones() -> pd.DataFrame:
    """The TLC taxi zone table: ``LocationID, Borough, Zone, service_zone`` (265 rows).

    Book: chapter "Case study: NYC taxis".
    """
    with resources.as_file(_DATA / "taxi_zone_lookup.csv") as path:
        return pd.read_csv(path)


def _zone_table(zones) -> pd.DataFrame:
    """The zone table given by the user (DataFrame or CSV path), or the shipped one."""
    if zones is None:
        return load_taxi_zones()
    if isinstance(zones, (str, Path)):
        zones = pd.read_csv(zones)
    if not isinstance(zones, pd.DataFrame):
        raise TypeError(f"zones={zones!r} must be None, a DataFrame or a path to a CSV file")
    missing = [c for c in ("LocationID", "Borough", "Zone") if c not in zones.columns]
    if missing:
        raise ValueError(f"zones lacks the columns {missing}: a TLC zone table has "
                         f"LocationID, Borough, Zone (it has {list(zones.columns)})")
    return zones


def _borough_zones(borough, zones: pd.DataFrame) -> pd.DataFrame:
    """The zones of ``borough`` (``None``: every zone), sorted by LocationID."""
    if borough is not None:
        known = sorted(zones["Borough"].dropna().unique())
        if borough not in known:
            raise ValueError(f"borough={borough!r} is not in the zone table: choose one of "
                             f"{known} or None for every zone")
        zones = zones[zones["Borough"] == borough]
    return zones.sort_values("LocationID").reset_index(drop=True)


def trip_counts(pickup, dropoff, *, weights=None, borough="Manhattan", zones=None):
    """Count matrix of trips from pickup zone to drop-off zone (eq. (4) before normalising).

    Parameters
    ----------
    pickup, dropoff : array-like of zone ids (TLC ``LocationID``), one per trip.
    weights : array-like, optional
        Trips per (pickup, dropoff) pair when the input is already aggregated;
        whole numbers >= 0.  Default: one trip per entry.
    borough : str or None
        Keep only trips that start *and* end in this borough (the chain's state
        space is the borough's zones).  ``None`` keeps all zones of the table.
    zones : DataFrame, path or None
        The zone table; default the shipped TLC table (``load_taxi_zones``).

    Returns
    -------
    counts : int64 array (n, n)
        ``counts[i, j]`` = trips from zone ``zones_out.LocationID[i]`` to zone
        ``zones_out.LocationID[j]``.  Zones of the borough with no trip keep their
        (zero) row and column, so the shape is fixed by the zone table.
    zones_out : DataFrame
        The zone table restricted to the borough, sorted by LocationID; row i is state i.

    Raises ``ValueError`` for missing or non-integer ids and for ids that are not
    in the zone table (a silent drop would change the chain).
    Book: chapter "Case study: NYC taxis".
    """
    table = _zone_table(zones)
    states = _borough_zones(borough, table)
    ids = {}
    for name, value in (("pickup", pickup), ("dropoff", dropoff)):
        arr = pd.to_numeric(pd.Series(np.asarray(value).ravel()), errors="coerce").to_numpy(float)
        if np.any(~np.isfinite(arr)):
            raise ValueError(f"{name} has {int(np.sum(~np.isfinite(arr)))} missing or "
                             "non-numeric zone ids: every trip needs a zone id")
        if np.any(arr != np.round(arr)):
            raise ValueError(f"{name} contains {arr[arr != np.round(arr)][0]!r}: "
                             "zone ids are whole numbers")
        unknown = ~np.isin(arr, table["LocationID"].to_numpy())
        if np.any(unknown):
            raise ValueError(f"{name} contains zone id {int(arr[unknown][0])}, which is not "
                             "in the zone table")
        ids[name] = arr.astype(np.int64)
    if ids["pickup"].shape != ids["dropoff"].shape:
        raise ValueError(f"pickup has {ids['pickup'].size} trips but dropoff "
                         f"{ids['dropoff'].size}: one of each per trip")
    if weights is None:
        w = np.ones(ids["pickup"].size)
    else:
        w = np.asarray(weights, dtype=float).ravel()
        if w.shape != ids["pickup"].shape:
            raise ValueError(f"weights has {w.size} entries for {ids['pickup'].size} trips")
        if np.any(~np.isfinite(w)) or np.any(w < 0) or np.any(w != np.round(w)):
            raise ValueError("weights must be finite whole numbers >= 0 (trips per pair)")
    loc = states["LocationID"].to_numpy(np.int64)
    inside = np.isin(ids["pickup"], loc) & np.isin(ids["dropoff"], loc)
    i = np.searchsorted(loc, ids["pickup"][inside])
    j = np.searchsorted(loc, ids["dropoff"][inside])
    n = loc.size
    flat = np.bincount(i * n + j, weights=w[inside], minlength=n * n)
    return np.rint(flat).astype(np.int64).reshape(n, n), states


def load_taxi_counts(borough="Manhattan", *, years=None):
    """The shipped taxi chain: trips from zone to zone within ``borough``.

    Aggregates the 36 monthly TLC samples (2018-01 ... 2020-12, 10,000 trips each);
    ``years`` (an int or a list of 2018, 2019, 2020) keeps those years only.
    For Manhattan (69 zones; 301,456 trips over all years) the result is the
    69 x 69 count matrix; zones without a trip keep zero rows.

    Returns ``(counts, zones)`` as ``trip_counts`` does.
    Book: chapter "Case study: NYC taxis" (Section 6.2 of the paper).
    """
    with resources.as_file(_DATA / "taxi_trip_counts.csv") as path:
        table = pd.read_csv(path)
    available = sorted(table["year"].unique().tolist())
    if years is not None:
        wanted = sorted(set(np.atleast_1d(years).tolist()))
        bad = [y for y in wanted if y not in available]
        if bad or not wanted:
            raise ValueError(f"years={years!r}: the shipped samples cover {available}")
        table = table[table["year"].isin(wanted)]
    return trip_counts(table["PULocationID"], table["DOLocationID"], weights=table["trips"],
                       borough=borough)


def _id_columns(columns) -> tuple[str, str]:
    """The (pickup, dropoff) column names present in ``columns`` (case-insensitive)."""
    lower = {c.lower(): c for c in columns}
    for pu, do in ID_COLUMNS:
        if pu.lower() in lower and do.lower() in lower:
            return lower[pu.lower()], lower[do.lower()]
    raise ValueError(
        f"the file has no zone-id columns: expected {ID_COLUMNS[0]} (TLC layout) or "
        f"{ID_COLUMNS[1]} (sample layout); found {list(columns)}")


def trip_counts_from_file(path, *, borough="Manhattan", zones=None):
    """Count matrix from a TLC trip-record file, e.g. the paper's January 2025 month.

    Reads ``PULocationID`` / ``DOLocationID`` (the TLC layout; also the sample
    layout's ``pickup_location_id`` / ``dropoff_location_id``, any letter case)
    from a parquet file (suffix ``.parquet`` or ``.pq``) or a CSV file (possibly
    compressed, e.g. ``.csv.gz``), and returns ``(counts, zones)`` as
    ``trip_counts`` does.  Download the month from the TLC trip-record page and
    pass its path; the zone table defaults to the shipped one.
    Book: chapter "Case study: NYC taxis".
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path={str(path)!r} is not a file")
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        pu, do = _id_columns(pq.read_schema(path).names)
        frame = pd.read_parquet(path, columns=[pu, do])
    else:
        pu, do = _id_columns(pd.read_csv(path, nrows=0).columns)
        frame = pd.read_csv(path, usecols=[pu, do])
    return trip_counts(frame[pu], frame[do], borough=borough, zones=zones)

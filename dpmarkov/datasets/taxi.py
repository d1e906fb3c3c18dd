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
import numbers
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _checks

_DATA = resources.files("dpmarkov.datasets") / "data"

# Column names of the trip files: the TLC layout first, then the samples' names.
ID_COLUMNS = (("PULocationID", "DOLocationID"), ("pickup_location_id", "dropoff_location_id"))


#: Trips per (pickup, dropoff) pair are summed in doubles: exact up to 2**53.
MAX_TRIPS = 2**53


def read_table(path, *, what="file", **kwargs) -> pd.DataFrame:
    """``pd.read_csv`` (or parquet for ``.parquet``/``.pq``) with errors that name the file.

    A directory, a missing file, an empty, truncated (gzip) or binary file, or a
    fake parquet raise ``ValueError`` naming the path and what is wrong with it.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"{what}={_checks.show(path)} must be a path (str or pathlib.Path)")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what}={str(path)!r} is not a file")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(path, **kwargs)
        return pd.read_csv(path, **kwargs)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, EOFError,
            OSError, ValueError, TypeError, KeyError, ImportError) as err:
        if isinstance(err, ValueError) and "zone" in str(err):
            raise
        raise ValueError(f"{what}={str(path)!r} cannot be read as a "
                         f"{'parquet' if path.suffix.lower() in ('.parquet', '.pq') else 'CSV'} "
                         f"table ({type(err).__name__}: {err})") from err


def _zone_ids(name: str, value) -> np.ndarray:
    """Zone ids as floats: text, bools and complex numbers refused; NaN/None/NA counted."""
    arr = np.asarray(value).ravel()
    if arr.dtype.kind in "bUSc":
        raise TypeError(f"{name} has dtype {arr.dtype}: zone ids are whole numbers "
                        "(text is never parsed, a bool is not an id)")
    if arr.dtype.kind == "O":
        out = np.empty(arr.size)
        for t, item in enumerate(arr):
            if item is None or item is pd.NA or (isinstance(item, float) and np.isnan(item)):
                out[t] = np.nan
            elif isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real):
                raise TypeError(f"{name}[{t}]={_checks.show(item)} is not a zone id "
                                "(a whole number)")
            else:
                try:
                    out[t] = float(item)
                except OverflowError as err:
                    raise ValueError(f"{name}[{t}]={_checks.show(item)} is no zone id") from err
        return out
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} has dtype {arr.dtype}: zone ids are whole numbers")
    return arr.astype(float)


def _whole_zone_ids(name: str, value, holder: str) -> np.ndarray:
    """``_zone_ids`` with none missing (NaN) and every id a whole number; ``holder`` is what
    needs an id (a zone of the table, a trip) for the message."""
    arr = _zone_ids(name, value)
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} has {int(np.sum(~np.isfinite(arr)))} missing (NaN) or "
                         f"non-numeric zone ids: every {holder} needs a zone id")
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name} contains {arr[arr != np.round(arr)][0]!r}: zone ids are "
                         "whole numbers")
    return arr


@_checks.public(finite=False)
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
        zones = read_table(zones, what="zones")
    if not isinstance(zones, pd.DataFrame):
        raise TypeError(f"zones={_checks.show(zones)} must be None, a DataFrame or a path to a "
                        "CSV file")
    missing = [c for c in ("LocationID", "Borough", "Zone") if c not in zones.columns]
    if missing:
        raise ValueError(f"zones lacks the columns {missing}: a TLC zone table has "
                         f"LocationID, Borough, Zone (it has {list(zones.columns)})")
    ids = _whole_zone_ids("zones.LocationID", zones["LocationID"], "zone")
    values, seen = np.unique(ids, return_counts=True)
    if np.any(seen > 1):
        raise ValueError(f"zones.LocationID repeats the id {values[seen > 1][0]:.0f}: each zone "
                         "id must be unique (a repeated id would merge two states)")
    zones = zones.copy()
    zones["LocationID"] = ids.astype(np.int64)
    return zones


def _borough_zones(borough, zones: pd.DataFrame) -> pd.DataFrame:
    """The zones of ``borough`` (``None``: every zone), sorted by LocationID."""
    if borough is not None:
        if not isinstance(borough, str):
            raise TypeError(f"borough={_checks.show(borough)} must be a borough name or None")
        known = sorted(zones["Borough"].dropna().unique())
        if borough not in known:
            raise ValueError(f"borough={borough!r} is not in the zone table: choose one of "
                             f"{known} or None for every zone")
        zones = zones[zones["Borough"] == borough]
    return zones.sort_values("LocationID").reset_index(drop=True)


@_checks.public(finite=False)
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
        arr = _whole_zone_ids(name, value, "trip")
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
        w = _checks.real_float_array("weights", weights).ravel()
        if w.shape != ids["pickup"].shape:
            raise ValueError(f"weights has {w.size} entries for {ids['pickup'].size} trips")
        if np.any(~np.isfinite(w)) or np.any(w < 0) or np.any(w != np.round(w)):
            raise ValueError("weights must be finite whole numbers >= 0 (trips per pair)")
        if np.any(w > MAX_TRIPS):
            raise ValueError(f"weights contains {w[w > MAX_TRIPS][0]!r}: at most 2**53 trips per "
                             "pair are counted exactly")
    loc = states["LocationID"].to_numpy(np.int64)
    return state_counts(loc, ids["pickup"], ids["dropoff"], w)[0], states


def state_counts(loc, pickup, dropoff, weights, layer=None, layers=1):
    """Trips per (layer, pickup state, drop-off state), an int64 array (layers, n, n).

    ``loc`` holds the states' zone ids, sorted (state i is ``loc[i]``); ``pickup``,
    ``dropoff`` and ``weights`` are checked trips (``trip_counts``), ``layer`` an index
    below ``layers`` per trip (default: one layer).  Trips that leave the states are
    dropped; each cell is one ``bincount`` sum, refused above 2**53.
    """
    inside = np.isin(pickup, loc) & np.isin(dropoff, loc)
    i = np.searchsorted(loc, pickup[inside])
    j = np.searchsorted(loc, dropoff[inside])
    n = loc.size
    cell = i * n + j if layer is None else (layer[inside] * n + i) * n + j
    flat = np.bincount(cell, weights=weights[inside], minlength=layers * n * n)
    if np.any(flat > MAX_TRIPS):
        raise ValueError(f"weights add up to {flat.max():.4g} trips for one pair: at most 2**53 "
                         "are counted exactly (a larger count would be rounded or wrap around)")
    return np.rint(flat).astype(np.int64).reshape(layers, n, n)


@_checks.public(finite=False)
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
        listed = list(years) if isinstance(years, (list, tuple)) else [years]
        for y in listed:
            _checks.whole("years", y, 0)
        wanted = sorted(set(int(y) for y in listed))
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


@_checks.public(finite=False)
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
    frame = read_table(path, what="path")
    pu, do = _id_columns(frame.columns)
    return trip_counts(frame[pu], frame[do], borough=borough, zones=zones)

"""NYC taxi trips as a Markov chain over taxi zones (the paper's Section 6.2).

State i of the chain is a TLC taxi zone; the count ``counts[i, j]`` is the number
of trips picked up in zone i and dropped off in zone j, so row i is the database
D_i of all departures from zone i and its count vector is row i of eq. (4).
Book: chapter "Case study: NYC taxis".

Shipped data (see ``data/PROVENANCE-taxi.md``): trip counts per (year, pickup,
drop-off) aggregated from 36 monthly samples of 10,000 TLC trip records
(2018-2020), and the TLC zone table.  The paper's own data, the full January 2025
file, is not shipped; ``trip_counts_from_file`` and ``count_trips`` (module
``trip_files``, on DuckDB) read that layout (CSV or parquet) so the case study can be
rerun on it; ``count_pairs`` here is their last step, shared with ``count_trips_spark``.
"""
from __future__ import annotations

from importlib import resources
import numbers
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import _checks

_DATA = resources.files("dpmarkov.datasets") / "data"

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



def _trips(name: str, value, size: int) -> np.ndarray:
    """Trips per entry (``size`` of them) as floats: finite whole numbers in [0, 2**53]."""
    w = _checks.real_float_array(name, value).ravel()
    if w.size != size:
        raise ValueError(f"{name} has {w.size} entries for {size} trips")
    if np.any(~np.isfinite(w)) or np.any(w < 0) or np.any(w != np.round(w)):
        raise ValueError(f"{name} must be finite whole numbers >= 0 (trips per pair)")
    if np.any(w > MAX_TRIPS):
        raise ValueError(f"{name} contains {w[w > MAX_TRIPS][0]!r}: at most 2**53 trips per "
                         "pair are counted exactly")
    return w


@_checks.public(finite=False)
def load_taxi_zones() -> pd.DataFrame:
    """The TLC taxi zone table: ``LocationID, Borough, Zone, service_zone`` (265 rows).

    The states of the taxi chain (Section 6.2 of the paper): zone i of a borough is
    state i once sorted by LocationID.  Book: chapter "Case study: NYC taxis".

    Returns
    -------
    pandas.DataFrame
        One row per TLC zone, columns ``LocationID, Borough, Zone, service_zone``.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.datasets.load_taxi_zones().shape
    (265, 4)
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

    Every id must be in the zone table: a silent drop would change the chain.  Zones of
    the borough with no trip keep their (zero) row and column, so the shape is fixed by
    the zone table.  Book: chapter "Case study: NYC taxis".

    Parameters
    ----------
    pickup, dropoff : array_like of int
        Zone ids (TLC ``LocationID``), one per trip, of equal lengths: whole numbers
        present in the zone table (no missing id).
    weights : array_like of int, optional
        Keyword only: trips per (pickup, dropoff) pair when the input is already
        aggregated; whole numbers in [0, 2^53], one per entry.  Default: one trip per
        entry.
    borough : str or None, optional
        Keyword only: keep only trips that start *and* end in this borough (the chain's
        state space is the borough's zones; default ``"Manhattan"``).  ``None`` keeps
        all zones of the table.
    zones : pandas.DataFrame, str, pathlib.Path or None, optional
        Keyword only: the zone table (columns ``LocationID, Borough, Zone``, unique
        whole ids) or a path to it; default the shipped TLC table
        (``load_taxi_zones``).

    Returns
    -------
    counts : numpy.ndarray of int64, shape (n, n)
        ``counts[i, j]`` = trips from zone ``zones_out.LocationID[i]`` to zone
        ``zones_out.LocationID[j]``.
    zones_out : pandas.DataFrame
        The zone table restricted to the borough, sorted by LocationID; row i is state i.

    Raises
    ------
    TypeError
        If ids are text, booleans or not numbers, ``borough`` is neither a string nor
        None, or ``zones`` is neither None, a DataFrame nor a path.
    ValueError
        If an id is missing, not a whole number or not in the zone table; if
        ``pickup`` and ``dropoff`` differ in length; if ``weights`` are not whole
        numbers in [0, 2^53] (one per trip) or a pair sums above 2^53; if ``borough``
        is not in the table; or if ``zones`` lacks a column, repeats an id or cannot be
        read.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> counts, zones = dm.datasets.trip_counts([237, 236, 132], [236, 237, 138])
    >>> counts.shape, int(counts.sum()), len(zones)
    ((69, 69), 2, 69)
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
    w = np.ones(ids["pickup"].size) if weights is None else _trips("weights", weights,
                                                                  ids["pickup"].size)
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
    Book: chapter "Case study: NYC taxis" (Section 6.2 of the paper).

    Parameters
    ----------
    borough : str or None, optional
        The chain's zones: a borough of the TLC zone table (default ``"Manhattan"``),
        or ``None`` for all 265 zones.
    years : int, list of int, tuple of int or None, optional
        Keyword only: the years to keep, among 2018, 2019 and 2020 (default all).

    Returns
    -------
    counts : numpy.ndarray of int64, shape (n, n)
        The trip counts between the borough's zones, as ``trip_counts`` returns.
    zones : pandas.DataFrame
        The borough's zones, sorted by LocationID; row i is state i.

    Raises
    ------
    TypeError
        If a year is not an int (a bool, float or text), or ``borough`` is neither a
        string nor None.
    ValueError
        If ``years`` is empty or names a year not shipped, or ``borough`` is not in the
        zone table.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> counts, zones = dm.datasets.load_taxi_counts("Manhattan", years=2020)
    >>> counts.shape, int(counts.sum())
    ((69, 69), 99475)
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


class TripCounts(NamedTuple):
    """A count matrix with its accounting: every trip read is counted, outside or missing.

    ``counts`` and ``zones`` are what ``trip_counts`` returns (``counts[i, j]``: trips
    from zone ``zones.LocationID[i]`` to zone ``zones.LocationID[j]``).  The totals are
    trips (rows of a trip file; with a weight column, the sum of its weights):
    ``trips_read = trips_counted + trips_outside + trips_missing``, where
    ``trips_outside`` start or end in a zone of the table outside the chain's zones
    (another borough) and ``trips_missing`` lack a pickup or drop-off zone id.
    ``files`` names the files read, in order (empty when the input was not files).

    The counts are eq. (4)'s count matrix before normalising.  Book: chapter "Case study:
    NYC taxis" (section "From a month to the whole history").

    The fields, in order: ``counts`` (trips from state i to state j, int64, shape (n, n)),
    ``zones`` (the chain's zones sorted by LocationID, row i is state i), ``trips_read``,
    ``trips_counted``, ``trips_outside``, ``trips_missing`` (ints) and ``files`` (a tuple of
    file names).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> r = dm.datasets.count_pairs([237, 132, None], [236, 138, 4], [5, 1, 3])
    >>> r.trips_read == r.trips_counted + r.trips_outside + r.trips_missing, r.files
    (True, ())
    """

    counts: np.ndarray
    zones: pd.DataFrame
    trips_read: int
    trips_counted: int
    trips_outside: int
    trips_missing: int
    files: tuple = ()


@_checks.public(finite=False)
def count_pairs(pickup, dropoff, trips, *, borough="Manhattan", zones=None) -> TripCounts:
    """Count matrix from trips per (pickup, drop-off) pair, with missing ids counted apart.

    The last step of counting trips with an engine (``count_trips`` on DuckDB,
    ``count_trips_spark`` on Spark, or any engine of yours): the engine groups the trips
    by their two zone ids, which leaves at most one row per pair of ids (about 70,000
    for the TLC's 265 zones, whatever the number of trips), and this function turns the
    pairs into the chain's count matrix (eq. (4) before normalising) with the checks of
    ``trip_counts``.

    Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").

    Parameters
    ----------
    pickup, dropoff : array_like
        Zone ids of each pair (TLC ``LocationID``), of equal lengths; a missing id is
        ``None``, ``pandas.NA`` or NaN.
    trips : array_like of int
        Trips of each pair: whole numbers >= 0, at most 2^53 a pair.
    borough : str or None, optional
        Keyword only: the chain's zones, as for ``trip_counts`` (default
        ``"Manhattan"``; ``None``: every zone of the table).
    zones : pandas.DataFrame, str, pathlib.Path or None, optional
        Keyword only: the zone table; default the shipped TLC table
        (``load_taxi_zones``).

    Returns
    -------
    TripCounts
        ``counts`` (int64, n x n), ``zones`` (row i is state i) and the trips read,
        counted, outside the chain's zones and with a missing id.

    Raises
    ------
    TypeError
        For text or boolean ids, or ``borough``/``zones`` of a wrong type (as
        ``trip_counts``).
    ValueError
        For an id that is not a whole number or not in the zone table (a wrong zone
        table must not drop trips silently), unequal lengths, or bad trip numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> r = dm.datasets.count_pairs([237, 237, 132, None], [236, 48, 138, 4], [5, 2, 1, 3])
    >>> int(r.trips_counted), int(r.trips_outside), int(r.trips_missing)
    (7, 1, 3)
    """
    ids = {name: _zone_ids(name, value) for name, value in (("pickup", pickup),
                                                            ("dropoff", dropoff))}
    if ids["pickup"].shape != ids["dropoff"].shape:
        raise ValueError(f"pickup has {ids['pickup'].size} pairs but dropoff "
                         f"{ids['dropoff'].size}: one of each per pair")
    w = _trips("trips", trips, ids["pickup"].size)
    missing = np.isnan(ids["pickup"]) | np.isnan(ids["dropoff"])
    counts, states = trip_counts(ids["pickup"][~missing], ids["dropoff"][~missing],
                                 weights=w[~missing], borough=borough, zones=zones)
    read = int(w.astype(np.int64).sum())
    lost = int(w[missing].astype(np.int64).sum())
    counted = int(counts.sum())
    return TripCounts(counts, states, read, counted, read - lost - counted, lost)

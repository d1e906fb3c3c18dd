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

pandas is imported only where a table is built or read with it: counting the trips of a
file against the shipped zone table (``count_pairs`` with ``zones=None``) needs numpy only,
and ``TripCounts.zones`` builds its table on first use.
"""
from __future__ import annotations

import csv
import functools
import numbers
import sys
from importlib import resources
from pathlib import Path

import numpy as np

from .. import _checks

_DATA = resources.files("dpmarkov.datasets") / "data"

#: Trips given as floats are whole numbers up to 2**53 (above it a double is not a count).
MAX_TRIPS = 2**53

#: The largest count a cell of the int64 count matrix holds; trips are summed in integers.
MAX_COUNT = 2**63 - 1


def read_table(path, *, what="file", **kwargs):
    """``pd.read_csv`` (or parquet for ``.parquet``/``.pq``) with errors that name the file.

    A directory, a missing file, an empty, truncated (gzip) or binary file, or a
    fake parquet raise ``ValueError`` naming the path and what is wrong with it.
    """
    import pandas as pd

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


def _is_na(item) -> bool:
    """``item is pandas.NA``, without importing pandas (no NA exists before it is imported)."""
    pd = sys.modules.get("pandas")
    return pd is not None and item is pd.NA


def _zone_ids(name: str, value) -> np.ndarray:
    """Zone ids as floats: text, bools and complex numbers refused; NaN/None/NA counted."""
    arr = np.asarray(value).ravel()
    if arr.dtype.kind in "bUSc":
        raise TypeError(f"{name} has dtype {arr.dtype}: zone ids are whole numbers "
                        "(text is never parsed, a bool is not an id)")
    if arr.dtype.kind == "O":
        out = np.empty(arr.size)
        for t, item in enumerate(arr):
            if item is None or _is_na(item) or (isinstance(item, float) and np.isnan(item)):
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
    """Trips per entry (``size`` of them) as int64: whole numbers >= 0, each entry checked.

    Integers (numpy integers or Python ints) are exact up to ``MAX_COUNT``; floats must be
    finite whole numbers up to 2**53 (a larger double is no exact count: pass integers).
    """
    arr = np.asarray(value)
    if arr.dtype.kind == "O" and all(isinstance(x, numbers.Integral) and not
                                     isinstance(x, (bool, np.bool_)) for x in arr.flat):
        arr = np.array([int(x) if 0 <= int(x) <= MAX_COUNT else -1 for x in arr.flat],
                       dtype=np.int64)
    if arr.dtype.kind in "iu":
        w = arr.ravel()
        bad = (w > MAX_COUNT) if arr.dtype.kind == "u" else (w < 0)
        rule = "whole numbers in [0, 2**63 - 1]"
    else:
        w = _checks.real_float_array(name, value).ravel()
        bad = ~np.isfinite(w) | (w < 0) | (w != np.round(w)) | (w > MAX_TRIPS)
        rule = "finite whole numbers in [0, 2**53] when given as floats (pass integers above)"
    if w.size != size:
        raise ValueError(f"{name} has {w.size} entries for {size} trips")
    if np.any(bad):
        t = int(np.argmax(bad))
        shown = np.asarray(value).ravel()[t]
        raise ValueError(f"{name} must be {rule} (trips per pair): {name}[{t}]="
                         f"{_checks.show(shown.item() if hasattr(shown, 'item') else shown)}")
    return w.astype(np.int64)


def exact_sum(values: np.ndarray) -> int:
    """The sum of an int64 array as a Python int, exact whatever its size (no wrap-around)."""
    if values.size == 0:
        return 0
    if int(np.abs(values).max()) * values.size <= MAX_COUNT:
        return int(values.sum())
    return sum(map(int, values))


def in_table(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``np.isin(ids, table)`` for float ``ids`` (NaN and infinities are in no table), by a
    binary search in the sorted ``table``.

    numpy's ``isin`` of float arrays goes through ``np.unique``, which imports numpy.ma:
    after DuckDB's query that import alone adds about 10 MiB to a cold count's peak
    memory (benchmarks/README.md, "Cold start").  The comparison is numpy's (the table
    promoted to float64), so the result is ``np.isin``'s (a test compares them).
    """
    ref = np.sort(np.asarray(table, dtype=float).ravel())
    if ref.size == 0:
        return np.zeros(np.shape(ids), dtype=bool)
    return ref[np.minimum(np.searchsorted(ref, ids), ref.size - 1)] == ids


@_checks.public(finite=False)
def load_taxi_zones():
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
    import pandas as pd

    with resources.as_file(_DATA / "taxi_zone_lookup.csv") as path:
        return pd.read_csv(path)


@functools.cache
def _shipped_zones() -> tuple:
    """(LocationID int64 array, Borough tuple) of the shipped zone table, read without pandas.

    An empty Borough cell is ``None`` (pandas reads it as missing); a test checks that
    these columns equal ``load_taxi_zones()``'s.
    """
    with resources.as_file(_DATA / "taxi_zone_lookup.csv") as path, open(path,
                                                                          newline="") as fh:
        rows = list(csv.DictReader(fh))
    ids = np.array([int(r["LocationID"]) for r in rows], dtype=np.int64)
    ids.setflags(write=False)                 # cached: shared by every count
    return ids, tuple(r["Borough"] or None for r in rows)


def _zone_table(zones):
    """The zone table given by the user (DataFrame or CSV path), or the shipped one."""
    if zones is None:
        return load_taxi_zones()
    if isinstance(zones, (str, Path)):
        zones = read_table(zones, what="zones")
    pd = sys.modules.get("pandas")    # a DataFrame exists only once pandas is imported
    if pd is None or not isinstance(zones, pd.DataFrame):
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


def _check_borough(borough, known) -> None:
    """``borough`` is None or one of the ``known`` borough names (missing ones skipped)."""
    if borough is not None:
        if not isinstance(borough, str):
            raise TypeError(f"borough={_checks.show(borough)} must be a borough name or None")
        known = sorted({b for b in known if isinstance(b, str)})
        if borough not in known:
            raise ValueError(f"borough={borough!r} is not in the zone table: choose one of "
                             f"{known} or None for every zone")


def _borough_zones(borough, zones):
    """The zones of ``borough`` (``None``: every zone), sorted by LocationID."""
    _check_borough(borough, zones["Borough"].dropna().unique())
    if borough is not None:
        zones = zones[zones["Borough"] == borough]
    return zones.sort_values("LocationID").reset_index(drop=True)


def chain_zones(borough, zones) -> tuple:
    """(every zone id of the table, the chain's zone ids sorted, the chain's zone table).

    The table is a DataFrame, or for ``zones=None`` (the shipped table) a function that
    makes it: the ids come from ``_shipped_zones`` without pandas.  Both options are
    checked here, as ``trip_counts`` checks them.
    """
    if zones is None:
        ids, boroughs = _shipped_zones()
        _check_borough(borough, boroughs)
        inside = ids if borough is None else ids[[b == borough for b in boroughs]]
        return ids, np.sort(inside), lambda: _borough_zones(borough, load_taxi_zones())
    table = _zone_table(zones)
    states = _borough_zones(borough, table)
    return (table["LocationID"].to_numpy(np.int64), states["LocationID"].to_numpy(np.int64),
            states)


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
        aggregated, one per entry: whole numbers >= 0, summed exactly in integers (up to
        2^63 - 1 a cell; as floats at most 2^53 each).  Default: one trip per entry.
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
        numbers >= 0 (one per trip) or a pair sums above 2^63 - 1; if ``borough``
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
    w = None if weights is None else _trips("weights", weights, ids["pickup"].size)
    loc = states["LocationID"].to_numpy(np.int64)
    return state_counts(loc, ids["pickup"], ids["dropoff"], w)[0], states


def state_counts(loc, pickup, dropoff, weights=None, layer=None, layers=1):
    """Trips per (layer, pickup state, drop-off state), an int64 array (layers, n, n).

    ``loc`` holds the states' zone ids, sorted (state i is ``loc[i]``); ``pickup``,
    ``dropoff`` and ``weights`` are checked trips (``trip_counts``; weights whole numbers,
    ``None`` for one trip each), ``layer`` an index below ``layers`` per trip (default:
    one layer).  Trips that leave the states are dropped.  Each cell is summed in
    integers: one ``bincount`` when no cell can pass 2**53 (doubles are exact there),
    Python ints otherwise; a cell above 2**63 - 1 (the int64 matrix) is refused.
    """
    inside = np.isin(pickup, loc) & np.isin(dropoff, loc)
    i = np.searchsorted(loc, pickup[inside])
    j = np.searchsorted(loc, dropoff[inside])
    n = loc.size
    cell = i * n + j if layer is None else (layer[inside] * n + i) * n + j
    if weights is None:
        return np.bincount(cell, minlength=layers * n * n).astype(np.int64).reshape(layers, n, n)
    w = np.asarray(weights)[inside].astype(np.int64)
    if w.size == 0 or int(w.max()) * w.size <= MAX_TRIPS:
        flat = np.rint(np.bincount(cell, weights=w, minlength=layers * n * n))
    else:
        flat = np.zeros(layers * n * n, dtype=object)
        np.add.at(flat, cell, w.astype(object))
        if flat.max() > MAX_COUNT:
            raise ValueError(f"weights add up to {flat.max()} trips for one pair: a cell of "
                             "the int64 count matrix holds at most 2**63 - 1")
    return flat.astype(np.int64).reshape(layers, n, n)


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
    import pandas as pd

    with resources.as_file(_DATA / "taxi_trip_counts.csv") as path:
        table = pd.read_csv(path)
    available = sorted(table["year"].unique().tolist())
    if years is not None:
        listed = list(years) if isinstance(years, (list, tuple)) else [years]
        for y in listed:
            _checks.whole("years", y, 0)
        wanted = sorted({int(y) for y in listed})
        bad = [y for y in wanted if y not in available]
        if bad or not wanted:
            raise ValueError(f"years={years!r}: the shipped samples cover {available}")
        table = table[table["year"].isin(wanted)]
    return trip_counts(table["PULocationID"], table["DOLocationID"], weights=table["trips"],
                       borough=borough)


class TripCounts:
    """A count matrix with its accounting: every trip read is counted, outside or missing.

    ``counts`` and ``zones`` are what ``trip_counts`` returns (``counts[i, j]``: trips
    from zone ``zones.LocationID[i]`` to zone ``zones.LocationID[j]``).  The totals are
    trips (rows of a trip file; with a weight column, the sum of its weights), Python
    ints, exact at any size: ``trips_read = trips_counted + trips_outside +
    trips_missing``, where ``trips_outside`` start or end in a zone of the table outside
    the chain's zones (another borough) and ``trips_missing`` lack a pickup or drop-off
    zone id.  ``files`` names every file read, in order (empty when the input was not files).

    The counts are eq. (4)'s count matrix before normalising.  Book: chapter "Case study:
    NYC taxis" (section "From a month to the whole history").

    The fields, in order (``_fields``; a ``TripCounts`` unpacks and indexes like a tuple):
    ``counts`` (trips from state i to state j, int64, shape (n, n)), ``zones`` (the
    chain's zones sorted by LocationID, row i is state i, a pandas DataFrame built on first
    use, so counting never imports pandas), ``trips_read``, ``trips_counted``,
    ``trips_outside``, ``trips_missing`` (ints) and ``files`` (a tuple of file names).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> r = dm.datasets.count_pairs([237, 132, None], [236, 138, 4], [5, 1, 3])
    >>> r.trips_read == r.trips_counted + r.trips_outside + r.trips_missing, r.files
    (True, ())
    >>> counts, zones, *totals, files = r
    >>> totals, len(zones)
    ([9, 5, 1, 3], 69)
    """

    _fields = ("counts", "zones", "trips_read", "trips_counted", "trips_outside",
               "trips_missing", "files")

    def __init__(self, counts, zones, trips_read, trips_counted, trips_outside,
                 trips_missing, files=()):
        self.counts = counts
        self._zones = zones       # a DataFrame, or a function that makes it
        self.trips_read, self.trips_counted = trips_read, trips_counted
        self.trips_outside, self.trips_missing = trips_outside, trips_missing
        self.files = tuple(files)

    @property
    def zones(self):
        """The chain's zones (a pandas DataFrame), row i is state i."""
        if callable(self._zones):
            self._zones = self._zones()
        return self._zones

    def __iter__(self):
        return (getattr(self, name) for name in self._fields)

    def __getitem__(self, index):
        return tuple(self)[index]

    def __len__(self):
        return len(self._fields)

    def __repr__(self):
        return (f"TripCounts(counts=<{self.counts.shape[0]} x {self.counts.shape[1]}>, "
                f"trips_read={self.trips_read}, trips_counted={self.trips_counted}, "
                f"trips_outside={self.trips_outside}, trips_missing={self.trips_missing}, "
                f"files={self.files!r})")


@_checks.public(finite=False)
def count_pairs(pickup, dropoff, trips, *, borough="Manhattan", zones=None) -> TripCounts:
    """Count matrix from trips per (pickup, drop-off) pair, with missing ids counted apart.

    The last step of counting trips with an engine (``count_trips`` on DuckDB,
    ``count_trips_spark`` on Spark, or any engine of yours): the engine groups the trips
    by their two zone ids, which leaves at most one row per pair of ids (about 70,000
    for the TLC's 265 zones, whatever the number of trips), and this function turns the
    pairs into the chain's count matrix (eq. (4) before normalising) with the checks of
    ``trip_counts``.  Trips are summed in integers, exact at any size (a cell holds at
    most 2^63 - 1); with the shipped zone table (``zones=None``) no pandas is imported
    until ``zones`` of the result is read.

    Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").

    Parameters
    ----------
    pickup, dropoff : array_like
        Zone ids of each pair (TLC ``LocationID``), of equal lengths; a missing id is
        ``None``, ``pandas.NA`` or NaN.
    trips : array_like of int
        Trips of each pair: whole numbers >= 0 (integers up to 2^63 - 1; floats up to
        2^53).
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
        table must not drop trips silently), unequal lengths, bad trip numbers, or a cell
        above 2^63 - 1.

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
    table, loc, states = chain_zones(borough, zones)
    missing = np.isnan(ids["pickup"]) | np.isnan(ids["dropoff"])
    pair = {}
    for name, arr in ids.items():
        arr = arr[~missing]
        if np.any(arr != np.round(arr)):
            raise ValueError(f"{name} contains {arr[arr != np.round(arr)][0]!r}: zone ids are "
                             "whole numbers")
        unknown = ~in_table(arr, table)
        if np.any(unknown):
            raise ValueError(f"{name} contains zone id {arr[unknown][0]:.0f}, which is not "
                             "in the zone table")
        pair[name] = arr.astype(np.int64)
    counts = state_counts(loc, pair["pickup"], pair["dropoff"], w[~missing])[0]
    read, lost = exact_sum(w), exact_sum(w[missing])
    counted = exact_sum(counts.ravel())
    return TripCounts(counts, states, read, counted, read - lost - counted, lost)

"""Trip-record files counted on an embedded engine (DuckDB): a month, a year, the history.

A TLC trip file holds one row per trip and about 19 columns; the chain needs two of
them, the pickup and drop-off zone ids, and only their pair counts (at most 266 x 266).
DuckDB (a PyPI package that runs in this process, no server) reads just those two
columns of each file, streaming (out of core), and groups them by pair; ``count_pairs``
then checks the ids against the zone table and keeps the chain's zones, with every
trip accounted for (``TripCounts``).  Memory stays flat as the files grow: only the
pair table (about 70,000 rows at most) leaves the engine.
Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").
"""
from __future__ import annotations

import functools
import glob
import sys
from pathlib import Path

import numpy as np

from .. import _checks
from .taxi import TripCounts, count_pairs, load_taxi_zones, read_table

#: Zone-id column names of trip files: the TLC layout first, then the shipped samples'.
ID_COLUMNS = (("PULocationID", "DOLocationID"), ("pickup_location_id", "dropoff_location_id"))

#: Suffixes read as parquet; every other file is read as CSV (compressed by its suffix).
PARQUET_SUFFIXES = (".parquet", ".pq")

#: DuckDB column types accepted as zone ids and trip weights (whole numbers are checked).
_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
            "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL")


def id_columns(columns, *, where="the file") -> tuple[str, str]:
    """The (pickup, drop-off) column names among ``columns``, any letter case.

    ``ID_COLUMNS`` lists the layouts tried; ``where`` names the table in the error.
    Book: chapter "Case study: NYC taxis".
    """
    lower = {str(c).lower(): c for c in columns}
    for pu, do in ID_COLUMNS:
        if pu.lower() in lower and do.lower() in lower:
            return lower[pu.lower()], lower[do.lower()]
    raise ValueError(
        f"{where} has no zone-id columns: expected {ID_COLUMNS[0]} (TLC layout) or "
        f"{ID_COLUMNS[1]} (sample layout); found {list(columns)}")


def trip_columns(types: dict, weights, numeric, where: str) -> list[str]:
    """The columns to read of a table whose column types are ``types`` (name -> type).

    Its (pickup, drop-off) id columns (``id_columns``) and the ``weights`` column, if
    any, each of one of the engine's ``numeric`` type names; ``where`` names the table
    in the errors.  Shared by ``count_trips`` (DuckDB) and ``count_trips_spark``.
    """
    if weights is not None and not isinstance(weights, str):
        raise TypeError(f"weights={_checks.show(weights)} must be None (one trip a row) or "
                        "the name of a column of trips per row")
    wanted = list(id_columns(types, where=where))
    if weights is not None:
        if weights not in types:
            raise ValueError(f"weights={weights!r} is not a column of {where} "
                             f"(it has {list(types)})")
        wanted.append(weights)
    for column in wanted:
        if types[column].split("(")[0] not in numeric:
            raise TypeError(f"{where}: column {column!r} holds {types[column]} values: zone "
                            "ids and trips are whole numbers (text is never parsed)")
    return wanted


def _files(source, name: str) -> list[Path]:
    """The files of ``source``: a path, a glob pattern or a list of them, in order."""
    items = [source] if isinstance(source, (str, Path)) else source
    if not isinstance(items, (list, tuple)) or not items:
        raise TypeError(f"{name}={_checks.show(source)} must be a path, a glob pattern "
                        "(str or pathlib.Path) or a non-empty list of them")
    files = []
    for item in items:
        if not isinstance(item, (str, Path)):
            raise TypeError(f"{name} holds {_checks.show(item)}: each entry must be a path "
                            "or a glob pattern (str or pathlib.Path)")
        text = str(item)
        if glob.has_magic(text):
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True))
            matches = [m for m in matches if m.is_file()]
            if not matches:
                raise ValueError(f"{name}: the pattern {text!r} matches no file")
            files += matches
        elif not Path(text).is_file():
            raise ValueError(f"{name}={text!r} is not a file")
        else:
            files.append(Path(text))
    return files


def _quote(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def _pairs(con, path: Path, weights):
    """Trips per (pickup, drop-off) pair of one file, grouped by DuckDB: three arrays."""
    import duckdb

    kind = "parquet" if path.suffix.lower() in PARQUET_SUFFIXES else "CSV"
    source = f"read_{kind.lower()}(?)"
    try:
        types = dict(con.execute(f"SELECT column_name, column_type FROM "
                                 f"(DESCRIBE SELECT * FROM {source})", [str(path)]).fetchall())
        pu, do = map(_quote, trip_columns(types, weights, _NUMERIC, f"file {str(path)!r}")[:2])
        trips = "count(*)" if weights is None else f"sum({_quote(weights)})"
        unweighted = "0" if weights is None else f"count(*) - count({_quote(weights)})"
        table = con.execute(f"SELECT {pu} AS pu, {do} AS do, {trips} AS trips, "
                            f"{unweighted} AS unweighted FROM {source} GROUP BY ALL",
                            [str(path)]).fetchnumpy()
    except duckdb.Error as err:
        raise ValueError(f"file {str(path)!r} cannot be read as a {kind} table "
                         f"({type(err).__name__}: {err})") from err
    if np.any(table["unweighted"]):
        raise ValueError(f"file {str(path)!r}: column {weights!r} is missing for "
                         f"{int(np.sum(table['unweighted']))} trips")
    ids = [np.ma.filled(np.ma.asarray(table[c]).astype(float), np.nan) for c in ("pu", "do")]
    return ids[0], ids[1], np.ma.filled(np.ma.asarray(table["trips"]).astype(float), np.nan)


def _progress(done: int, total: int, path: Path) -> None:
    """One line on stderr, redrawn: a bar over the files, the file just counted."""
    width = 30
    fill = width * done // total
    sys.stderr.write(f"\rcounting trips [{'#' * fill}{'.' * (width - fill)}] "
                     f"{done}/{total} files  {path.name[-40:]:<40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


@functools.cache
def _database():
    """One in-memory DuckDB database for the process (opening one costs about 50 ms);
    each count uses its own cursor on it."""
    import duckdb

    return duckdb.connect()


def _count(files: list[Path], borough, zones, weights, progress) -> TripCounts:
    """``count_pairs`` on every file's pairs, summed; errors name the file."""
    if progress is None:
        progress = len(files) > 1 and sys.stderr.isatty()
    progress = _checks.flag("progress", progress)
    if zones is None:
        zones = load_taxi_zones()
    elif isinstance(zones, (str, Path)):
        zones = read_table(zones, what="zones")
    total = count_pairs([], [], [], borough=borough, zones=zones)     # checks both options
    counts = total.counts.copy()
    read = counted = outside = missing = 0
    with _database().cursor() as con:
        for t, path in enumerate(files):
            pu, do, trips = _pairs(con, path, weights)
            try:
                part = count_pairs(pu, do, trips, borough=borough, zones=zones)
            except (ValueError, TypeError) as err:
                raise type(err)(f"file {str(path)!r} ({t + 1} of {len(files)}): {err}") from err
            counts += part.counts
            read += part.trips_read
            counted += part.trips_counted
            outside += part.trips_outside
            missing += part.trips_missing
            if progress:
                _progress(t + 1, len(files), path)
    return TripCounts(counts, total.zones, read, counted, outside, missing,
                      tuple(str(f) for f in files))


@_checks.public(finite=False)
def count_trips(source, *, borough="Manhattan", zones=None, weights=None,
                progress=None) -> TripCounts:
    """Count matrix of the trips in TLC trip files, counted by DuckDB in bounded memory.

    Each file is read by DuckDB, only its two zone-id columns, streaming, and grouped by
    (pickup, drop-off) pair; ``count_pairs`` turns the pairs into the chain's counts
    (eq. (4) before normalising) and the sums over the files are returned.  A year of
    months (or the TLC's whole history) counts in one call: memory is that of one
    file's pair table (at most one row per pair of zone ids), whatever the number of trips.
    Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").

    Parameters
    ----------
    source : str, pathlib.Path or list of them
        A file, a glob pattern (``"trips/yellow_tripdata_2024-*.parquet"``) or a list of
        files and patterns; matches are sorted.  Parquet for the suffixes ``.parquet``
        and ``.pq``, otherwise CSV (compressed files such as ``.csv.gz`` are read as
        they are).  Columns ``PULocationID`` / ``DOLocationID`` (TLC layout) or
        ``pickup_location_id`` / ``dropoff_location_id``, any letter case.
    borough : str or None, optional
        Keyword only: keep only trips that start and end in this borough's zones
        (default ``"Manhattan"``; ``None``: every zone of the table); the others are
        counted in ``trips_outside``.
    zones : pandas.DataFrame, str, pathlib.Path or None, optional
        Keyword only: the zone table; default the shipped TLC table
        (``load_taxi_zones``).
    weights : str or None, optional
        Keyword only: a numeric column holding trips per row (for files of already
        aggregated pairs, such as the shipped samples), present for every row;
        ``None`` (default): one trip per row.
    progress : bool or None, optional
        Keyword only: draw a progress bar over the files on stderr; ``None`` (default): when there
        are several files and stderr is a terminal.

    Returns
    -------
    TripCounts
        ``counts`` (int64, n x n), ``zones`` (row i is state i), the trips read,
        counted, outside the chain's zones and with a missing id, and the files read.

    Raises
    ------
    TypeError
        If ``source`` is not a path, a pattern or a non-empty list of them, ``weights``
        is neither None nor a string, ``progress`` is neither None nor a bool, or
        ``borough``/``zones`` has a wrong type (as ``trip_counts``); naming the file
        and the column, for ids or weights stored as text.
    ValueError
        Naming the file: a pattern that matches nothing, a path that is no file, a
        file DuckDB cannot read (corrupt, truncated, not the format of its suffix),
        missing id or weight columns, missing weights, ids that are not whole numbers
        or not in the zone table; or a ``borough``/``zones`` that ``trip_counts``
        refuses.

    Examples
    --------
    A synthetic month in the TLC layout (``write_synthetic_trips``), so nothing is
    downloaded; a real year is ``count_trips("tlc/yellow_tripdata_2024-*.parquet")``:

    >>> import pathlib, tempfile
    >>> import dpmarkov as dm
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "month.parquet"
    ...     _ = dm.datasets.write_synthetic_trips(path, 1000, rng=1)
    ...     r = dm.datasets.count_trips(path)
    >>> r.counts.shape, r.trips_read, r.trips_counted + r.trips_outside + r.trips_missing
    ((69, 69), 1000, 1000)
    """
    return _count(_files(source, "source"), borough, zones, weights, progress)


@_checks.public(finite=False)
def trip_counts_from_file(path, *, borough="Manhattan", zones=None):
    """Count matrix from one TLC trip-record file, e.g. the paper's January 2025 month.

    ``count_trips`` on one file (DuckDB), strict as ``trip_counts`` is: a trip without
    a zone id is an error here (``count_trips`` counts the other trips and reports
    those).  Reads ``PULocationID`` / ``DOLocationID`` (also ``pickup_location_id`` /
    ``dropoff_location_id``, any letter case) from a parquet file (suffix ``.parquet``
    or ``.pq``) or a CSV file (possibly compressed, e.g. ``.csv.gz``), and returns
    ``(counts, zones)`` as ``trip_counts`` does.  Download the month from the TLC
    trip-record page and pass its path; the zone table defaults to the shipped one.
    Book: chapter "Case study: NYC taxis".

    Parameters
    ----------
    path : str or pathlib.Path
        One trip-record file (parquet or CSV, as above).
    borough : str or None, optional
        Keyword only: the chain's zones, as for ``trip_counts`` (default
        ``"Manhattan"``; ``None``: every zone of the table).
    zones : pandas.DataFrame, str, pathlib.Path or None, optional
        Keyword only: the zone table; default the shipped TLC table
        (``load_taxi_zones``).

    Returns
    -------
    counts : numpy.ndarray of int64, shape (n, n)
        Trips from zone ``zones.LocationID[i]`` to zone ``zones.LocationID[j]``.
    zones : pandas.DataFrame
        The borough's zones, sorted by LocationID; row i is state i.

    Raises
    ------
    TypeError
        If ``path`` is not a str or pathlib.Path, ``borough``/``zones`` has a wrong
        type, or the file's ids are stored as text.
    ValueError
        If ``path`` is not a file or cannot be read, lacks the id columns, or holds a
        trip without a zone id or an id that is not a whole number or not in the zone
        table.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import dpmarkov as dm
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "month.csv.gz"
    ...     _ = dm.datasets.write_synthetic_trips(path, 500, rng=2)
    ...     counts, zones = dm.datasets.trip_counts_from_file(path)
    >>> counts.shape, len(zones), int(counts.sum()) <= 500
    ((69, 69), 69, True)
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path={_checks.show(path)} must be a path (str or pathlib.Path)")
    if not Path(path).is_file():
        raise ValueError(f"path={str(path)!r} is not a file")
    result = _count([Path(path)], borough, zones, None, False)
    if result.trips_missing:
        raise ValueError(f"path={str(path)!r} has {result.trips_missing} trips without a zone "
                         "id: count_trips counts the others and reports these")
    return result.counts, result.zones

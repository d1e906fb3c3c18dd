"""Trip-record files counted on an embedded engine (DuckDB): a month, a year, the history.

A TLC trip file holds one row per trip and about 19 columns; the chain needs two of
them, the pickup and drop-off zone ids, and only their pair counts (at most 266 x 266).
DuckDB (a PyPI package that runs in this process, no server) reads just those two
columns of each file, streaming (out of core), and groups them by pair; ``count_pairs``
then keeps the chain's zones, with every trip accounted for (``TripCounts``).  Memory
stays flat as the files grow: only the pair table (about 70,000 rows at most) leaves
the engine.

What is read is what the caller named: a path is one file, never expanded as a glob
pattern (neither here nor by DuckDB, which would read ``m?.parquet`` as a pattern); a
pattern is expanded only with ``pattern=True``, and the result names every file read.
Nothing in a file is guessed: a CSV cell is read as text and taken as a zone id or a
weight only when it is written as a whole number (``WHOLE``; DuckDB's own cast would
round ``4.5`` to 5), every id must be in the zone table, and the first row that breaks a
rule is named with its file, row and value.  Counting imports numpy and DuckDB, not pandas.
Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").
"""
from __future__ import annotations

import functools
import glob
import re
import sys
from pathlib import Path

import numpy as np

from .. import _checks
from .taxi import (
    MAX_COUNT,
    TripCounts,
    chain_zones,
    count_pairs,
    in_table,
    read_table,
)

#: Zone-id column names of trip files: the TLC layout first, then the shipped samples'.
ID_COLUMNS = (("PULocationID", "DOLocationID"), ("pickup_location_id", "dropoff_location_id"))

#: Suffixes read as parquet; every other file is read as CSV (compressed by its suffix).
PARQUET_SUFFIXES = (".parquet", ".pq")

#: DuckDB column types accepted as zone ids and trip weights in parquet files (whole
#: numbers are checked row by row).
_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
            "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL")

#: A whole number as a CSV cell holds it (the same regular expression in Python and DuckDB):
#: ASCII digits, a decimal point with zeros allowed ("4", "4.0"), spaces around.  Signs,
#: exponents, hexadecimal, digit separators and other scripts' digits are refused.
WHOLE = r" *([0-9]+)(\.0*)? *"


def id_columns(columns, *, where="the file") -> tuple[str, str]:
    """The (pickup, drop-off) column names among ``columns``, any letter case.

    ``ID_COLUMNS`` lists the layouts tried; ``where`` names the table in the error.  A
    name present twice (in any letter case) is refused: which column holds the ids would
    be a guess.  Book: chapter "Case study: NYC taxis".
    """
    columns = [str(c) for c in columns]
    for pu, do in ID_COLUMNS:
        found = [[c for c in columns if c.lower() == name.lower()] for name in (pu, do)]
        if all(found):
            for same in found:
                if len(same) > 1:
                    raise ValueError(f"{where} has {len(same)} zone-id columns named "
                                     f"{same[0]!r} (any letter case: {same}): each id column "
                                     "must appear once")
            return found[0][0], found[1][0]
    raise ValueError(
        f"{where} has no zone-id columns: expected {ID_COLUMNS[0]} (TLC layout) or "
        f"{ID_COLUMNS[1]} (sample layout); found {columns}")


def trip_columns(types, weights, numeric, where: str) -> list[str]:
    """The columns to read of a table whose columns are ``types``, (name, type) pairs.

    Its (pickup, drop-off) id columns (``id_columns``) and the ``weights`` column, if
    any, each present once and of one of the engine's ``numeric`` type names (``None``:
    any type, for text that is parsed strictly); ``where`` names the table in the errors.
    Shared by ``count_trips`` (DuckDB) and ``count_trips_spark``.
    """
    if weights is not None and not isinstance(weights, str):
        raise TypeError(f"weights={_checks.show(weights)} must be None (one trip a row) or "
                        "the name of a column of trips per row")
    types = list(types.items()) if isinstance(types, dict) else list(types)
    names = [name for name, _ in types]
    wanted = list(id_columns(names, where=where))
    if weights is not None:
        if weights not in names:
            raise ValueError(f"weights={weights!r} is not a column of {where} "
                             f"(it has {names})")
        if names.count(weights) > 1:
            raise ValueError(f"weights={weights!r} names {names.count(weights)} columns of "
                             f"{where}: the weight column must appear once")
        wanted.append(weights)
    kinds = dict(types)
    for column in wanted:
        if numeric is not None and str(kinds[column]).split("(")[0] not in numeric:
            raise TypeError(f"{where}: column {column!r} holds {kinds[column]} values: zone "
                            "ids and trips are whole numbers (text is never parsed)")
    return wanted


def _files(source, pattern: bool) -> list[Path]:
    """The files of ``source`` in order: paths as given, or with ``pattern`` the sorted
    matches of each glob pattern; a file named twice is refused."""
    items = [source] if isinstance(source, (str, Path)) else source
    what = "a glob pattern" if pattern else "a path"
    if not isinstance(items, (list, tuple)) or not items:
        raise TypeError(f"source={_checks.show(source)} must be {what} (str or pathlib.Path) "
                        "or a non-empty list of them")
    files = []
    for item in items:
        if not isinstance(item, (str, Path)):
            raise TypeError(f"source holds {_checks.show(item)}: each entry must be {what} "
                            "(str or pathlib.Path)")
        text = str(item)
        if pattern:
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True))
            matches = [m for m in matches if m.is_file()]
            if not matches:
                raise ValueError(f"source: the pattern {text!r} matches no file")
            files += matches
        elif text and Path(text).is_file():
            files.append(Path(text))
        else:
            hint = (" (a path names one file; for a glob pattern pass pattern=True)"
                    if glob.has_magic(text) else "")
            raise ValueError(f"source={text!r} is not a file{hint}")
    first = {}
    for path in files:
        if first.setdefault(path.resolve(), path) is not path:
            raise ValueError(f"source names the file {str(path)!r} twice (also as "
                             f"{str(first[path.resolve()])!r}): each file is counted once")
    return files


def _quote(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


class _File:
    """One trip file as DuckDB reads it: exactly this file, with its errors named.

    ``literal`` is the absolute path with glob characters escaped (DuckDB expands
    ``*``, ``?`` and ``[`` in every path it reads); the constructor checks that DuckDB
    finds that one file and no other.
    """

    def __init__(self, con, path: Path):
        self.con, self.path, self.where = con, path, f"file {str(path)!r}"
        self.parquet = path.suffix.lower() in PARQUET_SUFFIXES
        self.literal = glob.escape(str(path.absolute()))
        found = [f for (f,) in self.run("SELECT file FROM glob(?)", [self.literal])]
        if found != [str(path.absolute())]:
            raise ValueError(f"{self.where}: DuckDB finds {found} for it, not this one file")
        self.source = ("read_parquet(?)" if self.parquet
                       else "read_csv(?, header = true, all_varchar = true)")

    def run(self, query, params, *, numpy=False):
        """``query``'s rows (``numpy``: its columns as numpy arrays, masked where null); a
        DuckDB error becomes a ValueError naming the file."""
        import duckdb

        try:
            result = self.con.execute(query, params)
            return result.fetchnumpy() if numpy else result.fetchall()
        except duckdb.Error as err:
            raise ValueError(f"{self.where} cannot be read as a "
                             f"{'parquet' if self.parquet else 'CSV'} table "
                             f"({type(err).__name__}: {err})") from err

    def columns(self, weights) -> list[str]:
        """The id columns (and ``weights``) to read, checked by ``trip_columns``."""
        if self.parquet:
            types = self.run(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "
                             f"{self.source})", [self.literal])
            # the names as written (DuckDB renames a repeated one): the schema's top level
            schema = self.run("SELECT name, num_children FROM parquet_schema(?)",
                              [self.literal])
            names, at = [], 1
            while at < len(schema):
                names.append(schema[at][0])
                at, below = at + 1, schema[at][1] or 0
                while below:        # skip a nested column's subtree
                    below += (schema[at][1] or 0) - 1
                    at += 1
            if len(names) == len(types):
                types = [(name, kind) for name, (_, kind) in zip(names, types)]
            return trip_columns(types, weights, _NUMERIC, self.where)
        # the header as written (with header = true, DuckDB renames a repeated name)
        header = self.run("SELECT * FROM read_csv(?, header = false, all_varchar = true) "
                          "LIMIT 1", [self.literal])
        if not header:
            raise ValueError(f"{self.where} is empty: a CSV trip file starts with a header row")
        return trip_columns([(str(name), None) for name in header[0]], weights, None,
                            self.where)

    def refuse(self, column: str, condition: str, params, rule: str):
        """Raise a ValueError naming the first row (1-based, in file order, the header not
        counted) whose value ``v`` of ``column`` meets ``condition``, and that value."""
        if self.parquet:
            rows = (f"SELECT file_row_number + 1 AS r, {_quote(column)} AS v "
                    "FROM read_parquet(?, file_row_number = true)")
        else:               # DuckDB keeps a file's row order (preserve_insertion_order)
            rows = f"SELECT row_number() OVER () AS r, {_quote(column)} AS v FROM {self.source}"
        # no WHERE: DuckDB would push it into the parquet scan, whose statistics skip NaN
        hit = f"CASE WHEN {condition} THEN r END"
        row, value = self.run(f"SELECT min({hit}), arg_min(v, {hit}) FROM ({rows})",
                              [*params, *params, self.literal])[0]
        shown = " is empty" if value is None else f"={value!r}"
        raise ValueError(f"{self.where}, row {row}: {column}{shown}, {rule}")


def _column(values) -> tuple[np.ndarray, np.ndarray]:
    """A column fetched from DuckDB as (data, missing).

    ``fetchnumpy`` returns a masked array only for a column holding a null (numpy.ma is
    imported by then); a plain array is taken as it is, without importing numpy.ma, which
    after a query costs about 10 MiB of a cold count's peak memory (benchmarks/README.md).
    """
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(values, ma.MaskedArray):
        return values.data, ma.getmaskarray(values)
    values = np.asarray(values)
    return values, np.zeros(values.shape, dtype=bool)


def _ids(file: _File, column: str, values, known: np.ndarray) -> np.ndarray:
    """The zone ids of one column of the pair table as floats (NaN: missing), each a whole
    number in the zone table, else the first row that is not is named."""
    values, missing = _column(values)
    out = np.full(values.shape, np.nan)
    if values.dtype.kind == "O":              # CSV text: parsed by WHOLE, nothing else
        for text in set(values[~missing].tolist()):
            match = re.fullmatch(WHOLE, text)
            if match is None:
                file.refuse(column, "v = ?", [text],
                            "which is not a zone id (a whole number written in digits)")
            out[~missing & (values == text)] = int(match.group(1))
    else:
        data = values.astype(float)
        bad = ~missing & np.isfinite(data) & (data != np.round(data))
        if np.any(bad):
            file.refuse(column, "v = ?", [float(data[bad][0])],
                        "which is not a zone id (a whole number)")
        out[~missing] = data[~missing]
    unknown = ~np.isnan(out) & ~in_table(out, known)
    if np.any(unknown):
        value = out[unknown][0]
        if values.dtype.kind == "O":
            text = next(t for t in values[~missing].tolist()
                        if int(re.fullmatch(WHOLE, t).group(1)) == value)
            file.refuse(column, "v = ?", [text], "which is not in the zone table")
        file.refuse(column, "v = ?", [value], "which is not in the zone table")
    return out


def _pairs(file: _File, weights, known: np.ndarray):
    """Trips per (pickup, drop-off) pair of one file, grouped by DuckDB and checked row by
    row: pickup and drop-off ids (floats, NaN where missing) and trips (int64)."""
    columns = file.columns(weights)
    pu, do = map(_quote, columns[:2])
    if weights is None:
        inner, trips, bad = f"{pu} AS pickup, {do} AS dropoff", "count(*)", "0"
    else:
        w = _quote(weights)
        if file.parquet:
            ok = "v >= 0 AND isfinite(CAST(v AS DOUBLE)) AND v = floor(v)"
            value, zero = "v", "0"
        else:
            ok = f"regexp_full_match(v, '{WHOLE}')"
            value, zero = f"regexp_extract(v, '{WHOLE}', 1)", "'0'"
        inner = f"{pu} AS pickup, {do} AS dropoff, {w} AS v"
        # the cast is reached only by whole numbers (CASE, not FILTER, keeps it from NaN)
        trips = f"sum(CAST(CASE WHEN {ok} THEN {value} ELSE {zero} END AS HUGEINT))"
        bad = f"count(*) FILTER (WHERE v IS NULL OR NOT ({ok}))"
    query = (f"SELECT pickup, dropoff, count(*) AS rows, {bad} AS bad, {trips} AS trips "
             f"FROM (SELECT {inner} FROM {file.source}) GROUP BY pickup, dropoff")
    if weights is not None:       # sums are HUGEINT: exact, and refused past the int64 cell
        query = (f"SELECT pickup, dropoff, rows, bad, CAST(least(trips, {MAX_COUNT}) AS "
                 f"BIGINT) AS trips, trips > {MAX_COUNT} AS over FROM ({query})")
    table = file.run(query, [file.literal], numpy=True)
    if int(np.sum(table["rows"])) == 0:
        raise ValueError(f"{file.where} has no rows: a header (or a schema) but no trips")
    if np.any(table["bad"]):
        file.refuse(weights, f"v IS NULL OR NOT ({ok})", [],
                    "but weights are trips per row: whole numbers >= 0 in every row")
    if weights is not None and np.any(table["over"]):
        raise ValueError(f"{file.where}: column {weights!r} adds up to more than 2**63 - 1 "
                         "trips for one pair (the int64 count matrix holds at most that)")
    return (_ids(file, columns[0], table["pickup"], known),
            _ids(file, columns[1], table["dropoff"], known),
            np.asarray(table["trips"], dtype=np.int64))


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
    each count uses its own cursor on it.  DuckDB's own progress bar is off (it would
    print on stdout during a long query; ``progress`` draws ours on stderr)."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    return con


def _count(files: list[Path], borough, zones, weights, progress) -> TripCounts:
    """``count_pairs`` on every file's pairs, summed exactly; errors name the file."""
    if progress is None:
        progress = len(files) > 1 and sys.stderr.isatty()
    progress = _checks.flag("progress", progress)
    if isinstance(zones, (str, Path)):
        zones = read_table(zones, what="zones")
    known, _, states = chain_zones(borough, zones)          # checks both options
    counts = totals = None
    with _database().cursor() as con:
        for t, path in enumerate(files):
            pu, do, trips = _pairs(_File(con, path), weights, known)
            try:
                part = count_pairs(pu, do, trips, borough=borough, zones=zones)
            except (ValueError, TypeError) as err:
                raise type(err)(f"file {str(path)!r} ({t + 1} of {len(files)}): {err}") from err
            if counts is None:
                counts, totals = part.counts, np.zeros(4, dtype=object)
            elif np.any(part.counts > MAX_COUNT - counts):
                raise ValueError(f"file {str(path)!r} ({t + 1} of {len(files)}): a pair's "
                                 "trips add up to more than 2**63 - 1 over the files (the "
                                 "int64 count matrix holds at most that)")
            else:
                counts = counts + part.counts
            totals += [part.trips_read, part.trips_counted, part.trips_outside,
                       part.trips_missing]
            if progress:
                _progress(t + 1, len(files), path)
    return TripCounts(counts, states, *map(int, totals), tuple(str(f) for f in files))


@_checks.public(finite=False)
def count_trips(source, *, pattern=False, borough="Manhattan", zones=None, weights=None,
                progress=None) -> TripCounts:
    """Count matrix of the trips in TLC trip files, counted by DuckDB in bounded memory.

    Each file is read by DuckDB, only its two zone-id columns, streaming, and grouped by
    (pickup, drop-off) pair; ``count_pairs`` turns the pairs into the chain's counts
    (eq. (4) before normalising) and the sums over the files are returned, exact in
    integers.  A year of months (or the TLC's whole history) counts in one call: memory
    is that of one file's pair table (at most one row per pair of zone ids), whatever the
    number of trips.  Nothing is guessed: each path is one file, a CSV's ids and weights
    are read as text over the whole file and taken only when written as whole numbers
    (``WHOLE``), and the first row breaking a rule is named with its file and value.
    Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").

    Parameters
    ----------
    source : str, pathlib.Path or list of them
        A file or a list of files, each read once, in order (a name such as
        ``data[2024]/m?.parquet`` is that one file).  With ``pattern=True``: a glob
        pattern (``"trips/yellow_tripdata_2024-*.parquet"``, ``**`` for any folders
        below) or a list of them, each matching at least one file, matches sorted
        (``glob.escape`` a folder name that holds ``*``, ``?`` or ``[``).  Parquet for
        the suffixes ``.parquet`` and ``.pq``, otherwise CSV with a header row
        (compressed files such as ``.csv.gz`` are read as they are).  Columns
        ``PULocationID`` / ``DOLocationID`` (TLC layout) or ``pickup_location_id`` /
        ``dropoff_location_id``, any letter case, each once.
    pattern : bool, optional
        Keyword only: ``False`` (default): ``source`` names files; ``True``: ``source``
        holds glob patterns.
    borough : str or None, optional
        Keyword only: keep only trips that start and end in this borough's zones
        (default ``"Manhattan"``; ``None``: every zone of the table); the others are
        counted in ``trips_outside``.
    zones : pandas.DataFrame, str, pathlib.Path or None, optional
        Keyword only: the zone table; default the shipped TLC table
        (``load_taxi_zones``).
    weights : str or None, optional
        Keyword only: a column holding trips per row (for files of already aggregated
        pairs, such as the shipped samples): a whole number >= 0 in every row, summed
        exactly (a pair's sum up to 2^63 - 1); ``None`` (default): one trip per row.
    progress : bool or None, optional
        Keyword only: draw a progress bar over the files on stderr; ``None`` (default):
        when there are several files and stderr is a terminal.

    Returns
    -------
    TripCounts
        ``counts`` (int64, n x n), ``zones`` (row i is state i), the trips read,
        counted, outside the chain's zones and with a missing id (empty cell or null),
        and ``files``: every file read, in order.

    Raises
    ------
    TypeError
        If ``source`` is not a path (a pattern) or a non-empty list of them,
        ``pattern`` or ``progress`` is not a bool (``progress`` may be None),
        ``weights`` is neither None nor a string, or ``borough``/``zones`` has a wrong
        type (as ``trip_counts``); naming the file and the column, for ids or weights
        stored as text in a parquet file.
    ValueError
        A path that is no file, a pattern that matches nothing, a file named twice;
        naming the file: a file DuckDB cannot read (corrupt, truncated, not the format
        of its suffix), an empty file or one without rows, missing or repeated id or
        weight columns; naming the file, the row and the value: an id that is not a
        whole number or not in the zone table, a weight that is missing, negative or
        not whole; a pair's trips above 2^63 - 1; or a ``borough``/``zones`` that
        ``trip_counts`` refuses.

    Examples
    --------
    A synthetic month in the TLC layout (``write_synthetic_trips``), so nothing is
    downloaded; a real year is ``count_trips("tlc/yellow_tripdata_2024-*.parquet",
    pattern=True)``:

    >>> import pathlib, tempfile
    >>> import dpmarkov as dm
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "month.parquet"
    ...     _ = dm.datasets.write_synthetic_trips(path, 1000, rng=1)
    ...     r = dm.datasets.count_trips(path)
    ...     same = dm.datasets.count_trips(f"{folder}/*.parquet", pattern=True)
    >>> r.counts.shape, r.trips_read, r.trips_counted + r.trips_outside + r.trips_missing
    ((69, 69), 1000, 1000)
    >>> same.files == r.files == (str(path),)
    True
    """
    return _count(_files(source, _checks.flag("pattern", pattern)), borough, zones, weights,
                  progress)


@_checks.public(finite=False)
def trip_counts_from_file(path, *, borough="Manhattan", zones=None):
    """Count matrix from one TLC trip-record file, e.g. the paper's January 2025 month.

    ``count_trips`` on one file (DuckDB), strict as ``trip_counts`` is: a trip without
    a zone id is an error here (``count_trips`` counts the other trips and reports
    those).  Reads ``PULocationID`` / ``DOLocationID`` (also ``pickup_location_id`` /
    ``dropoff_location_id``, any letter case) from a parquet file (suffix ``.parquet``
    or ``.pq``) or a CSV file (possibly compressed, e.g. ``.csv.gz``), and returns
    ``(counts, zones)`` as ``trip_counts`` does.  Download the month from the TLC
    trip-record page and pass its path (one file, never a pattern); the zone table
    defaults to the shipped one.  Book: chapter "Case study: NYC taxis".

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
        type, or the file's ids are stored as text in a parquet file.
    ValueError
        If ``path`` is not a file or cannot be read, lacks the id columns, or holds a
        trip without a zone id or an id that is not a whole number or not in the zone
        table (as ``count_trips``, naming the row).

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
    if not str(path) or not Path(path).is_file():
        raise ValueError(f"path={str(path)!r} is not a file")
    result = _count([Path(path)], borough, zones, None, False)
    if result.trips_missing:
        raise ValueError(f"path={str(path)!r} has {result.trips_missing} trips without a zone "
                         "id: count_trips counts the others and reports these")
    return result.counts, result.zones

"""Synthetic TLC trip files: a month in the real layout, made offline, to try the counters.

The TLC's monthly yellow-taxi files (parquet, 19 columns in the 2024 layout) are large
and need a download; the book, the tests and the benchmarks need such files without a
network.  ``write_synthetic_trips`` writes one: each trip's (pickup, drop-off) pair is
drawn from the shipped samples' trips over all zones (2018-2020, ``load_taxi_counts``),
so the flows look like New York's, and the other 17 columns hold plausible values of the
TLC's own types.  Not real trips: only the layout and the pair frequencies are real.
Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import _checks
from .taxi import load_taxi_counts

#: The TLC yellow-taxi layout of 2024 (column, Arrow type), in the files' order.
TLC_LAYOUT = (
    ("VendorID", "int32"), ("tpep_pickup_datetime", "timestamp[us]"),
    ("tpep_dropoff_datetime", "timestamp[us]"), ("passenger_count", "int64"),
    ("trip_distance", "double"), ("RatecodeID", "int64"), ("store_and_fwd_flag", "string"),
    ("PULocationID", "int32"), ("DOLocationID", "int32"), ("payment_type", "int64"),
    ("fare_amount", "double"), ("extra", "double"), ("mta_tax", "double"),
    ("tip_amount", "double"), ("tolls_amount", "double"), ("improvement_surcharge", "double"),
    ("total_amount", "double"), ("congestion_surcharge", "double"), ("Airport_fee", "double"))

#: Rows generated and written at a time (one parquet row group): bounds the memory used.
CHUNK = 1_000_000

#: At most this many trips a file (about 40 GB of parquet).
MAX_TRIPS = 10**9


def _chunk(rng, size: int, cells: np.ndarray, p: np.ndarray, n: int, ids: np.ndarray,
           missing: float) -> dict:
    """``size`` synthetic trips as numpy columns (the layout's order)."""
    cell = cells[rng.choice(cells.size, size=size, p=p)]
    start = np.datetime64("2024-01-01T00:00:00", "us")
    pickup = start + (rng.random(size) * 31 * 86400e6).astype("timedelta64[us]")
    minutes = rng.gamma(2.0, 7.0, size)
    distance = np.round(rng.gamma(1.5, 2.0, size), 2)
    fare = np.round(3.0 + 2.5 * distance + 0.5 * minutes, 2)
    tip = np.round(fare * rng.choice([0.0, 0.15, 0.2, 0.25], size=size), 2)
    airport = np.where(np.isin(ids[cell // n], (1, 132, 138)), 1.75, 0.0)
    columns = {
        "VendorID": rng.choice(np.array([1, 2], dtype=np.int32), size=size, p=[0.25, 0.75]),
        "tpep_pickup_datetime": pickup,
        "tpep_dropoff_datetime": pickup + (minutes * 60e6).astype("timedelta64[us]"),
        "passenger_count": rng.choice(np.arange(1, 7), size=size,
                                      p=[0.72, 0.15, 0.05, 0.03, 0.03, 0.02]),
        "trip_distance": distance,
        "RatecodeID": np.where(airport > 0, 2, 1),
        "store_and_fwd_flag": np.where(rng.random(size) < 0.005, "Y", "N"),
        "PULocationID": ids[cell // n].astype(np.int32),
        "DOLocationID": ids[cell % n].astype(np.int32),
        "payment_type": rng.choice(np.arange(1, 5), size=size, p=[0.75, 0.2, 0.03, 0.02]),
        "fare_amount": fare, "extra": rng.choice([0.0, 1.0, 2.5], size=size),
        "mta_tax": np.full(size, 0.5), "tip_amount": tip, "tolls_amount": np.zeros(size),
        "improvement_surcharge": np.ones(size),
        "congestion_surcharge": np.full(size, 2.5), "Airport_fee": airport,
    }
    columns["total_amount"] = np.round(
        fare + columns["extra"] + 0.5 + tip + 1.0 + 2.5 + airport, 2)
    lost = {name: rng.random(size) < missing for name in ("PULocationID", "DOLocationID")}
    return {name: (columns[name], lost.get(name)) for name, _ in TLC_LAYOUT}


@_checks.public(finite=False)
def write_synthetic_trips(path, trips, *, missing=0.0, rng=None) -> Path:
    """Write a synthetic month of TLC trip records (2024 yellow-taxi layout) to ``path``.

    Each trip's (pickup, drop-off) pair is drawn from the shipped samples' trips over
    all zones (``load_taxi_counts(None)``); the other columns hold plausible values of
    the TLC's types.  The file feeds ``count_trips`` and ``trip_counts_from_file``, the
    counters of eq. (4)'s count matrix, without a download.
    Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write: parquet for ``.parquet`` / ``.pq``, otherwise CSV, gzipped
        for ``.gz``.  Its folder must exist; an existing file is replaced.
    trips : int
        Rows (trips) to write, an int in [1, 10^9]; written in chunks of ``CHUNK``
        rows, so memory stays bounded however many.
    missing : float, optional
        Keyword only: probability in [0, 1] that a trip's pickup id, and independently
        its drop-off id, is missing (null), as in some TLC files; default 0.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Keyword only: ``None`` (default) is fresh OS entropy, a seed makes the file
        reproducible.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    TypeError
        If ``path`` is not a str or pathlib.Path, ``trips`` is not an int (a bool,
        float or text), ``missing`` is not a number, or ``rng`` is a bool or of an
        unsupported type.
    ValueError
        If ``path``'s folder does not exist or ``path`` is a folder, ``trips`` is
        outside [1, 10^9], ``missing`` is outside [0, 1], or an int ``rng`` is negative.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import dpmarkov as dm
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = dm.datasets.write_synthetic_trips(pathlib.Path(folder) / "m.parquet",
    ...                                              1000, rng=1)
    ...     r = dm.datasets.count_trips(path, borough=None)
    >>> path.name, r.trips_counted
    ('m.parquet', 1000)
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    if not isinstance(path, (str, Path)):
        raise TypeError(f"path={_checks.show(path)} must be a path (str or pathlib.Path)")
    path = Path(path)
    if not path.parent.is_dir() or path.is_dir():
        raise ValueError(f"path={str(path)!r} cannot be written: its folder must exist and "
                         "it must not be a folder")
    trips = _checks.whole("trips", trips, 1, highest=MAX_TRIPS)
    if isinstance(missing, (bool, np.bool_)) or not isinstance(missing, (int, float, np.floating)):
        raise TypeError(f"missing={_checks.show(missing)} must be a probability (a float)")
    if not 0.0 <= missing <= 1.0:
        raise ValueError(f"missing={missing!r} must be a probability in [0, 1]")
    gen = _checks.generator(rng)
    counts, zones = load_taxi_counts(None)
    ids = zones["LocationID"].to_numpy(np.int64)
    cells = np.flatnonzero(counts)
    p = counts.ravel()[cells] / counts.sum()
    schema = pa.schema([(name, pa.type_for_alias(kind)) for name, kind in TLC_LAYOUT])
    parquet = path.suffix.lower() in (".parquet", ".pq")
    sink = path if parquet or path.suffix.lower() != ".gz" else pa.CompressedOutputStream(
        str(path), "gzip")
    writer = (pq.ParquetWriter(path, schema) if parquet
              else pacsv.CSVWriter(sink, schema))
    try:
        for start in range(0, trips, CHUNK):
            data = _chunk(gen, min(CHUNK, trips - start), cells, p, ids.size, ids, missing)
            writer.write_table(pa.table(
                [pa.array(values, type=schema.field(name).type, mask=lost)
                 for name, (values, lost) in data.items()], schema=schema))
    finally:
        writer.close()
        if sink is not path:
            sink.close()
    return path

"""Trips that live in a Spark cluster, counted there: the Spark adapter of ``count_trips``.

Where the trip records already sit in a cluster (a data lake of many years, several
cities), moving them to one machine costs more than counting them where they are.
``count_trips_spark`` groups a Spark DataFrame by its two zone-id columns in Spark and
brings home only the pair table (at most one row per pair of zone ids); ``count_pairs``
turns it into the chain's counts, exactly as ``count_trips`` does with DuckDB's pairs.
``pyspark`` is an optional extra: ``pip install "dpmarkov[spark]"`` (it needs Java 17+).
Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").
"""
from __future__ import annotations

import numpy as np

from .. import _checks
from .taxi import TripCounts, count_pairs
from .trip_files import trip_columns

#: Spark column types accepted as zone ids and trip weights (whole numbers are checked).
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")


@_checks.public(finite=False)
def count_trips_spark(frame, *, borough="Manhattan", zones=None, weights=None) -> TripCounts:
    """Count matrix of the trips in a Spark DataFrame, aggregated in Spark.

    Spark groups the rows by (pickup, drop-off) zone id and counts them (or sums the
    ``weights`` column); only that pair table is collected, and ``count_pairs`` makes
    the chain's counts (eq. (4) before normalising).  Equal to ``count_trips`` on the
    same trips, file for file (a test compares the two in Spark's local mode).
    Book: chapter "Case study: NYC taxis" (section "From a month to the whole history").

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        One row per trip, with ``PULocationID`` / ``DOLocationID`` (TLC layout) or
        ``pickup_location_id`` / ``dropoff_location_id``, any letter case; e.g.
        ``spark.read.parquet("s3a://.../yellow_tripdata_2024-*.parquet")``.
    borough : str or None, optional
        Keyword only: the chain's zones, as for ``count_trips`` (default
        ``"Manhattan"``; ``None``: every zone of the table).
    zones : pandas.DataFrame, str, pathlib.Path or None, optional
        Keyword only: the zone table; default the shipped TLC table
        (``load_taxi_zones``).
    weights : str or None, optional
        Keyword only: a numeric column of trips per row, present for every row;
        ``None`` (default): one trip a row.

    Returns
    -------
    TripCounts
        As ``count_trips`` returns, with ``files`` empty.

    Raises
    ------
    TypeError
        For a ``frame`` that is no Spark DataFrame, ``weights`` neither None nor a
        string, id or weight columns holding text, or ``borough``/``zones`` of a wrong
        type (as ``count_pairs``).
    ValueError
        For missing id or weight columns, missing weights, and for ids that are not
        whole numbers or not in the zone table (as ``count_pairs``).

    Examples
    --------
    Skipped as a doctest: it needs pyspark, Java 17+ and a Spark session.

    >>> import dpmarkov as dm
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> frame = spark.read.parquet("yellow_tripdata_2024-01.parquet")  # doctest: +SKIP
    >>> dm.datasets.count_trips_spark(frame).counts.shape  # doctest: +SKIP
    (69, 69)
    """
    if not type(frame).__module__.startswith("pyspark.sql"):    # pyspark may be absent
        raise TypeError(f"frame (a {type(frame).__module__}.{type(frame).__qualname__}) "
                        "must be a pyspark.sql.DataFrame "
                        '(pip install "dpmarkov[spark]"; Spark needs Java 17 or later)')
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    if not isinstance(frame, DataFrame):
        raise TypeError(f"frame (a {type(frame).__qualname__}) must be a "
                        "pyspark.sql.DataFrame")
    count_pairs([], [], [], borough=borough, zones=zones)            # checks both options
    wanted = trip_columns(frame.dtypes, weights, _NUMERIC, "frame")[:2]
    one = F.count(F.lit(1))
    trips = one if weights is None else F.sum(F.col(weights))
    unweighted = F.lit(0) if weights is None else one - F.count(F.col(weights))
    rows = (frame.groupBy(*wanted)
            .agg(trips.alias("trips"), unweighted.alias("unweighted")).collect())
    table = np.array([[np.nan if v is None else float(v) for v in row] for row in rows],
                     dtype=float).reshape(-1, 4)
    if np.any(table[:, 3]):
        raise ValueError(f"frame: column {weights!r} is missing for "
                         f"{int(table[:, 3].sum())} trips")
    return count_pairs(table[:, 0], table[:, 1], table[:, 2], borough=borough, zones=zones)

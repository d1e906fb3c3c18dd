"""Counting trip files on DuckDB (issue 30): the shipped samples give today's counts exactly,
synthetic TLC months give what pandas + ``trip_counts`` give (an independent path), every
trip is accounted for, many files count in one call, and bad input names the file.

Small synthetic files only (thousands of rows): the 3 and 30 million row runs are in
``benchmarks/bench_trip_files.py``, run by hand.
"""
from __future__ import annotations

import subprocess
import sys
from importlib import resources

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpmarkov.datasets import (TripCounts, count_pairs, count_trips, load_taxi_counts,
                               load_taxi_zones, trip_counts, trip_counts_from_file,
                               write_synthetic_trips)
from dpmarkov.datasets.taxi import in_table

DATA = resources.files("dpmarkov.datasets") / "data"


def _accounted(result: TripCounts) -> bool:
    return (result.trips_read == result.trips_counted + result.trips_outside
            + result.trips_missing and result.trips_counted == result.counts.sum())


# --- the shipped samples: exactly today's counts ------------------------------------------

@pytest.mark.parametrize("borough", ["Manhattan", None, "Queens"])
def test_shipped_samples_give_todays_counts(borough):
    expected, zones = load_taxi_counts(borough)
    with resources.as_file(DATA / "taxi_trip_counts.csv") as path:
        yearly = count_trips(path, borough=borough, weights="trips")
    with resources.as_file(DATA / "taxi_trip_counts_monthly.csv.gz") as path:
        monthly = count_trips(path, borough=borough, weights="trips")
    for result in (yearly, monthly):
        np.testing.assert_array_equal(result.counts, expected)
        assert result.counts.dtype == np.int64
        pd.testing.assert_frame_equal(result.zones, zones)
        assert result.trips_read == 360_000 and result.trips_missing == 0 and _accounted(result)
    if borough == "Manhattan":      # the numbers test_datasets_taxi.py checks on the raw samples
        assert yearly.trips_counted == 301_456 and yearly.trips_outside == 58_544


# --- synthetic TLC months against an independent pandas path ------------------------------

def _reference(path, borough="Manhattan"):
    """pandas reads the whole file; ``trip_counts`` counts the trips with both ids."""
    frame = (pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path))
    complete = frame.dropna(subset=["PULocationID", "DOLocationID"])
    counts, _ = trip_counts(complete["PULocationID"].to_numpy(float),
                            complete["DOLocationID"].to_numpy(float), borough=borough)
    return counts, len(frame), len(frame) - len(complete)


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".csv.gz"])
def test_synthetic_month_matches_pandas(tmp_path, suffix):
    path = write_synthetic_trips(tmp_path / f"yellow_tripdata_2024-01{suffix}", 20_000,
                                 missing=0.02, rng=7)
    expected, rows, lost = _reference(path)
    result = count_trips(path)
    np.testing.assert_array_equal(result.counts, expected)
    assert result.trips_read == rows == 20_000
    assert result.trips_missing == lost > 0          # about 2 x 2% of 20,000: 792 here
    assert result.trips_outside > 0 and _accounted(result)
    assert result.files == (str(path),)


def test_layout_is_the_tlc_one(tmp_path):
    path = write_synthetic_trips(tmp_path / "m.parquet", 10, rng=0)
    frame = pd.read_parquet(path)
    assert frame.shape == (10, 19)
    assert list(frame.columns[7:9]) == ["PULocationID", "DOLocationID"]
    assert str(frame["PULocationID"].dtype) == "int32"
    # the same seed, the same file; pairs drawn from the shipped samples' zones
    again = pd.read_parquet(write_synthetic_trips(tmp_path / "n.parquet", 10, rng=0))
    pd.testing.assert_frame_equal(frame, again)
    assert frame["PULocationID"].between(1, 265).all()


def test_a_year_in_one_call(tmp_path, capsys):
    for month in range(1, 13):
        write_synthetic_trips(tmp_path / f"yellow_tripdata_2024-{month:02d}.parquet", 2_000,
                              rng=month)
    year = count_trips(tmp_path / "yellow_tripdata_2024-*.parquet", pattern=True,
                       progress=True)
    assert "12/12 files" in capsys.readouterr().err
    assert len(year.files) == 12 and year.files == tuple(sorted(year.files))
    months = [count_trips(f) for f in year.files]
    np.testing.assert_array_equal(year.counts, sum(m.counts for m in months))
    assert year.trips_read == 24_000 and _accounted(year)
    # a list of files and patterns gives the same
    listed = count_trips([str(tmp_path / "yellow_tripdata_2024-1*.parquet"),
                          str(tmp_path / "yellow_tripdata_2024-0?.parquet")], pattern=True)
    np.testing.assert_array_equal(listed.counts, year.counts)
    assert listed.files == year.files[9:] + year.files[:9]
    assert count_trips(year.files[:2], progress=False) is not None
    assert capsys.readouterr().err == ""


def test_count_pairs_by_hand():
    # 237 -> 236 inside Manhattan, 237 -> 48 inside, 132 -> 138 (Queens) outside, one missing
    r = count_pairs([237, 237, 132, None], [236, 48, 138, 4], [5, 2, 1, 3])
    assert (r.trips_read, r.trips_counted, r.trips_outside, r.trips_missing) == (11, 7, 1, 3)
    ids = r.zones["LocationID"].tolist()
    assert r.counts[ids.index(237), ids.index(236)] == 5
    r = count_pairs(np.array([np.nan, 4.0]), [4, np.nan], [2, 2], borough=None)
    assert r.trips_missing == 4 and r.trips_counted == 0
    with pytest.raises(ValueError, match="zone id 999"):
        count_pairs([999], [4], [1])
    with pytest.raises(ValueError, match="trips must be finite whole.*trips\\[0\\]=0.5"):
        count_pairs([4], [4], [0.5])


def test_trip_counts_from_file_stays_strict(tmp_path):
    path = write_synthetic_trips(tmp_path / "m.parquet", 2_000, missing=0.01, rng=3)
    with pytest.raises(ValueError, match="without a zone id: count_trips counts the others"):
        trip_counts_from_file(path)
    clean = write_synthetic_trips(tmp_path / "c.parquet", 2_000, rng=3)
    counts, _ = trip_counts_from_file(clean)
    np.testing.assert_array_equal(counts, _reference(clean)[0])


# --- bad input: a clear error naming the file or the column -------------------------------

def _write(path, text):
    path.write_text(text)
    return path


def test_missing_id_columns_name_the_file(tmp_path):
    path = _write(tmp_path / "trips.csv", "PULocationID,dropoff\n4,4\n")
    with pytest.raises(ValueError, match="trips.csv.*no zone-id columns.*dropoff"):
        count_trips(path)


def test_text_ids_name_the_file_row_and_value(tmp_path):
    path = _write(tmp_path / "trips.csv", "PULocationID,DOLocationID\n4,4\n4,Midtown\n")
    with pytest.raises(ValueError, match="trips.csv', row 2: DOLocationID='Midtown', which is "
                                         "not a zone id"):
        count_trips(path)
    # a parquet file has types: text ids there are a schema error, never parsed
    parquet = tmp_path / "text.parquet"
    pq.write_table(pa.table({"PULocationID": ["4"], "DOLocationID": ["4"]}), parquet)
    with pytest.raises(TypeError, match="text.parquet.*'PULocationID' holds VARCHAR"):
        count_trips(parquet)


def test_ids_must_be_whole_and_known(tmp_path):
    path = _write(tmp_path / "half.csv", "PULocationID,DOLocationID\n4,4\n4,4.5\n")
    with pytest.raises(ValueError, match="half.csv', row 2: DOLocationID='4.5', which is "
                                         "not a zone id \\(a whole number"):
        count_trips(path)
    path = _write(tmp_path / "unknown.csv", "PULocationID,DOLocationID\n4,4\n999,4\n")
    with pytest.raises(ValueError, match="unknown.csv', row 2: PULocationID='999', which is "
                                         "not in the zone table"):
        count_trips(path)


def test_empty_glob_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="pattern .*nothing_\\*.parquet.* matches no file"):
        count_trips(tmp_path / "nothing_*.parquet", pattern=True)
    with pytest.raises(ValueError, match="nothing_\\*.parquet' is not a file .*pattern=True"):
        count_trips(tmp_path / "nothing_*.parquet")
    with pytest.raises(ValueError, match="source=.*nope.parquet.* is not a file"):
        count_trips(tmp_path / "nope.parquet")
    with pytest.raises(TypeError, match="source="):
        count_trips([])
    with pytest.raises(TypeError, match="source holds 3"):
        count_trips([3, tmp_path / "a.parquet"])


def test_corrupt_file_in_a_glob_is_named(tmp_path):
    for month in (1, 3):
        write_synthetic_trips(tmp_path / f"yellow_tripdata_2024-{month:02d}.parquet", 500,
                              rng=month)
    good = (tmp_path / "yellow_tripdata_2024-01.parquet").read_bytes()
    (tmp_path / "yellow_tripdata_2024-02.parquet").write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match="2024-02.parquet.* cannot be read as a parquet"):
        count_trips(tmp_path / "*.parquet", pattern=True)


@pytest.mark.parametrize("name, data", [
    ("truncated.csv.gz", None), ("fake.parquet", b"PULocationID,DOLocationID\n4,4\n"),
    ("binary.csv", bytes(range(256)) * 4), ("empty.csv", b"")])
def test_unreadable_files_are_named(tmp_path, name, data):
    if data is None:
        import gzip
        data = gzip.compress(b"PULocationID,DOLocationID\n" + b"4,4\n" * 2000)[:40]
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError) as info:
        count_trips(path)
    assert str(path) in str(info.value)


def test_weights_column_is_checked(tmp_path):
    path = _write(tmp_path / "agg.csv", "PULocationID,DOLocationID,trips\n4,4,2\n4,12,\n")
    with pytest.raises(ValueError, match="agg.csv', row 2: trips is empty, but weights are "
                                         "trips per row"):
        count_trips(path, weights="trips")
    with pytest.raises(ValueError, match="weights='n' is not a column of file .*agg.csv"):
        count_trips(path, weights="n")
    with pytest.raises(TypeError, match="weights=3"):
        count_trips(path, weights=3)
    with pytest.raises(TypeError, match="progress="):
        count_trips(path, progress="yes")


# --- counting without pandas (issue 38's cold start) --------------------------------------

def test_shipped_zones_read_without_pandas_are_the_table():
    # chain_zones reads the shipped table with the csv module; a different parse (an empty
    # borough read as "", a lost row) would change which trips count as outside
    from dpmarkov.datasets.taxi import _borough_zones, chain_zones

    table = load_taxi_zones()
    for borough in (None, *sorted(table["Borough"].dropna().unique())):
        known, loc, states = chain_zones(borough, None)
        expected = _borough_zones(borough, table)
        assert known.tolist() == table["LocationID"].tolist()
        assert loc.tolist() == expected["LocationID"].tolist()
        pd.testing.assert_frame_equal(states(), expected)
    with pytest.raises(ValueError, match="borough='Atlantis' is not in the zone table"):
        chain_zones("Atlantis", None)


def test_counting_a_file_imports_no_pandas(tmp_path):
    # a fresh process: counting needs numpy and DuckDB; pandas (126 MiB) only for .zones,
    # and no numpy.ma (numpy's isin of floats imports it: 10 MiB after DuckDB's query)
    path = write_synthetic_trips(tmp_path / "m.parquet", 500, rng=4)
    code = ("import sys\nimport dpmarkov.datasets as ds\n"
            f"r = ds.count_trips({str(path)!r})\n"
            "assert 'pandas' not in sys.modules, 'pandas imported'\n"
            "assert 'numpy.ma' not in sys.modules, 'numpy.ma imported'\n"
            "print(len(r.zones), 'pandas' in sys.modules, r.trips_read)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["69", "True", "500"]


def test_in_table_is_numpys_isin():
    # every case where a binary search can go wrong: below the first id, above the last
    # (the clipped position), between two ids, on each end, NaN, infinities, -0.0, ids
    # past 2**53 (compared as float64, as np.isin does), an empty table and one id
    table = np.array([1, 4, 7, 263, 265, 2**60 + 1], dtype=np.int64)
    ids = np.array([0.0, 1.0, 2.0, 4.0, 4.5, 7.0, 264.0, 265.0, 266.0, np.nan, np.inf,
                    -np.inf, -0.0, float(2**60), 1e300, -1.0])
    for t in (table, table[::-1], table[:1], table[:0], np.array([0])):
        assert np.array_equal(in_table(ids, t), np.isin(ids, t)), t
    rng = np.random.default_rng(38)
    for _ in range(20):
        t = rng.choice(300, size=rng.integers(1, 60), replace=False)
        x = rng.integers(-5, 305, size=500).astype(float)
        assert np.array_equal(in_table(x, t), np.isin(x, t))


def test_trip_counts_unpacks_like_a_tuple(tmp_path):
    path = write_synthetic_trips(tmp_path / "m.parquet", 500, rng=4)
    result = count_trips(path)
    counts, zones, *totals, files = result
    assert counts is result.counts and files == (str(path),) and len(result) == 7
    assert totals == [result.trips_read, result.trips_counted, result.trips_outside,
                      result.trips_missing] == list(result[2:6])
    pd.testing.assert_frame_equal(zones, load_taxi_counts()[1])

"""The NYC taxi loaders: shipped counts against numbers read from the raw TLC samples,
the TLC-layout file reader on small CSV / parquet files, and every input check.

Known values were counted directly from the 36 raw files
yellow_tripdata_sample_2018-01 ... 2020-12.csv.gz (pandas, one row per trip) when the
data were packaged; no file outside the package is needed here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.sparse.csgraph import connected_components

from dpmarkov.datasets import (load_taxi_counts, load_taxi_zones, prepare_chain, trip_counts,
                               trip_counts_from_file)

MANHATTAN_TRIPS = 301_456          # trips starting and ending in Manhattan, 2018-2020
PER_YEAR = {2018: 100_863, 2019: 101_118, 2020: 99_475}


def _at(zones, pu, do):
    ids = zones["LocationID"].tolist()
    return ids.index(pu), ids.index(do)


def test_zone_table():
    zones = load_taxi_zones()
    assert list(zones.columns) == ["LocationID", "Borough", "Zone", "service_zone"]
    assert len(zones) == 265 and zones["LocationID"].tolist() == list(range(1, 266))
    assert (zones["Borough"] == "Manhattan").sum() == 69
    assert zones.loc[zones.LocationID == 237, "Zone"].item() == "Upper East Side South"


def test_manhattan_counts_match_the_raw_samples():
    counts, zones = load_taxi_counts()
    assert counts.shape == (69, 69) and counts.dtype == np.int64
    assert (zones["Borough"] == "Manhattan").all() and zones["LocationID"].is_monotonic_increasing
    assert counts.sum() == MANHATTAN_TRIPS
    assert counts[_at(zones, 237, 236)] == 2141           # Upper East Side S -> N
    assert counts[_at(zones, 161, 161)] == 588            # Midtown Center -> itself
    ids = zones["LocationID"].tolist()
    assert counts[ids.index(161)].sum() == 12_059
    assert counts[ids.index(237)].sum() == 14_747
    assert counts[ids.index(4)].sum() == 477
    for zone in (103, 104, 105, 120):                      # islands and Highbridge Park: no pickup
        assert counts[ids.index(zone)].sum() == 0
    for zone in (103, 104):                                # ... and no drop-off for 103, 104
        assert counts[:, ids.index(zone)].sum() == 0


def test_years_and_boroughs():
    for year, total in PER_YEAR.items():
        assert load_taxi_counts(years=year)[0].sum() == total
    counts_19, zones = load_taxi_counts(years=[2019])
    assert counts_19[_at(zones, 237, 236)] == 702
    both = load_taxi_counts(years=[2018, 2020])[0]
    assert both.sum() == PER_YEAR[2018] + PER_YEAR[2020]
    everything, all_zones = load_taxi_counts(None)
    assert everything.shape == (265, 265) and everything.sum() == 360_000
    assert everything[_at(all_zones, 132, 138)] == 115     # JFK -> LaGuardia
    assert everything[_at(all_zones, 237, 236)] == 2141
    assert load_taxi_counts("Queens")[0].sum() == 7049


@pytest.mark.parametrize("bad", [2017, [2019, 2021], []])
def test_unknown_years_are_rejected(bad):
    with pytest.raises(ValueError, match="years="):
        load_taxi_counts(years=bad)


def test_unknown_borough_is_rejected():
    with pytest.raises(ValueError, match="borough='Atlantis'"):
        load_taxi_counts("Atlantis")


def test_trip_counts_by_hand():
    zones = pd.DataFrame({"LocationID": [7, 3, 5, 9],
                          "Borough": ["A", "A", "A", "B"], "Zone": list("wxyz")})
    counts, states = trip_counts([3, 3, 5, 7, 9, 3], [5, 5, 3, 7, 3, 3], borough="A", zones=zones)
    assert states["LocationID"].tolist() == [3, 5, 7]      # sorted by id, borough B left out
    np.testing.assert_array_equal(counts, [[1, 2, 0], [1, 0, 0], [0, 0, 1]])
    counts, _ = trip_counts([3, 9], [9, 9], borough=None, zones=zones, weights=[4, 2])
    np.testing.assert_array_equal(counts[[0, 3], 3], [4, 2])
    assert counts.sum() == 6


@pytest.mark.parametrize("pickup, dropoff, weights, message", [
    ([4, np.nan], [4, 4], None, "pickup has 1 missing"),
    ([4.5], [4], None, "whole numbers"),
    ([4, 999], [4, 4], None, "zone id 999"),
    ([4, 4], [4], None, "one of each per trip"),
    ([4], [4], [1, 2], "weights has 2 entries"),
    ([4], [4], [-1], "weights must be"),
    ([4], [4], [1.5], "weights must be"),
])
def test_trip_counts_rejects_bad_ids(pickup, dropoff, weights, message):
    with pytest.raises(ValueError, match=message):
        trip_counts(pickup, dropoff, weights=weights)


def test_zone_table_argument_is_checked(tmp_path):
    with pytest.raises(ValueError, match="lacks the columns"):
        trip_counts([1], [1], zones=pd.DataFrame({"LocationID": [1]}))
    with pytest.raises(TypeError, match="zones="):
        trip_counts([1], [1], zones=42)
    path = tmp_path / "zones.csv"
    load_taxi_zones().to_csv(path, index=False)
    assert trip_counts([4], [4], zones=path)[0].sum() == 1


# A handful of real trips (ids from the 2019-01 sample), two of them not within Manhattan.
TRIPS = pd.DataFrame({"PULocationID": [230, 112, 237, 237, 236, 161, 132],
                      "DOLocationID": [48, 112, 236, 236, 237, 237, 138],
                      "fare_amount": [6.5, 6.0, 5.0, 7.5, 8.0, 9.0, 40.0]})


def _expected():
    return trip_counts(TRIPS["PULocationID"], TRIPS["DOLocationID"])


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet"])
def test_file_reader_tlc_layout(tmp_path, suffix):
    path = tmp_path / f"yellow_tripdata_2025-01{suffix}"
    if suffix == ".parquet":
        TRIPS.to_parquet(path)
    else:
        TRIPS.to_csv(path, index=False)
    counts, zones = trip_counts_from_file(path)
    expected, _ = _expected()
    np.testing.assert_array_equal(counts, expected)
    assert counts.sum() == 5      # Greenpoint (112, Brooklyn) and JFK -> LaGuardia left out
    assert counts[_at(zones, 237, 236)] == 2


def test_file_reader_sample_layout_and_letter_case(tmp_path):
    sample = TRIPS.rename(columns={"PULocationID": "pickup_location_id",
                                   "DOLocationID": "dropoff_location_id"})
    sample.to_csv(tmp_path / "sample.csv", index=False)
    np.testing.assert_array_equal(trip_counts_from_file(tmp_path / "sample.csv")[0], _expected()[0])
    lower = TRIPS.rename(columns=str.lower)
    lower.to_parquet(tmp_path / "lower.pq")
    np.testing.assert_array_equal(trip_counts_from_file(tmp_path / "lower.pq")[0], _expected()[0])
    counts, zones = trip_counts_from_file(tmp_path / "sample.csv", borough=None)
    assert counts.shape == (265, 265) and counts.sum() == 7


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_file_reader_missing_columns(tmp_path, suffix):
    path = tmp_path / f"bad{suffix}"
    frame = TRIPS.rename(columns={"DOLocationID": "dropoff"})
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    with pytest.raises(ValueError, match="no zone-id columns.*PULocationID.*dropoff"):
        trip_counts_from_file(path)


def test_file_reader_missing_file(tmp_path):
    with pytest.raises(ValueError, match="is not a file"):
        trip_counts_from_file(tmp_path / "nope.parquet")


def _strongly_connected(counts):
    return connected_components(counts > 0, directed=True, connection="strong")[0] == 1


def test_prepare_chain_on_manhattan():
    counts, zones = load_taxi_counts()
    kept_counts, kept = prepare_chain(counts)
    # 4 zones without pickups go, and zones 128 / 153 are only reachable one way
    assert kept_counts.shape == (65, 65)
    assert _strongly_connected(kept_counts)
    np.testing.assert_array_equal(kept_counts, counts[np.ix_(kept, kept)])
    assert kept_counts.sum() == 301_438
    pruned, kept2 = prepare_chain(counts, min_count=15, min_row=200)
    assert _strongly_connected(pruned)
    assert pruned[pruned > 0].min() >= 15 and pruned.sum(axis=1).min() >= 200
    assert set(kept2) <= set(kept)


def test_prepare_chain_by_hand():
    counts = np.array([[5, 1, 0, 0],
                       [2, 5, 0, 3],
                       [0, 0, 0, 0],    # no departures: dropped
                       [0, 4, 0, 1]])
    kept_counts, kept = prepare_chain(counts)
    assert kept.tolist() == [0, 1, 3]
    # prune transitions seen < 2 times: 0 -> 1 goes, so 0 cannot leave and {1, 3} remain
    kept_counts, kept = prepare_chain(counts, min_count=2)
    assert kept.tolist() == [1, 3]
    np.testing.assert_array_equal(kept_counts, [[5, 3], [4, 0]])
    # states with fewer than 6 departures are dropped: 3 (5 departures) goes, then {0, 1}
    kept_counts, kept = prepare_chain(counts, min_row=6)
    assert kept.tolist() == [0, 1]
    np.testing.assert_array_equal(kept_counts, [[5, 1], [2, 5]])


@pytest.mark.parametrize("counts, kwargs, message", [
    (np.ones((2, 3)), {}, "n x n"),
    ([[1, -1], [1, 1]], {}, "whole numbers >= 0"),
    ([[1, 0.5], [1, 1]], {}, "whole numbers >= 0"),
    ([[1, np.nan], [1, 1]], {}, "finite"),
    ([[1, 1], [1, 1]], {"min_count": 0}, "min_count=.*0.* must be >= 1"),
    ([[1, 1], [1, 1]], {"min_row": 1.5}, "min_row=.*1.5.* whole number"),
    ([[1, 1], [1, 1]], {"min_count": 2}, "only 0 state"),
    ([[1, 0], [0, 1]], {}, "only 1 state"),
])
def test_prepare_chain_rejects(counts, kwargs, message):
    with pytest.raises(ValueError, match=message):
        prepare_chain(counts, **kwargs)


# --- issue 10: malformed input names the file or the parameter ------------------------------

def test_trip_counts_refuses_text_and_bools():
    with pytest.raises(TypeError, match="dropoff has dtype <U"):
        trip_counts([4, 4], [4, "x"])                  # the old code parsed "4" silently
    with pytest.raises(TypeError, match="pickup has dtype bool"):
        trip_counts([True], [4])


def test_trip_counts_large_weights_do_not_wrap():
    # the old code summed in doubles and cast to int64: 1e19 wrapped to a negative count
    with pytest.raises(ValueError, match="in \\[0, 2\\*\\*53\\] when given as floats"):
        trip_counts([4], [4], weights=[1e19])
    # sums are exact integers above 2**53 (a double sum would give 2**54 for the first pair,
    # losing the + 1), up to the int64 cell; one past it is refused, never wrapped
    big = 2**53 + 1
    counts, zones = trip_counts([4, 4, 12], [4, 4, 4], weights=[big, 2**53, 2**62])
    ids = zones["LocationID"].tolist()
    assert int(counts[ids.index(4), ids.index(4)]) == 2**54 + 1
    assert int(counts[ids.index(12), ids.index(4)]) == 2**62
    with pytest.raises(ValueError, match="weights add up to 9223372036854775808 trips"):
        trip_counts([4, 4], [4, 4], weights=[2**62, 2**62])
    with pytest.raises(ValueError, match="weights must be whole numbers in \\[0, 2\\*\\*63 - 1\\]"):
        trip_counts([4], [4], weights=[2**63])


def _bad_files(tmp_path):
    import gzip
    good = tmp_path / "good.csv.gz"
    with gzip.open(good, "wt") as fh:
        fh.write("PULocationID,DOLocationID\n" + "4,4\n" * 2000)
    truncated = tmp_path / "truncated.csv.gz"
    truncated.write_bytes(good.read_bytes()[:40])
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 4)
    fake = tmp_path / "fake.parquet"
    fake.write_text("PULocationID,DOLocationID\n4,4\n")
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    return [truncated, empty, binary, fake, folder]


def test_trip_counts_from_file_names_the_bad_file(tmp_path):
    for path in _bad_files(tmp_path):
        with pytest.raises(ValueError) as info:
            trip_counts_from_file(path)
        assert str(path) in str(info.value), info.value


def test_zone_table_file_and_ids_are_checked(tmp_path):
    for path in _bad_files(tmp_path):
        with pytest.raises(ValueError) as info:
            trip_counts([4], [4], zones=path)
        assert str(path) in str(info.value), info.value
    zones = load_taxi_zones()
    duplicated = pd.concat([zones, zones.iloc[[3]]], ignore_index=True)
    with pytest.raises(ValueError, match="repeats the id 4"):
        trip_counts([4], [4], zones=duplicated)
    missing = zones.astype({"LocationID": float})
    missing.loc[5, "LocationID"] = np.nan
    with pytest.raises(ValueError, match="1 missing"):
        trip_counts([4], [4], zones=missing)


def test_loader_options_are_typed():
    with pytest.raises(TypeError, match="years=True"):
        load_taxi_counts(years=True)
    with pytest.raises(TypeError, match="years='2019'"):
        load_taxi_counts(years="2019")
    with pytest.raises(TypeError, match="borough=3"):
        trip_counts([4], [4], borough=3)

"""The monthly taxi counts (dpmarkov/datasets/taxi_monthly.py) agree with the yearly file."""
import numpy as np
import pytest

from dpmarkov.datasets import load_taxi_counts
from dpmarkov.datasets.taxi_monthly import load_taxi_monthly_counts


def test_months_sum_to_the_yearly_counts():
    months, counts, zones = load_taxi_monthly_counts()
    assert months[0] == (2018, 1) and months[-1] == (2020, 12) and len(months) == 36
    assert counts.shape == (36, 69, 69) and len(zones) == 69
    for y, year in enumerate((2018, 2019, 2020)):
        yearly, _ = load_taxi_counts(years=year)
        assert np.array_equal(counts[12 * y:12 * (y + 1)].sum(axis=0), yearly)
    assert counts.sum() == 301_456          # PROVENANCE-taxi.md: Manhattan -> Manhattan trips


@pytest.mark.parametrize("borough", ["Manhattan", "Brooklyn"])
def test_one_split_equals_one_trip_counts_call_per_month(borough):
    # the loader reads the file once and splits the months by one bincount; the direct route
    # (one trip_counts call per month on that month's rows) must give the same int64 arrays:
    # a wrong month order, a month index off by one or a dropped row would differ
    import pandas as pd
    from importlib import resources
    from dpmarkov.datasets.taxi import trip_counts

    months, counts, zones = load_taxi_monthly_counts(borough)
    path = resources.files("dpmarkov.datasets") / "data" / "taxi_trip_counts_monthly.csv.gz"
    with resources.as_file(path) as p:
        table = pd.read_csv(p)
    direct = sorted({(int(y), int(m)) for y, m in zip(table["year"], table["month"])})
    assert months == direct and all(type(v) is int for ym in months for v in ym)
    for t, (year, month) in enumerate(direct):
        part = table[(table["year"] == year) & (table["month"] == month)]
        expected, zones_t = trip_counts(part["PULocationID"], part["DOLocationID"],
                                        weights=part["trips"], borough=borough)
        assert counts[t].dtype == expected.dtype and np.array_equal(counts[t], expected)
        assert zones_t.equals(zones)

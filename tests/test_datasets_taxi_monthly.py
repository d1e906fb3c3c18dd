"""The monthly taxi counts (dpmarkov/datasets/taxi_monthly.py) agree with the yearly file."""
import numpy as np

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

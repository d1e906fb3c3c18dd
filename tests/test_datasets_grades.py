"""The grade loader on the shipped file (dpmarkov/datasets/data/grades_uiuc_math221.csv).

The expected counts below were read by hand from the raw source files
(grades_uiuc/fa2010.csv.gz, fa2017.csv.gz, fa2021.csv.gz of the UIUC GPA dataset,
see data/PROVENANCE-grades.md) when the file was made; the test needs only the package.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpmarkov as dm
import dpmarkov.datasets  # noqa: F401  (makes dm.datasets available)
from dpmarkov.datasets.grades import GRADES, RAW_GRADES

# (term, instructor, raw A+ ... F, W) copied from the raw files
RAW_ROWS = {
    ("fa2010", 46992): ("Boca, Florin", (0, 31, 38, 41, 39, 27, 19, 14, 15, 1, 2, 0, 5), 1),
    ("fa2021", 48289): ("Placzek, Laura E", (2, 10, 4, 1, 2, 1, 0, 0, 0, 0, 0, 0, 1), 0),
}


@pytest.fixture(scope="module")
def grades():
    return dm.datasets.load_grades()


def test_shape_columns_and_totals(grades):
    assert grades.shape == (72, 16)
    assert list(grades.columns[-7:]) == ["A", "B", "C", "D", "F", "W", "N"]
    assert (grades[list(GRADES)].sum(axis=1) == grades["N"]).all()
    assert grades["N"].sum() == 14_407 and grades["W"].sum() == 84
    assert grades["N"].min() == 21 and grades["N"].max() == 264
    assert set(grades["season"]) == {"Fall"}
    assert grades["year"].min() == 2010 and grades["year"].max() == 2025
    assert (grades["course"] == "MATH 221").all()
    assert (grades[list(GRADES)].to_numpy() >= 0).all()


@pytest.mark.parametrize("key", sorted(RAW_ROWS))
def test_known_sections_match_the_raw_files(grades, key):
    term, crn = key
    instructor, raw, w = RAW_ROWS[key]
    row = grades[(grades["term"] == term) & (grades["crn"] == crn)]
    assert len(row) == 1
    row = row.iloc[0]
    assert row["instructor"] == instructor and row["W"] == w
    folded = [sum(raw[3 * i:3 * i + 3]) for i in range(4)] + [raw[12]]
    assert [int(row[g]) for g in GRADES] == folded
    assert row["N"] == sum(raw)
    unfolded = dm.datasets.load_grades(fold=False)
    raw_row = unfolded[(unfolded["term"] == term) & (unfolded["crn"] == crn)].iloc[0]
    assert [int(raw_row[g]) for g in RAW_GRADES] == list(raw)


def test_section_without_crn_is_kept(grades):
    """Fall 2017 has no CRN column in the source: the four sections are still there."""
    fa2017 = grades[grades["term"] == "fa2017"]
    assert len(fa2017) == 4 and fa2017["crn"].isna().all()
    bradlow = fa2017[fa2017["instructor"] == "Bradlow, Steven B"].iloc[0]
    assert [int(bradlow[g]) for g in GRADES] == [61, 58, 77, 18, 20]


def test_counts_feed_the_mechanism(grades):
    counts = grades.loc[0, list(GRADES)].to_numpy(dtype=float)
    C = dm.count_vector(counts)
    assert np.isclose(C.sum(), 1.0)
    zero = grades[(grades[list(GRADES)] == 0).any(axis=1)]
    assert len(zero) == 4  # sections where Assumption 3 fails for every eta > 0


def test_unknown_course_rejected():
    with pytest.raises(ValueError, match=r"course='CS 225' is not shipped"):
        dm.datasets.load_grades("CS 225")


def test_loader_reads_only_package_data():
    """Run the loader with an audit hook that fails on any file opened outside the package."""
    package = Path(dm.__file__).resolve().parent
    code = f"""
import sys
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith("/work/shared"):
        raise RuntimeError("opened " + args[0])
sys.addaudithook(hook)
import dpmarkov.datasets as d
from importlib import resources
t = d.load_grades()
p = resources.files("dpmarkov.datasets") / "data" / "grades_uiuc_math221.csv"
assert str(p).startswith({str(package)!r}), p
print(len(t))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "72"
    source = (package / "datasets" / "grades.py").read_text()
    assert "/work/shared" not in source

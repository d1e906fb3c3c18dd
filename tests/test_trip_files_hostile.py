"""Hostile trip files (issue 37, item 1): no file yields a silently wrong count matrix.

Each case is a file (or a folder of files) built to trip a counter: names that look like
glob patterns, ids a type sniffer would round, weights whose pair sums hide a bad row,
repeated columns, files without rows, cut short or not tables at all, schemas that change
across one pattern, sums past 2**53.  ``count_trips`` either gives exactly the counts of an
independent counter (``_independent``: Python's csv module, or pyarrow for parquet, and
Python ints; no DuckDB, no code of the package) or refuses with a ValueError that names
the file, and for a bad cell its row (found independently by csv) and value.  A property
test (hypothesis) puts any short text in an id cell: counted as ``str`` methods read it, or
refused naming the row.
"""
from __future__ import annotations

import csv
import glob
import gzip
import io
from importlib import resources
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dpmarkov.datasets import count_trips

ZONES = resources.files("dpmarkov.datasets") / "data" / "taxi_zone_lookup.csv"
HEADER = "PULocationID,DOLocationID"


def _zone_table():
    with resources.as_file(ZONES) as path, open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {int(r["LocationID"]): r["Borough"] for r in rows}


def _rows(path: Path):
    """(pickup, drop-off, weight) text cells of a file, by the csv module or pyarrow."""
    if path.suffix == ".parquet":
        table = pq.read_table(path).to_pydict()
        keys = {k.lower(): k for k in table}
        pu, do = keys.get("pulocationid", keys.get("pickup_location_id")), keys.get(
            "dolocationid", keys.get("dropoff_location_id"))
        weights = table.get("trips", [1] * len(table[pu]))
        return list(zip(table[pu], table[do], weights))
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as fh:
        sample = fh.read()
    reader = csv.reader(io.StringIO(sample), csv.Sniffer().sniff(sample.splitlines()[0]))
    header = [h.lower() for h in next(reader)]
    pu = header.index("pulocationid" if "pulocationid" in header else "pickup_location_id")
    do = header.index("dolocationid" if "dolocationid" in header else "dropoff_location_id")
    w = header.index("trips") if "trips" in header else None
    return [(r[pu], r[do], 1 if w is None else r[w]) for r in reader]


def _independent(paths, borough="Manhattan"):
    """Counts, read, counted, outside, missing by plain Python ints over every row."""
    zones = _zone_table()
    states = sorted(z for z, b in zones.items() if borough is None or b == borough)
    index = {z: i for i, z in enumerate(states)}
    counts = [[0] * len(states) for _ in states]
    read = counted = outside = missing = 0
    for path in paths:
        for pu, do, w in _rows(Path(path)):
            w = int(w)
            read += w
            if pu in ("", None) or do in ("", None):
                missing += w
                continue
            pu, do = int(float(pu)), int(float(do))
            assert pu in zones and do in zones      # the cases count only known zones
            if pu in index and do in index:
                counts[index[pu]][index[do]] += w
                counted += w
            else:
                outside += w
    return counts, read, counted, outside, missing


def _same(result, paths, borough="Manhattan"):
    counts, *totals = _independent(paths, borough)
    assert [[int(x) for x in row] for row in result.counts] == counts
    assert [result.trips_read, result.trips_counted, result.trips_outside,
            result.trips_missing] == totals
    assert result.files == tuple(str(p) for p in paths)


def _csv(path: Path, rows, header=HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def _first_bad_row(path: Path, column: int, value: str) -> int:
    """The 1-based data row of the first cell ``value`` in ``column``, by the csv module."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    return next(i + 1 for i, r in enumerate(rows) if r[column] == value)


# --- names that look like patterns: a path is one file --------------------------------------

def test_folder_named_like_a_character_class(tmp_path):
    # data[2024] as a pattern matches data2 (and data0 ...): only the named file is read
    real = _csv(tmp_path / "data[2024]" / "m.csv", ["4,4", "4,12", "132,138"])
    _csv(tmp_path / "data2" / "m.csv", ["12,12"] * 50)
    _same(count_trips(real), [real])


def test_file_named_like_a_wildcard_beside_its_match(tmp_path):
    # m?.parquet as a pattern matches m1.parquet too (and itself): m1 was counted twice
    odd, m1 = tmp_path / "m?.parquet", tmp_path / "m1.parquet"
    pq.write_table(pa.table({"PULocationID": [4, 12], "DOLocationID": [4, 4]}), odd)
    pq.write_table(pa.table({"PULocationID": [237] * 7, "DOLocationID": [236] * 7}), m1)
    _same(count_trips(odd), [odd])
    _same(count_trips(str(tmp_path / "m*.parquet"), pattern=True), [m1, odd])
    star = _csv(tmp_path / "a*b.csv", ["4,4"])
    _csv(tmp_path / "aXb.csv", ["12,12"])
    _same(count_trips(star), [star])


def test_pattern_inside_a_folder_with_brackets(tmp_path):
    folder = tmp_path / "data[2024]"
    files = [_csv(folder / f"m{k}.csv", [f"{z},4" for z in (4, 12, 13)[:k]]) for k in (1, 2, 3)]
    _same(count_trips(glob.escape(str(folder)) + "/*.csv", pattern=True), files)
    with pytest.raises(ValueError, match="the pattern .* matches no file"):
        count_trips(str(folder) + "/*.csv", pattern=True)       # unescaped: [2024] is a class


def test_unicode_and_spaces_in_paths(tmp_path):
    path = _csv(tmp_path / "zürich trips" / "ñandú 1 (copy).csv", ["4,4", "236,237"])
    _same(count_trips(path), [path])
    _same(count_trips(str(tmp_path / "zürich trips" / "ñandú *.csv"), pattern=True), [path])


def test_empty_and_unmatched_patterns(tmp_path):
    (tmp_path / "folder.csv").mkdir()
    for source in ("", str(tmp_path / "nothing*.csv"), str(tmp_path / "folder.*")):
        with pytest.raises(ValueError, match="the pattern .* matches no file"):
            count_trips(source, pattern=True)
    for source in ("", str(tmp_path / "folder.csv")):
        with pytest.raises(ValueError, match="source=.* is not a file"):
            count_trips(source)
    with pytest.raises(TypeError, match="pattern="):
        count_trips(str(tmp_path / "x.csv"), pattern="yes")


def test_a_file_named_twice_is_refused(tmp_path):
    path = _csv(tmp_path / "m1.csv", ["4,4"])
    with pytest.raises(ValueError, match="names the file .*m1.csv.* twice"):
        count_trips([str(tmp_path / "m*.csv"), str(path)], pattern=True)
    with pytest.raises(ValueError, match="twice"):
        count_trips([path, tmp_path / "." / "m1.csv"])


# --- ids: read over the whole file, whole numbers in digits, in the zone table --------------

def test_fraction_after_thirty_thousand_whole_rows(tmp_path):
    # a sniffer typing from a sample reads BIGINT and rounds 4.5 to zone 5
    path = _csv(tmp_path / "late.csv", ["4,4"] * 30_000 + ["4,4.5"] + ["4,4"] * 9_999)
    row = _first_bad_row(path, 1, "4.5")
    assert row == 30_001
    with pytest.raises(ValueError, match=f"late.csv', row {row}: DOLocationID='4.5', which is "
                                         "not a zone id"):
        count_trips(path)


@pytest.mark.parametrize("cell", ["1e2", "0x10", "+4", "-4", "1_000", "\uff14", "4.5", "4,5",
                                  "four", "4.0.0", "nan", "inf"])
def test_ids_not_written_as_whole_numbers_are_refused(tmp_path, cell):
    # DuckDB's own cast reads 1e2 as 100, 0x10 as 16 and 1_000 as 1000: not ids
    body = [f'"{cell}",4' if "," in cell else f"{cell},4"]
    path = _csv(tmp_path / "odd.csv", ["4,4", "12,4"] + body)
    with pytest.raises(ValueError, match="odd.csv', row 3: PULocationID=.*which is not a zone"):
        count_trips(path)


def test_whole_numbers_with_zeros_spaces_and_quotes_count(tmp_path):
    # "4.0", " 12 " and a quoted "236" are the ids 4, 12 and 236; blanks are missing ids
    path = _csv(tmp_path / "ok.csv", ["4.0,4", " 12 ,4", '"236",237', ",4", "4,", "13,13"])
    result = count_trips(path)
    _same(result, [path])
    assert result.trips_missing == 2 and result.trips_counted == 4


def test_unknown_zone_named_with_its_row(tmp_path):
    path = _csv(tmp_path / "unknown.csv", ["4,4"] * 5 + ["4,999"] + ["4,4"])
    with pytest.raises(ValueError, match="unknown.csv', row 6: DOLocationID='999', which is "
                                         "not in the zone table"):
        count_trips(path)
    parquet = tmp_path / "unknown.parquet"
    pq.write_table(pa.table({"PULocationID": [4, 4, 0], "DOLocationID": [4, 4, 4]}), parquet)
    with pytest.raises(ValueError, match="unknown.parquet', row 3: PULocationID=0, which is "
                                         "not in the zone table"):
        count_trips(parquet)


def test_fractional_ids_in_parquet_named_with_their_row(tmp_path):
    path = tmp_path / "double.parquet"
    pq.write_table(pa.table({"PULocationID": [4.0, 12.0, 4.5], "DOLocationID": [4.0] * 3}),
                   path)
    with pytest.raises(ValueError, match="double.parquet', row 3: PULocationID=4.5, which is "
                                         "not a zone id"):
        count_trips(path)
    pq.write_table(pa.table({"PULocationID": [4.0, 12.0, None], "DOLocationID": [4.0] * 3}),
                   path)
    _same(count_trips(path), [path])


# --- weights: whole and >= 0 in every row, summed exactly -----------------------------------

@pytest.mark.parametrize("rows, row, value", [
    (["4,4,2.5", "4,4,0.5"], 1, "2.5"),       # the pair sums to 3, a whole number
    (["4,4,4", "4,4,-1"], 2, "-1"),           # the pair sums to 3 >= 0
    (["4,4,1", "12,4,1e3"], 2, "1e3"),
    (["4,4,1", "12,4,"], 2, None),
])
def test_weights_are_checked_row_by_row(tmp_path, rows, row, value):
    path = _csv(tmp_path / "agg.csv", rows, header=HEADER + ",trips")
    shown = " is empty" if value is None else f"='{value}'"
    with pytest.raises(ValueError, match=f"agg.csv', row {row}: trips{shown}, but weights"):
        count_trips(path, weights="trips")


def test_parquet_weights_are_checked_row_by_row(tmp_path):
    path = tmp_path / "agg.parquet"
    for trips, row in (([2.5, 0.5], 1), ([4, -1], 2), ([1.0, float("nan")], 2)):
        pq.write_table(pa.table({"PULocationID": [4, 4], "DOLocationID": [4, 4],
                                 "trips": trips}), path)
        with pytest.raises(ValueError, match=f"agg.parquet', row {row}: trips"):
            count_trips(path, weights="trips")


def test_pair_sums_are_exact_above_two_to_the_53(tmp_path):
    # as doubles 2**53 + 1 is 2**53: the + 1 trip would vanish
    path = _csv(tmp_path / "big.csv", [f"4,4,{2**53}", "4,4,1", f"12,4,{2**60}", "12,4,7"],
                header=HEADER + ",trips")
    result = count_trips(path, weights="trips")
    _same(result, [path])
    assert int(result.counts.max()) == 2**60 + 7 and result.trips_read == 2**53 + 2**60 + 8
    # past the int64 cell: refused, never wrapped
    over = _csv(tmp_path / "over.csv", [f"4,4,{2**62}", f"4,4,{2**62}"], header=HEADER + ",trips")
    with pytest.raises(ValueError, match="over.csv.*more than 2\\*\\*63 - 1"):
        count_trips(over, weights="trips")
    # ... also when the files add up past it, each below
    with pytest.raises(ValueError, match="over the files"):
        count_trips([_csv(tmp_path / f"half{k}.csv", [f"4,4,{2**62}"], header=HEADER + ",trips")
                     for k in (1, 2)], weights="trips")


# --- columns and shapes ---------------------------------------------------------------------

@pytest.mark.parametrize("header", ["PULocationID,DOLocationID,PULocationID",
                                    "PULocationID,DOLocationID,pulocationid",
                                    "PULocationID,DOLocationID,trips,trips"])
def test_repeated_columns_are_refused(tmp_path, header):
    path = _csv(tmp_path / "dup.csv", [",".join(["4", "4", "12", "1"][:header.count(",") + 1])],
                header=header)
    with pytest.raises(ValueError, match="dup.csv' has 2 zone-id columns named|"
                                         "names 2 columns of file .*dup.csv"):
        count_trips(path, weights="trips" if "trips" in header else None)


def test_repeated_column_in_parquet_is_refused(tmp_path):
    path = tmp_path / "dup.parquet"
    pq.write_table(pa.table([[4], [4], [12]], names=["PULocationID", "DOLocationID",
                                                     "PULocationID"]), path)
    with pytest.raises(ValueError, match="dup.parquet' has 2 zone-id columns named"):
        count_trips(path)


def test_files_without_rows_say_so(tmp_path):
    header_only = _csv(tmp_path / "header.csv", [])
    with pytest.raises(ValueError, match="header.csv' has no rows"):
        count_trips(header_only)
    parquet = tmp_path / "none.parquet"
    pq.write_table(pa.table({"PULocationID": pa.array([], pa.int32()),
                             "DOLocationID": pa.array([], pa.int32())}), parquet)
    with pytest.raises(ValueError, match="none.parquet' has no rows"):
        count_trips(parquet)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.csv"):
        count_trips(empty)


def test_no_header_is_no_id_columns(tmp_path):
    path = _csv(tmp_path / "bare.csv", ["12,4"], header="4,4")
    with pytest.raises(ValueError, match="bare.csv' has no zone-id columns"):
        count_trips(path)


def test_other_dialects_count_as_csv_reads_them(tmp_path):
    semi = _csv(tmp_path / "semi.csv", ["4;4", "236;237", ";4"], header=HEADER.replace(",", ";"))
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(b"PULocationID,DOLocationID\r\n4,4\r\n\"12\",4\r\n")
    _same(count_trips([semi, crlf]), [semi, crlf])


# --- files cut short or not tables ----------------------------------------------------------

def test_compressed_csv_cut_short(tmp_path):
    data = HEADER + "\n" + "".join(f"{(4, 12, 132)[i % 3]},4\n" for i in range(100_000))
    whole = gzip.compress(data.encode())
    for cut in (len(whole) // 2, len(whole) - 8, 40):
        path = tmp_path / f"cut{cut}.csv.gz"
        path.write_bytes(whole[:cut])
        with pytest.raises(ValueError, match=f"cut{cut}.csv.gz' cannot be read as a CSV"):
            count_trips(path)
    good = tmp_path / "good.csv.gz"
    good.write_bytes(whole)
    _same(count_trips(good), [good])


def test_parquet_cut_short(tmp_path):
    path = tmp_path / "cut.parquet"
    pq.write_table(pa.table({"PULocationID": [4] * 1000, "DOLocationID": [12] * 1000}), path)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 1, 4):
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="cut.parquet' cannot be read as a parquet"):
            count_trips(path)


@pytest.mark.parametrize("name, data", [
    ("binary.csv", bytes(range(256)) * 16), ("image.parquet", b"\x89PNG\r\n\x1a\n" + b"\0" * 64),
    ("text.parquet", b"PULocationID,DOLocationID\n4,4\n"), ("zeros.csv.gz", b"\0" * 100)])
def test_non_table_files_are_named(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError, match=f"file '.*{name}'"):
        count_trips(path)


# --- one pattern, many schemas --------------------------------------------------------------

def test_mixed_schemas_across_one_pattern(tmp_path):
    a = _csv(tmp_path / "m1.csv", ["4,4", "236,237", ",4"])
    b = _csv(tmp_path / "m2.csv", ["12,4,x", "4,132,y"], header="pickup_location_id,"
                                                               "dropoff_location_id,extra")
    c = tmp_path / "m3.parquet"
    pq.write_table(pa.table({"dolocationid": pa.array([4.0, None, 13.0]),
                             "PULOCATIONID": pa.array([12, 4, 13], pa.int16())}), c)
    result = count_trips(str(tmp_path / "m*"), pattern=True)
    _same(result, [a, b, c])
    np.testing.assert_array_equal(result.counts, sum(count_trips(f).counts for f in (a, b, c)))
    bad = _csv(tmp_path / "m4.csv", ["4,4"], header="pickup,dropoff")
    with pytest.raises(ValueError, match="m4.csv' has no zone-id columns"):
        count_trips(str(tmp_path / "m*"), pattern=True)
    bad.unlink()
    _csv(tmp_path / "m5.csv", ["4,4", "4,4.5"])
    with pytest.raises(ValueError, match="m5.csv', row 2: DOLocationID='4.5'"):
        count_trips(str(tmp_path / "m*"), pattern=True)


# --- any text in an id cell: counted as an independent parser reads it, or refused ----------

def _whole(text: str):
    """The id an ASCII whole number in ``text`` denotes (digits, a point and zeros allowed,
    spaces around), else None: str methods only, not the package's regular expression."""
    head, point, tail = text.strip(" ").partition(".")
    if head.isascii() and head.isdigit() and set(tail) <= {"0"}:
        return int(head)
    return None


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cell=st.text(alphabet="0123456789 .-+eEx_,\"\uff14\u0664", min_size=1, max_size=6))
def test_any_id_text_is_counted_or_refused(tmp_path, cell):
    assume(cell.strip(" ") and cell.strip(" ") != '"')
    path = tmp_path / "cell.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh, quoting=csv.QUOTE_ALL)
        writer.writerows([["PULocationID", "DOLocationID"], ["4", "4"], [cell, "4"]])
    zone = _whole(cell)
    if zone is not None and zone in _zone_table():
        result = count_trips(path, borough=None)
        _same(result, [path], borough=None)
    else:
        rule = "not a zone id" if zone is None else "not in the zone table"
        with pytest.raises(ValueError, match=f"cell.csv', row 2: PULocationID=.*{rule}"):
            count_trips(path)

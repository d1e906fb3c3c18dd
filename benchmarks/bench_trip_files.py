"""Benchmark: counting trip files on DuckDB against DuckDB's own query and the pandas path.

Run by hand (``.venv/bin/python benchmarks/bench_trip_files.py``, also in ``./run.sh
bench``); not part of the tests.  GitHub issue 30, item 4: rows per second and peak
memory of ``dpmarkov.datasets.count_trips`` on 3 and 30 million synthetic trips in the
TLC layout (``write_synthetic_trips``: 19 columns, 2024 yellow-taxi types, one month of
3 million trips a file, so 30 million are ten months counted in one call), against

* DuckDB's own query, the engine at its best: one ``SELECT PULocationID, DOLocationID,
  count(*) ... GROUP BY ALL`` over all the files, the pair table fetched to numpy and
  nothing checked (the lower bound of any DuckDB-based counter);
* the same query with the Manhattan filter before the GROUP BY (``WHERE ... IN``), to
  see whether filtering in the scan would pay (``count_trips`` groups every pair, so it
  can account for the trips outside the borough, and filters the pair table);
* today's pandas path (``trip_counts_from_file`` before issue 30): ``pd.read_parquet``
  of each whole file and ``trip_counts`` on its id columns, summed over the files.

Targets (issue 30): ``count_trips`` within 2x DuckDB's own time, under 400 MB of peak
memory at 3 million rows, and memory flat as the rows grow (30 million against 3).

Each measurement runs in a fresh Python process (so its peak resident memory, the
kernel's ``VmHWM``, is its own, imports included); the time is the best of
``REPEATS`` calls in that process, and the process's memory after its imports is
reported too.  The files are written once to ``--folder`` (default a temporary folder,
about 77 MB a month) and reused when present with the right number of rows.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROWS_PER_FILE = 3_000_000
REPEATS = 3

#: One measurement in a fresh process: prints {"seconds", "peak_mb", "base_mb", "trips"}.
CHILD = r'''
import json, sys, time
files, method = json.loads(sys.argv[1]), sys.argv[2]
import numpy as np, pandas as pd, duckdb
import dpmarkov.datasets as ds

def rss_mb():
    # the peak resident memory of this process since its start (VmHWM; ru_maxrss would
    # carry the peak of the forked parent across exec)
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024

zones = ds.load_taxi_zones()
manhattan = ",".join(map(str, zones.loc[zones.Borough == "Manhattan", "LocationID"]))
listed = "[" + ",".join(repr(f) for f in files) + "]"

def ours():
    return int(ds.count_trips(files, progress=False).trips_read)

def duckdb_query():
    t = duckdb.sql("SELECT PULocationID, DOLocationID, count(*) AS n FROM read_parquet("
                   + listed + ") GROUP BY ALL").fetchnumpy()
    return int(t["n"].sum())

def duckdb_filtered():
    t = duckdb.sql("SELECT PULocationID, DOLocationID, count(*) AS n FROM read_parquet("
                   + listed + f") WHERE PULocationID IN ({manhattan}) AND DOLocationID IN "
                   f"({manhattan}) GROUP BY ALL").fetchnumpy()
    return int(t["n"].sum())

def pandas_path():
    total = 0
    for f in files:
        frame = pd.read_parquet(f)
        counts, _ = ds.trip_counts(frame["PULocationID"], frame["DOLocationID"])
        total += len(frame)
        del frame
    return total

run = {"count_trips": ours, "duckdb": duckdb_query, "duckdb_filtered": duckdb_filtered,
       "pandas": pandas_path}[method]
base = rss_mb()
best = float("inf")
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    trips = run()
    best = min(best, time.perf_counter() - start)
print(json.dumps({"seconds": best, "peak_mb": rss_mb(), "base_mb": base, "trips": trips}))
'''

METHODS = ("count_trips", "duckdb", "duckdb_filtered", "pandas")


def months(folder: Path, count: int) -> list[str]:
    """``count`` synthetic months of ROWS_PER_FILE trips, written once (seeded by month)."""
    import pyarrow.parquet as pq

    from dpmarkov.datasets import write_synthetic_trips

    files = []
    for month in range(1, count + 1):
        path = folder / f"yellow_tripdata_2024-{month:02d}.parquet"
        if not path.exists() or pq.ParquetFile(path).metadata.num_rows != ROWS_PER_FILE:
            start = time.perf_counter()
            write_synthetic_trips(path, ROWS_PER_FILE, rng=month)
            print(f"  wrote {path.name} ({path.stat().st_size / 1e6:.0f} MB) in "
                  f"{time.perf_counter() - start:.1f} s", flush=True)
        files.append(str(path))
    return files


def measure(files: list[str], method: str, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(files), method, str(repeats)],
                         check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=None,
                        help="where the synthetic months are written (and reused)")
    parser.add_argument("--months", type=int, nargs="+", default=[1, 10],
                        help="sizes in months of 3 million trips (default 1 and 10)")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.gettempdir()) / "dpmarkov-bench-trips"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"== counting trip files (issue 30): {', '.join(map(str, args.months))} month(s) "
          f"of {ROWS_PER_FILE:,} synthetic trips, in {folder} ==")
    files = months(folder, max(args.months))
    results = {}
    for count in args.months:
        rows = count * ROWS_PER_FILE
        for method in METHODS:
            r = measure(files[:count], method, args.repeats)
            assert r["trips"] == rows or method == "duckdb_filtered", (method, r)
            results[count, method] = r
            print(f"  {rows / 1e6:>4.0f} M rows  {method:<16} {r['seconds']:7.2f} s  "
                  f"{rows / r['seconds'] / 1e6:6.1f} M rows/s  peak {r['peak_mb']:6.0f} MB "
                  f"(after imports {r['base_mb']:.0f} MB)", flush=True)
        ours, duck = results[count, "count_trips"], results[count, "duckdb"]
        pandas = results[count, "pandas"]
        print(f"  {rows / 1e6:>4.0f} M rows  count_trips / DuckDB's query: "
              f"time {ours['seconds'] / duck['seconds']:.2f}x (target <= 2x), memory "
              f"{ours['peak_mb'] / duck['peak_mb']:.2f}x; / pandas: time "
              f"{ours['seconds'] / pandas['seconds']:.2f}x, memory "
              f"{ours['peak_mb'] / pandas['peak_mb']:.2f}x")
    if len(args.months) > 1:
        small, large = min(args.months), max(args.months)
        growth = results[large, "count_trips"]["peak_mb"] / results[small, "count_trips"]["peak_mb"]
        print(f"  count_trips peak memory, {large * 3} M rows / {small * 3} M rows: "
              f"{growth:.2f}x for {large / small:.0f}x the rows (target: flat)")


if __name__ == "__main__":
    main()

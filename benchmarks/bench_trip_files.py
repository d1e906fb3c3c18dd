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

Cold start (issue 38, last row; ``--cold``, run first): one month counted in a fresh
process, imports included, as a user's script does it: ``count_trips(path)`` against
DuckDB's own query in its own fresh process (``import duckdb``, the ``GROUP BY`` fetched to
numpy), in ``--rounds`` interleaved rounds.  Each child's CPU seconds (user + system) and
peak resident memory (``ru_maxrss``) come from its resource usage (``os.wait4``: the
per-child form of ``getrusage(RUSAGE_CHILDREN)``); this parent imports nothing but the
standard library before spawning them (Linux keeps a parent's peak in ``ru_maxrss`` across
``exec``), and an empty interpreter is measured too as the floor.  Targets: CPU <= 1.5x
DuckDB's and peak <= 100 MiB.

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
import statistics
import subprocess
import sys
import tempfile
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


#: Writes the months missing (or of another size) to the folder ``sys.argv[1]``.
WRITE = r'''
import sys, time
from pathlib import Path
import pyarrow.parquet as pq
from dpmarkov.datasets import write_synthetic_trips
rows = int(sys.argv[2])
for month in range(1, int(sys.argv[3]) + 1):
    path = Path(sys.argv[1]) / f"yellow_tripdata_2024-{month:02d}.parquet"
    if not path.exists() or pq.ParquetFile(path).metadata.num_rows != rows:
        start = time.perf_counter()
        write_synthetic_trips(path, rows, rng=month)
        print(f"  wrote {path.name} ({path.stat().st_size / 1e6:.0f} MB) in "
              f"{time.perf_counter() - start:.1f} s", flush=True)
'''


def months(folder: Path, count: int) -> list[str]:
    """``count`` synthetic months of ROWS_PER_FILE trips, written once (seeded by month) by
    a child process, so this one stays small (see ``cold``)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    subprocess.run([sys.executable, "-c", WRITE, str(folder), str(ROWS_PER_FILE), str(count)],
                   check=True, env=env)
    return [str(folder / f"yellow_tripdata_2024-{m:02d}.parquet") for m in range(1, count + 1)]


#: One cold count in a fresh process (``sys.argv[1]``: the file); prints the trips read.
COLD = {
    "python": "print(3_000_000)",
    "duckdb": ("import sys, duckdb\n"
               "t = duckdb.execute('SELECT PULocationID, DOLocationID, count(*) AS n FROM "
               "read_parquet(?) GROUP BY ALL', [sys.argv[1]]).fetchnumpy()\n"
               "print(int(t['n'].sum()))"),
    "count_trips": ("import sys\nimport dpmarkov.datasets as ds\n"
                    "print(ds.count_trips(sys.argv[1]).trips_read)"),
}


def cold(path: str, method: str) -> tuple[float, float, int]:
    """CPU seconds, peak MiB and trips of ``COLD[method]`` run in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    child = subprocess.Popen([sys.executable, "-c", COLD[method], path], env=env,
                             stdout=subprocess.PIPE, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, (method, child.returncode)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, int(out.split()[-1])


def cold_start(path: str, rounds: int) -> None:
    """Issue 38's row: ``count_trips`` of one month vs DuckDB's query, fresh processes."""
    print(f"== cold start (issue 38): one month ({ROWS_PER_FILE:,} trips) in a fresh process, "
          f"{rounds} interleaved rounds, medians ==")
    runs = {method: [] for method in COLD}
    for r in range(rounds):
        for method in (COLD if r % 2 == 0 else reversed(list(COLD))):
            cpu, peak, trips = cold(path, method)
            assert trips == ROWS_PER_FILE, (method, trips)
            runs[method].append((cpu, peak))
    med = {m: [statistics.median(x[k] for x in runs[m]) for k in (0, 1)] for m in runs}
    for method, (cpu, peak) in med.items():
        cpus, peaks = ([x[k] for x in runs[method]] for k in (0, 1))
        print(f"  {method:<12} CPU {cpu:5.2f} s ({min(cpus):.2f}-{max(cpus):.2f})   peak "
              f"{peak:5.0f} MiB ({min(peaks):.0f}-{max(peaks):.0f})")
    (ours, ours_mb), (peer, peer_mb) = med["count_trips"], med["duckdb"]
    ratios = [a[0] / b[0] for a, b in zip(runs["count_trips"], runs["duckdb"])]
    print(f"  count_trips / DuckDB's query per round: CPU {min(ratios):.2f}-{max(ratios):.2f}x")
    print(f"  count_trips / DuckDB's query: CPU {ours / peer:.2f}x (target <= 1.5x), peak "
          f"{ours_mb:.0f} MiB (target <= 100 MiB), {ours_mb / peer_mb:.2f}x DuckDB's "
          f"{peer_mb:.0f} MiB")


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
    parser.add_argument("--rounds", type=int, default=7,
                        help="interleaved rounds of the cold start (default 7)")
    parser.add_argument("--cold", action="store_true",
                        help="measure only the cold start (issue 38), not issue 30's rows")
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.gettempdir()) / "dpmarkov-bench-trips"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"== counting trip files (issue 30): {', '.join(map(str, args.months))} month(s) "
          f"of {ROWS_PER_FILE:,} synthetic trips, in {folder} ==")
    files = months(folder, 1 if args.cold else max(args.months))
    cold_start(files[0], args.rounds)
    if args.cold:
        return
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

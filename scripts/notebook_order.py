"""Print the book's notebooks, slowest first, for ./run.sh test (xdist's loadfile order).

The notebooks in SLOWEST (measured with ``pytest --durations``; order only changes how
well the two test workers are packed, never a result) come first, then every other
notebook in book/ by name, so a new chapter is always tested.
"""
from pathlib import Path

SLOWEST = ["taxi_case_study", "many_releases", "verification_report", "privacy_audit",
           "baselines_experiments", "privacy_profile", "stationary", "baselines",
           "grades_case_study", "another_chain", "errata", "worst_case"]

book = Path(__file__).resolve().parents[1] / "book"
names = sorted(p.stem for p in book.glob("*.ipynb"))
for name in [n for n in SLOWEST if n in names] + [n for n in names if n not in SLOWEST]:
    print(f"book/{name}.ipynb")

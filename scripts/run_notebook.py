"""Execute notebooks in place, top to bottom, in the book's folder (how committed outputs are made).

Usage: .venv/bin/python scripts/run_notebook.py book/NAME.ipynb [more.ipynb ...]

Cell timing metadata is dropped and consecutive chunks of one stream are joined (how the
kernel splits printed text depends on timing), so that a re-executed notebook differs from
the committed one only where an output changed (the notebooks are deterministic).
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def strip_timing(nb) -> None:
    """Remove the per-cell execution time stamps nbclient records."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)


def join_streams(nb) -> None:
    """Merge consecutive stdout (or stderr) outputs of a cell into one, as nbval compares them."""
    for cell in nb.cells:
        joined = []
        for out in cell.get("outputs", []):
            if (joined and out.get("output_type") == "stream"
                    and joined[-1].get("output_type") == "stream"
                    and joined[-1].get("name") == out.get("name")):
                joined[-1]["text"] += out["text"]
            else:
                joined.append(out)
        if cell.get("outputs"):
            cell["outputs"] = joined


if __name__ == "__main__":
    for name in sys.argv[1:]:
        path = Path(name).resolve()
        nb = nbformat.read(path, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        strip_timing(nb)
        join_streams(nb)
        nbformat.write(nb, path)
        print(f"executed {path.name}")

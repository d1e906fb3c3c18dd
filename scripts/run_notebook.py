"""Execute notebooks in place, top to bottom, in the book's folder (how committed outputs are made).

Usage: .venv/bin/python scripts/run_notebook.py book/NAME.ipynb [more.ipynb ...]
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

for name in sys.argv[1:]:
    path = Path(name).resolve()
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(nb, path)
    print(f"executed {path.name}")

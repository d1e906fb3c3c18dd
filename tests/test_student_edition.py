"""The student edition removes every gated solution and nothing else."""
import importlib.util
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("student_edition", ROOT / "scripts" / "student_edition.py")
student = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student)


def test_strip_removes_solution_cells_and_keeps_the_rest():
    nb = new_notebook(cells=[
        new_markdown_cell("```{exercise}\n:label: ex-1\nDo it.\n```\n\n```{solution-start} ex-1\n:class: dropdown\n```\n\nHint text"),
        new_code_cell("answer = 42"),
        new_markdown_cell("```{solution-end}\n```\n\n## Summary"),
        new_code_cell("kept = 1"),
    ])
    assert student.strip_solutions(nb) == 1
    text = "\n".join(c.source for c in nb.cells)
    assert "answer" not in text and "Hint text" not in text and "solution-start" not in text
    assert "Do it." in text and "## Summary" in text and "kept = 1" in text
    assert student.NOTE in text


def test_every_book_solution_is_removed():
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        starts = sum(c.source.count("{solution-start}") for c in nb.cells if c.cell_type == "markdown")
        assert student.strip_solutions(nb) == starts, path.name
        assert not any("{solution-" in c.source for c in nb.cells), path.name

"""The student edition removes every gated solution (or, on request, only the graded ones) and nothing else."""
import importlib.util
from pathlib import Path

import nbformat
import pytest
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


def _two_exercises():
    return new_notebook(cells=[
        new_markdown_cell("```{exercise}\n:label: ex-a-1\nPractice.\n```\n\n"
                          "```{solution-start} ex-a-1\n:class: dropdown\n```\n\nPractice worked"),
        new_code_cell("practice_answer = 1"),
        new_markdown_cell("```{solution-end}\n```\n\n```{exercise}\n:label: ex-a-2\nGraded.\n```\n\n"
                          "```{solution-start} ex-a-2\n:class: dropdown\n```\n\nGraded worked"),
        new_code_cell("graded_answer = 2"),
        new_markdown_cell("```{solution-end}\n```\n\n## Summary"),
    ])


def test_graded_exercise_is_never_solved_and_names_its_assignment():
    for practice in (False, True):
        nb = _two_exercises()
        removed = student.strip_solutions(nb, {"ex-a-2": "Privacy"}, practice=practice)
        text = "\n".join(c.source for c in nb.cells)
        assert "Graded worked" not in text and "graded_answer" not in text
        assert student.GRADED_NOTE.format(part="Privacy") in text
        assert "Graded." in text and "## Summary" in text
        # practice solutions stay only when asked for, with their gate intact
        assert ("Practice worked" in text and "practice_answer = 1" in text) == practice
        assert removed == (1 if practice else 2)
        assert text.count("{solution-start}") == text.count("{solution-end}") == int(practice)


def test_assignments_grade_only_exercises_the_book_defines():
    graded = student.graded_exercises()
    labels = student.exercise_labels()
    assert graded and set(graded) <= labels, sorted(set(graded) - labels)
    assert set(graded.values()) <= {"Foundations", "Privacy", "Accuracy", "Markov chains", "Comparisons",
                                    "Beyond the paper"}


def test_student_copy_leaves_out_the_assignment_masters():
    ignored = student.IGNORE(str(ROOT), ["assignments", "book", "_build", ".venv", "scripts"])
    assert {"assignments", "_build", ".venv"} <= ignored and not {"book", "scripts"} & ignored


def test_the_student_introduction_does_not_promise_solutions_in_dropdowns():
    nb = nbformat.read(ROOT / "book" / "intro.ipynb", as_version=4)
    student.strip_solutions(nb)
    assert student.reword(nb, "intro.ipynb") == 1
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "dropdown" not in text and "leaves out their solutions" in text
    practice = nbformat.read(ROOT / "book" / "intro.ipynb", as_version=4)
    student.reword(practice, "intro.ipynb", practice=True)
    assert "except those of the graded assignments" in "\n".join(c.source for c in practice.cells)


def test_rewording_fails_loudly_when_the_book_changed_its_words():
    nb = new_notebook(cells=[new_markdown_cell("Solutions are somewhere else now.")])
    with pytest.raises(ValueError, match="EDITION_TEXT"):
        student.reword(nb, "intro.ipynb")
    assert student.reword(nb, "other.ipynb") == 0

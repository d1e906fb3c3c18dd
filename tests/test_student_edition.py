"""The editions readers get (scripts/student_edition.py) hold no solution they must not.

The public edition (the site, ``./run.sh book``) has no solution of an exercise an
assignment grades and no page of the instructor part, and keeps every other solution; the
student edition has no solution at all; both still execute.  A solution's fingerprints
(its longer code lines and runs of plain words of its prose) are searched for in the
edition's notebooks here, and in every file of the built site in tests/test_reader.py.
"""
import ast
import copy
import html
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
import yaml
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
    public = nbformat.read(ROOT / "book" / "intro.ipynb", as_version=4)
    student.reword(public, "intro.ipynb", "public")
    assert "only the instructor edition has" in "\n".join(c.source for c in public.cells)


def test_rewording_fails_loudly_when_the_book_changed_its_words():
    nb = new_notebook(cells=[new_markdown_cell("Solutions are somewhere else now.")])
    with pytest.raises(ValueError, match="EDITION_TEXT"):
        student.reword(nb, "intro.ipynb")
    assert student.reword(nb, "other.ipynb") == 0


# ------------------------------------------------------------------ the editions
GRADED = student.graded_exercises()
PRINTS = student.fingerprints(GRADED)


def _text(notebooks) -> str:
    return student.visible_text("\n".join(c.source for nb in notebooks for c in nb.cells))


def test_every_graded_solution_has_fingerprints_that_find_it_in_the_book():
    """The check's own fixture: the repository's book (the instructor edition) holds every
    graded solution, and the leak check finds each one there by its own fingerprints."""
    assert set(PRINTS) == set(GRADED) and all(len(p) >= 3 for p in PRINTS.values()), PRINTS
    book = _text(nbformat.read(p, as_version=4) for p in sorted((ROOT / "book").glob("*.ipynb")))
    assert set(student.leaks(book, PRINTS)) == set(GRADED)


@pytest.mark.parametrize("edition", sorted(student.EDITIONS))
def test_no_edition_holds_a_graded_solution(edition):
    notebooks = student.edition_notebooks(edition)
    assert not student.leaks(_text(notebooks.values()), PRINTS)
    removed = sum(nb.metadata["edition_removed"] for nb in notebooks.values())
    starts = sum(c.source.count("{solution-start}") for p in (ROOT / "book").glob("*.ipynb")
                 for c in nbformat.read(p, as_version=4).cells if c.cell_type == "markdown")
    # the public edition keeps every practice solution, the student edition none
    assert removed == (len(GRADED) if edition == "public" else starts)
    notes = sum(c.source.count(student.GRADED_NOTE.split("{")[0])
                for nb in notebooks.values() for c in nb.cells)
    assert notes == len(GRADED)


def test_the_leak_check_sees_through_html():
    """A solution's code line as a page shows it (Pygments' spans, entities) is still found."""
    label, line = next((k, p) for k, ps in PRINTS.items() for p in sorted(ps) if '"' in p or "(" in p)
    first, rest = line.split(" ", 1)
    page = (f'<div class="highlight"><pre><span class="n">{first}</span> '
            f'{html.escape(rest)}</pre></div>')
    assert student.leaks(student.visible_text(page), PRINTS) == {label: [line]}
    assert not student.leaks(student.visible_text("<p>x &lt; y and y &gt; z</p>"), PRINTS)


def test_the_instructor_part_is_only_in_the_instructor_edition():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = student.instructor_pages(toc)
    assert pages, f"no part {student.INSTRUCTOR_PART!r} in _toc.yml"
    kept = student.without_instructor_part(toc)
    assert not student.instructor_pages(kept)
    assert [p["caption"] for p in kept["parts"]] == [p["caption"] for p in toc["parts"]
                                                     if p["caption"] != student.INSTRUCTOR_PART]
    for edition in student.EDITIONS:
        notebooks = student.edition_notebooks(edition)
        assert not {Path(f).name + ".ipynb" for f in pages} & set(notebooks)
        # no page of the edition links to a page it does not have (the build runs with -n)
        names = "|".join(re.escape(Path(f).name) for f in pages)
        links = re.compile(rf"\{{doc\}}`[^`]*\b({names})>?`")
        assert not [m.group(0) for nb in notebooks.values() for c in nb.cells
                    if c.cell_type == "markdown" for m in links.finditer(c.source)]


def _names(source: str, ctx) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ctx):
            out.add(node.id)
        elif ctx is ast.Store and isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif ctx is ast.Store and isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return out


EXECUTED = sorted(e for e, spec in student.EDITIONS.items() if spec["execute"] != "off")


@pytest.mark.parametrize("edition", EXECUTED)
def test_an_edition_still_runs_without_its_removed_cells(edition):
    """./run.sh book executes the public edition: no cell it keeps reads a name that only
    a removed solution cell defines (a NameError at build time otherwise).  The student
    edition shows stored outputs and is not executed (some of its chapters would not run:
    baselines_experiments reads names its practice solutions define)."""
    assert EXECUTED == ["public"]
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        full = nbformat.read(path, as_version=4)
        nb = copy.deepcopy(full)
        student.strip_solutions(nb, GRADED, practice=student.EDITIONS[edition]["practice"])
        kept = [c.source for c in nb.cells if c.cell_type == "code"]
        gone = [c.source for c in full.cells if c.cell_type == "code" and c.source not in kept]
        defined_gone = set().union(*(_names(s, ast.Store) for s in gone))
        defined_kept = set().union(*(_names(s, ast.Store) for s in kept))
        read_kept = set().union(*(_names(s, ast.Load) for s in kept))
        assert not (defined_gone - defined_kept) & read_kept, path.name


def test_the_name_check_catches_a_name_only_a_solution_defines():
    kept, gone = "print(answer)", "answer = 42"
    assert (_names(gone, ast.Store) - _names(kept, ast.Store)) & _names(kept, ast.Load) == {"answer"}

"""Written answers out for hand grading, hand scores back into the scores CSV.

scripts/grading/handwork.py (``./run.sh grade --export-written`` / ``--merge-hand``). The
submissions here are laid out as otter's student notebooks are (a written question between
``<!-- BEGIN QUESTION -->`` and ``<!-- END QUESTION -->``, the answer in a Markdown cell tagged
``otter_answer_cell``); tests/test_grading_forgery.py reads the written question of a
notebook otter really built.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from grading import handwork

PLACEHOLDER = handwork.PLACEHOLDER


def _submission(answer: str, name: str = "privacy"):
    nb = nbformat.v4.new_notebook()
    nb.metadata["otter"] = {"assignment_name": name}
    answer_cell = nbformat.v4.new_markdown_cell(answer)
    answer_cell.metadata["tags"] = ["otter_answer_cell"]
    nb.cells = [nbformat.v4.new_code_cell("import otter"),
                nbformat.v4.new_markdown_cell("**Question 3.** a computed one"),
                nbformat.v4.new_code_cell("k_paper = ..."),
                nbformat.v4.new_markdown_cell("<!-- BEGIN QUESTION -->\n\n**Question 4 "
                                              "(written).** Why does eq. (6) understate?"),
                answer_cell,
                nbformat.v4.new_markdown_cell("<!-- END QUESTION -->")]
    return nb


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "submissions"
    for who, answer in [("ana", "The pair (89, 11) -> (90, 10).\n\nSecond paragraph."),
                        ("bo", PLACEHOLDER),
                        ("cy", "<script>alert(1)</script> a vertex")]:
        (root / who).mkdir(parents=True)
        nbformat.write(_submission(answer), root / who / "privacy.ipynb")
    (root / "notes.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    return root


def test_export_one_file_per_question_students_side_by_side(folder, tmp_path):
    out = tmp_path / "written"
    files = handwork.export_written(folder, out)
    assert sorted(p.name for p in files) == ["hand_scores.csv", "privacy-q4.html",
                                             "privacy-q4.md"]
    md = (out / "privacy-q4.md").read_text()
    # the question once, the model answer and rubric from the master, then each student
    assert md.count("Why does eq. (6) understate?") == 1 and "**Rubric" in md
    order = [md.index(f"## {who}/privacy.ipynb") for who in ("ana", "bo", "cy")]
    assert order == sorted(order) and "Second paragraph." in md
    assert md[order[1]:order[2]].count("*(no answer)*") == 1 and PLACEHOLDER not in md
    page = (out / "privacy-q4.html").read_text()
    assert page.count("<section>") == 3 and "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; a vertex" in page
    with (out / "hand_scores.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["submission"], r["question"], r["points"], r["score"]) for r in rows] == [
        (f"{who}/privacy.ipynb", "q4", "3", "") for who in ("ana", "bo", "cy")]


def _scores(tmp_path) -> Path:
    path = tmp_path / "scores.csv"
    header = ["submission", "assignment", "q1", "q2", "q3", "q4 (by hand, of 3)",
              "autograded", "possible", "note"]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, restval="")
        writer.writeheader()
        for who, auto in [("ana", "8"), ("bo", "5"), ("cy", "0")]:
            writer.writerow({"submission": f"{who}/privacy.ipynb", "assignment": "privacy",
                             "autograded": auto, "possible": "8"})
        writer.writerow({"submission": "notes.ipynb", "note": "not an assignment notebook"})
    return path


def _hand(tmp_path, rows) -> Path:
    path = tmp_path / "hand.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=handwork.HAND_COLUMNS, restval="")
        writer.writeheader()
        for who, question, score in rows:
            writer.writerow({"submission": who, "assignment": "privacy", "question": question,
                             "points": "3", "score": score})
    return path


def test_merge_fills_the_hand_column_and_totals(tmp_path):
    hand = _hand(tmp_path, [("ana/privacy.ipynb", "q4", "2.5"), ("cy/privacy.ipynb", "q4", "0"),
                            ("bo/privacy.ipynb", "q4", "")])
    rows = handwork.merge_hand_scores(_scores(tmp_path), hand, tmp_path / "final.csv")
    with (tmp_path / "final.csv").open() as f:
        final = {r["submission"]: r for r in csv.DictReader(f)}
    assert final == {r["submission"]: r for r in rows}
    assert final["ana/privacy.ipynb"]["q4 (by hand, of 3)"] == "2.5"
    assert final["ana/privacy.ipynb"]["total"] == "10.5" and final["cy/privacy.ipynb"]["total"] == "0"
    # a submission not yet scored by hand has no total, and says why
    assert final["bo/privacy.ipynb"]["total"] == ""
    assert final["bo/privacy.ipynb"]["note"] == "not yet scored by hand: q4"
    assert final["notes.ipynb"]["total"] == ""


@pytest.mark.parametrize("row, message", [
    (("ana/privacy.ipynb", "q4", "3.5"),
     r"line 2: score='3.5' must be a number between 0 and the question's points 3"),
    (("ana/privacy.ipynb", "q4", "-1"), r"score='-1'"),
    (("ana/privacy.ipynb", "q4", "nan"), r"score='nan'"),
    (("ana/privacy.ipynb", "q4", "good"), r"score='good'"),
    (("dan/privacy.ipynb", "q4", "1"), r"submission='dan/privacy.ipynb' is not in scores\.csv"),
    (("ana/privacy.ipynb", "q1", "1"),
     r"question='q1' is not graded by hand in assignment 'privacy'"),
])
def test_merge_refuses_a_bad_row_and_names_it(tmp_path, row, message):
    with pytest.raises(ValueError, match=message):
        handwork.merge_hand_scores(_scores(tmp_path), _hand(tmp_path, [row]),
                                   tmp_path / "final.csv")
    assert not (tmp_path / "final.csv").exists()

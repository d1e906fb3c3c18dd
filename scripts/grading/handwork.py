"""The questions graded by hand: export the written answers, merge the hand scores back.

    ./run.sh grade --export-written FOLDER OUT
    ./run.sh grade --merge-hand SCORES_CSV HAND_CSV [OUT_CSV]

``export_written`` reads every submission below FOLDER (only as data: no code runs) and
writes, per assignment and written question, ``OUT/<assignment>-<question>.md`` and ``.html``:
the question, its model answer and rubric from the master notebook, then every student's
answer, one after another in the Markdown file and side by side in the HTML file (open it in a
browser; the HTML escapes what students wrote). It also writes ``OUT/hand_scores.csv`` with one
row per submission and written question (``submission, assignment, question, points, score,
comment``) for the instructor to fill in.

``merge_hand_scores`` puts the filled-in ``score`` column into the scores CSV of
``./run.sh grade`` (the empty column ``<question> (by hand, of <points>)``) and adds ``total``
(autograded plus hand scores) to every row whose written questions are all scored. A score
that is not a number between 0 and the question's points, or a row that names a submission or
question the scores CSV does not have, is refused with the row named.
"""
from __future__ import annotations

import csv
import html
import math
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
MASTERS = ROOT / "assignments"
HAND_COLUMNS = ["submission", "assignment", "question", "points", "score", "comment"]
PLACEHOLDER = "_Type your answer here, replacing this text._"


def submissions(folder: Path) -> list[Path]:
    """The submissions below ``folder``: every notebook, Jupyter's checkpoints left out."""
    return sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def _manual(name: str, masters: Path) -> list[tuple[str, float, str]]:
    """[(question, points, the master's model answer and rubric)] of the written questions."""
    master = nbformat.read(masters / name / f"{name}.ipynb", as_version=4)
    out, current = [], None
    for cell in master.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            config = yaml.safe_load(cell.source.split("\n", 1)[1])
            current = [config["name"], config["points"], []] if config.get("manual") else None
            if current:
                out.append(current)
        elif cell.cell_type == "raw" and cell.source.startswith("# END QUESTION"):
            current = None
        elif current and cell.cell_type == "markdown" and \
                ("Rubric" in cell.source or "Model answer" in cell.source):
            current[2].append(cell.source)
    return [(q, float(p), "\n\n".join(text)) for q, p, text in out]


def written_answers(nb) -> list[tuple[str, str]]:
    """[(prompt, answer)] of a student notebook's written questions, in order.

    otter wraps each question graded by hand in ``<!-- BEGIN QUESTION -->`` ...
    ``<!-- END QUESTION -->``; the answer is its Markdown cells tagged ``otter_answer_cell``
    (the placeholder text alone counts as no answer).
    """
    out, inside = [], False
    for cell in nb.cells:
        text = cell.source
        if cell.cell_type == "markdown" and text.lstrip().startswith("<!-- BEGIN QUESTION -->"):
            inside = True
            out.append([text.replace("<!-- BEGIN QUESTION -->", "").strip(), []])
        elif inside and cell.cell_type == "markdown" and "<!-- END QUESTION -->" in text:
            inside = False
        elif inside and "otter_answer_cell" in cell.metadata.get("tags", []) \
                and text.strip() != PLACEHOLDER:
            out[-1][1].append(text.strip())
    return [(prompt, "\n\n".join(parts)) for prompt, parts in out]


def export_written(folder: Path, out: Path, masters: Path = MASTERS) -> list[Path]:
    """Write the written answers below ``folder`` into ``out`` (see the module docstring)."""
    answers: dict[tuple[str, str], list[tuple[str, str]]] = {}
    prompts: dict[tuple[str, str], str] = {}
    hand_rows, manual = [], {}
    for path in submissions(folder):
        nb = nbformat.read(path, as_version=4)
        name = nb.metadata.get("otter", {}).get("assignment_name")
        if not name or not (masters / name / f"{name}.ipynb").is_file():
            continue
        if name not in manual:
            manual[name] = _manual(name, masters)
        who = path.relative_to(folder).as_posix()
        written = written_answers(nb)
        for i, (question, points, _) in enumerate(manual[name]):
            prompt, answer = written[i] if i < len(written) else ("", "")
            prompts.setdefault((name, question), prompt)
            answers.setdefault((name, question), []).append((who, answer))
            hand_rows.append({"submission": who, "assignment": name, "question": question,
                              "points": f"{points:g}", "score": "", "comment": ""})
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for (name, question), entries in answers.items():
        points, rubric = next((p, r) for q, p, r in manual[name] if q == question)
        title = f"{name}, {question} (by hand, {points:g} points)"
        md = [f"# {title}", "", prompts[(name, question)], "", "## Model answer and rubric",
              "", rubric or "(none in the master notebook)", ""]
        cards = []
        for who, answer in entries:
            md += [f"## {who}", "", answer or "*(no answer)*", ""]
            cards.append(f'<section><h2>{html.escape(who)}</h2><pre>'
                         f'{html.escape(answer) or "<em>(no answer)</em>"}</pre></section>')
        base = out / f"{name}-{question}"
        base.with_suffix(".md").write_text("\n".join(md), encoding="utf-8")
        base.with_suffix(".html").write_text(
            "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title><style>"
            "main{display:grid;grid-template-columns:repeat(auto-fill,minmax(26em,1fr));gap:1em}"
            "section{border:1px solid #999;padding:0 1em}"
            "pre{white-space:pre-wrap;font-family:inherit}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><pre>{html.escape(prompts[(name, question)])}</pre>"
            f"<details><summary>Model answer and rubric</summary><pre>{html.escape(rubric)}"
            f"</pre></details><main>{''.join(cards)}</main></body></html>\n", encoding="utf-8")
        files += [base.with_suffix(".md"), base.with_suffix(".html")]
    with (out / "hand_scores.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=HAND_COLUMNS)
        writer.writeheader()
        writer.writerows(hand_rows)
    return [*files, out / "hand_scores.csv"]


def merge_hand_scores(scores_csv: Path, hand_csv: Path, out_csv: Path,
                      masters: Path = MASTERS) -> list[dict]:
    """The scores CSV with the hand scores filled in and a ``total`` column; return its rows.

    Raises
    ------
    ValueError
        A hand score that is not a number in [0, points], or a row of ``hand_csv`` whose
        submission, or written question of that submission's assignment, is not in
        ``scores_csv``.
    """
    with scores_csv.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header, rows = list(reader.fieldnames or []), list(reader)
    by_submission = {row["submission"]: row for row in rows}
    own: dict[str, dict[str, tuple[str, float]]] = {}   # assignment -> question -> column

    def columns(name: str) -> dict[str, tuple[str, float]]:
        if name not in own:
            path = masters / name / f"{name}.ipynb"
            own[name] = {q: (f"{q} (by hand, of {p:g})", p)
                         for q, p, _ in (_manual(name, masters) if path.is_file() else [])}
        return own[name]

    with hand_csv.open(newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            where = f"{hand_csv.name} line {line}"
            if (row.get("score") or "").strip() == "":
                continue
            target = by_submission.get(row.get("submission"))
            if target is None:
                raise ValueError(f"{where}: submission={row.get('submission')!r} is not in "
                                 f"{scores_csv.name}")
            column, points = columns(target["assignment"]).get(row.get("question"), (None, 0))
            if column is None or column not in header:
                raise ValueError(f"{where}: question={row.get('question')!r} is not graded by "
                                 f"hand in assignment {target['assignment']!r} of "
                                 f"{scores_csv.name}")
            try:
                value = float(row["score"])
            except ValueError:
                value = math.nan
            if not 0 <= value <= points:
                raise ValueError(f"{where}: score={row['score']!r} must be a number between 0 "
                                 f"and the question's points {points:g}")
            target[column] = f"{value:g}"
    for row in rows:
        if row.get("autograded", "") == "":
            row["total"] = ""
            continue
        mine = [c for c, _ in columns(row["assignment"]).values()]
        missing = [q for q, (c, _) in columns(row["assignment"]).items() if row.get(c, "") == ""]
        if missing:
            row["total"] = ""
            row["note"] = "; ".join(filter(None, [row.get("note", ""), "not yet scored by hand: "
                                                  + ", ".join(missing)]))
        else:
            row["total"] = f"{float(row['autograded']) + sum(float(row[c]) for c in mine):g}"
    if "total" not in header:
        header.insert(header.index("note") if "note" in header else len(header), "total")
    with out_csv.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=header, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return rows

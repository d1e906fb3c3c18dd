"""Letter-grade counts of real course sections: one simplex-valued query each (Section 6.1).

A section's grade distribution (A, B, C, D, F) is the count vector of eq. (3) of a
database with one record per student.  The paper cites its Georgia Tech Calculus 1
grade distributions as public but does not print the section's counts or say which
section it used (the version the book checks); the book uses instead the exact counts of every section of
Calculus I (MATH 221) at the University of Illinois, fall 2010 to fall 2025
(see ``data/PROVENANCE-grades.md``).  Book: chapter "Case study: a course's grade
distribution".
"""
from __future__ import annotations

from importlib import resources

from .. import _checks

_DATA = resources.files("dpmarkov.datasets") / "data"
_FILE = "grades_uiuc_math221.csv"

#: The letter grades as published (with +/-) and the five categories they fold into.
RAW_GRADES = ("A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F")
GRADES = ("A", "B", "C", "D", "F")


@_checks.public(finite=False)
def load_grades(course="MATH 221", *, fold=True):
    """Grade counts per section of ``course`` as a pandas DataFrame, one row per section.

    Columns: ``course, title, term`` (e.g. ``"fa2010"``), ``season, year, crn, section,
    sched_type, instructor`` (missing where the source lacks them), then the counts.
    With ``fold=True`` (default) the counts are ``A, B, C, D, F`` with A+/A/A- folded
    into A (likewise B, C, D) and a column ``N = A + B + C + D + F``, the number of
    records of the database; withdrawals ``W`` are kept in their own column and are
    NOT part of N (a withdrawn student gets no letter grade).  With ``fold=False`` the
    thirteen published letter columns ``A+ ... F`` and ``W`` are returned unchanged.

    Only ``"MATH 221"`` (UIUC Calculus I, 72 sections) is shipped; any other course
    raises ``ValueError``.  The data is read from the package itself, not from the
    internet.  Book: chapter "Case study: a course's grade distribution".

    Parameters
    ----------
    course : str, optional
        The course, ``"MATH 221"`` (the default and the only one shipped).
    fold : bool, optional
        Keyword only: fold +/- grades into A, B, C, D, F and add ``N`` (default True),
        or return the published letter columns.

    Returns
    -------
    pandas.DataFrame
        One row per section (72 for MATH 221): the information columns, then the
        grade counts (``A, B, C, D, F, W, N`` folded; ``A+ ... F, W`` unfolded).

    Raises
    ------
    TypeError
        If ``fold`` is not True or False.
    ValueError
        If ``course`` is not the name of a shipped course.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> table = dm.datasets.load_grades()
    >>> len(table), list(table.columns[-7:])
    (72, ['A', 'B', 'C', 'D', 'F', 'W', 'N'])
    """
    import pandas as pd  # imported here so that ``import dpmarkov`` stays light

    fold = _checks.flag("fold", fold)
    with resources.as_file(_DATA / _FILE) as path:
        table = pd.read_csv(path, dtype={"crn": "Int64", "section": "string",
                                         "sched_type": "string"})
    known = sorted(table["course"].unique())
    if not isinstance(course, str) or course not in known:
        raise ValueError(f"course={course!r} is not shipped: choose one of {known}")
    table = table[table["course"] == course].reset_index(drop=True)
    if not fold:
        return table
    # [book:load_grades]
    info = [c for c in table.columns if c not in RAW_GRADES + ("W",)]
    out = table[info].copy()
    for letter in "ABCD":
        out[letter] = table[[letter + "+", letter, letter + "-"]].sum(axis=1)
    out["F"] = table["F"]
    out["W"] = table["W"]
    out["N"] = out[list(GRADES)].sum(axis=1)
    return out

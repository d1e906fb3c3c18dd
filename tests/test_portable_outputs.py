"""The output rule: a stored notebook output shows only numbers that are the same on every machine.

A chapter's outputs are compared by nbval on readers' and students' machines too (other SIMD
levels, BLAS kernels, arm64, the locked library versions).  So a rounding-error size (a
residual, a largest error, a gap between two evaluations of one number) is shown as a bound
from ``dpmarkov.display.below`` ("below 1e-15"), with an assertion doing the precise check,
never as the number itself.  This test scans every stored output (printed text, rich
output, glued values) for numbers that break the rule:

1. a number below 1e-9 on a line that names an error-like quantity (error, residual,
   difference, gap, violation, deviation, or ``|a - b|``), unless the line bounds it
   ("below", "<", "<=");
2. anywhere, a number that is a small multiple of the double's unit roundoff 2^-53 (up to
   64 u), the signature of rounding noise printed as a result;
3. a number of any size after a label that names a rounding size ("largest relative
   difference", "max error", "residual", "rounding", "ulps"), unless the line bounds it: an
   error of 3.1e-08 in a sum of a billion terms is rounding noise as much as 1e-16 is.

A wrong rule would either pass "max error 1.1e-16" (rule 2 catches it with no keyword) or
"largest relative difference 3.1e-08" (rule 3), or flag real tiny results such as
delta = 9.2e-15 (checked below on both kinds of line).
"""
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)\s*(?:[eE]|\\times\s*10\^\{?)([-−]\d+)\}?")
ERRORISH = re.compile(r"error|residual|differen|diff\.|\bgap\b|violation|deviation|"
                      r"\|[^|\n]*\s-\s[^|\n]*\|", re.IGNORECASE)
#: Labels of a rounding size (rule 3): the largest gap between two computations of one value.
ROUNDING = re.compile(r"\b(?:largest|max(?:imum)?|worst)\s+(?:abs(?:olute)?\.?\s+|rel(?:ative|\.)\s+)?"
                      r"(?:difference|error|deviation|gap)s?\b|\bresiduals?\b|\brounding\b|"
                      r"\bround-?off\b|\bulps?\b", re.IGNORECASE)
BOUNDED = re.compile(r"(below|<=?|≤|\bto|within|at most)\s*\$?\s*$")
UNIT = 2.0 ** -53


def output_lines(cell):
    """Every line of text a code cell's stored outputs show (streams, text/*, glued values)."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            yield from "".join(out["text"]).splitlines()
        for mime, value in out.get("data", {}).items():
            if "text" in mime or "markdown" in mime or "latex" in mime:
                text = "".join(value) if isinstance(value, list) else str(value)
                yield from text.splitlines()


def violations(line: str):
    """The numbers on ``line`` that break the output rule."""
    bad = []
    keyword = ERRORISH.search(line)
    label = ROUNDING.search(line)
    for m in NUMBER.finditer(line):
        value = abs(float(f"{m.group(1)}e{m.group(2).replace('−', '-')}"))
        if value == 0 or BOUNDED.search(line[:m.start()]):
            continue
        if value < 1e-11 and keyword and keyword.start() < m.start():
            bad.append(m.group(0))                                   # rule 1
            continue
        if label and label.start() < m.start():
            bad.append(m.group(0))                                   # rule 3
            continue
        halves = value / (UNIT / 2)                                  # in units of 2^-54
        digits = len(m.group(1).lstrip("-").replace(".", "").lstrip("0")) or 1
        if 0.9 <= halves <= 128 and abs(halves - round(halves)) <= 5 * 10.0 ** -digits * halves:
            bad.append(m.group(0))                                   # rule 2
    return bad


def test_rule_catches_noise_and_spares_results():
    assert violations("max error 1.1e-16") == ["1.1e-16"]
    assert violations("largest relative error 5.3e-15") == ["5.3e-15"]
    assert violations("max |pi P - pi| = 8.3e-17") == ["8.3e-17"]
    assert violations("identity = 2.220 \\times 10^{-16}") == ["2.220 \\times 10^{-16}"]
    assert violations("row sums 4.4e-16") == ["4.4e-16"]                 # rule 2: no keyword
    assert violations("max error below 1e-15") == []
    assert violations("relative error < 1e-14: True") == []
    assert violations("delta = 9.2e-15, eps = 5.594") == []               # a result
    assert violations("pair of the largest loss: 1.722e-16") == []
    assert violations("relative error naive above 1e-9") == []
    assert violations("eps=8.0 delta=1e-10: sigma= 1.179439, rel. error below 1e-12") == []
    assert violations("k = 3 k_min: eps = 14.46, delta = 2.9e-27") == []
    assert violations("max error 5.6e-17") == ["5.6e-17"]                 # half a unit
    # rule 3: a rounding size by its label, at any size (what privacy_profile printed)
    assert violations("mirror pairs at eps = 0, N = 1e9: largest relative difference 3.1e-08") \
        == ["3.1e-08"]
    assert violations("largest abs. error 2e-3, residual 4.0e-01") == ["2e-3", "4.0e-01"]
    assert violations("rounding: 1.5e-05") == ["1.5e-05"]
    assert violations("largest relative difference below 3e-7") == []
    assert violations("delta = 3.1e-08 (largest relative error below 1e-12)") == []
    assert violations("relative difference from the paper's epsilon: 2.3e-01") == []  # a result
    assert violations("1e+300  0.2000  5  3  0.3333330000  > 10 ulps below") == []


def test_every_kind_of_stored_output_is_read():
    # a printed line, a displayed value's text and a glued markdown value each show noise;
    # a reader of streams only (or of text/plain only) would pass this cell
    cell = {"cell_type": "code", "outputs": [
        {"output_type": "stream", "name": "stdout", "text": ["ok\n", "max error 1.1e-16\n"]},
        {"output_type": "execute_result", "data": {"text/plain": ["row sums 4.4e-16"]}},
        {"output_type": "display_data",
         "data": {"text/markdown": "rounding: 1.5e-05", "image/png": "iVBORw0KGgo="}}]}
    lines = list(output_lines(cell))
    assert [bad for line in lines if (bad := violations(line))] == [
        ["1.1e-16"], ["4.4e-16"], ["1.5e-05"]], lines


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.stem)
def test_stored_outputs_show_no_rounding_noise(path):
    nb = json.loads(path.read_text())
    found = [f"cell {i}: {line.strip()[:100]} -> {bad}"
             for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code"
             for line in output_lines(cell) if (bad := violations(line))]
    assert not found, "rounding noise printed as a number (use dpmarkov.display.below):\n" + \
        "\n".join(found)

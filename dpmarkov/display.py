"""How the book typesets the numbers and verdicts it quotes (glue), so every chapter looks alike.

``latex_number(7.3e-4)`` is ``7.3 \\times 10^{-4}``; ``md_number`` wraps it in ``$...$`` as
an ``IPython.display.Markdown`` object, which a chapter glues and pastes inline with the
``{glue:md}`key:myst``` role (the :myst format renders the math).  Book: every chapter (see "Writing a chapter" in the README).
"""
from __future__ import annotations

import math

from . import _checks


def latex_number(x, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits as LaTeX: plain for 1e-3 <= |x| < 1e5, else a x 10^b."""
    value = float(_checks.as_float_array("x", x))
    if not isinstance(digits, int) or isinstance(digits, bool) or digits < 1:
        raise ValueError(f"digits={digits!r} must be a whole number >= 1")
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    if -3 <= exponent < 5:
        decimals = max(digits - 1 - exponent, 0)
        return f"{value:,.{decimals}f}".replace(",", "{,}")
    mantissa = f"{value / 10 ** exponent:.{digits - 1}f}"
    if mantissa.lstrip("-").startswith("10"):        # 9.99e-5 rounds up to 10.0
        exponent += 1
        mantissa = f"{value / 10 ** exponent:.{digits - 1}f}"
    return f"{mantissa} \\times 10^{{{exponent}}}"


def md_number(x, digits: int = 3):
    """``latex_number`` in inline math, as Markdown to glue: ``glue(key, md_number(x), display=False)``."""
    from IPython.display import Markdown
    return Markdown(f"${latex_number(x, digits)}$")

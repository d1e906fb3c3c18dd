"""How the book typesets the numbers and verdicts it quotes (glue), so every chapter looks alike.

``latex_number(7.3e-4)`` is ``7.3 \\times 10^{-4}``; ``md_number`` wraps it in ``$...$`` as
an ``IPython.display.Markdown`` object, which a chapter glues and pastes inline with the
``{glue:md}`key:myst``` role (the :myst format renders the math).  ``glue`` stores a value
for the book exactly as ``myst_nb.glue`` does.  Book: every chapter (see "Writing a chapter"
in the README).
"""
from __future__ import annotations

import numpy as np

from . import _checks


@_checks.public
def latex_number(x, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits as LaTeX: plain for 1e-3 <= |x| < 1e5, else a x 10^b."""
    value = _checks.scalar("x", x)
    digits = _checks.whole("digits", digits, 1, highest=17)
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")   # rounds 9.99e-5 up to 1.00e-4
    exponent = int(exponent)
    if -3 <= exponent < 5:
        decimals = max(digits - 1 - exponent, 0)
        return f"{value:,.{decimals}f}".replace(",", "{,}")
    return f"{mantissa} \\times 10^{{{exponent}}}"


@_checks.public(finite=False)
def md_number(x, digits: int = 3):
    """``latex_number`` in inline math, as Markdown to glue: ``glue(key, md_number(x), display=False)``."""
    from IPython.display import Markdown
    return Markdown(f"${latex_number(x, digits)}$")


#: The MIME prefix of a value glued with display=False (myst-nb's ``GLUE_PREFIX``).
GLUE_PREFIX = "application/papermill.record/"


def glue(name: str, variable, display: bool = True) -> None:
    """Store ``variable``'s display data under ``name`` for the book's {glue} roles.

    The same output as ``myst_nb.glue`` (myst-nb 1.x, the scrapbook format): the value's
    MIME bundle, with ``GLUE_PREFIX`` before each type when ``display`` is False, and the
    metadata ``{"scrapbook": {"name": name, "mime_prefix": prefix}}``.  myst_nb's own
    function imports nbformat and docutils into the kernel, about 0.3 s per chapter; this
    one needs IPython only.  ``tests/test_display.py`` compares the two outputs.
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display as show

    if not isinstance(name, str) or not name:
        raise TypeError(f"name={_checks.show(name)} must be a non-empty str")
    prefix = "" if _checks.flag("display", display) else GLUE_PREFIX
    bundle, metadata = format_display_data(variable)
    metadata["scrapbook"] = dict(name=name, mime_prefix=prefix)
    show({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)


@_checks.public
def below(value, bound: float, *, markdown: bool = False):
    """A rounding-error size shown as a bound that is the same on every machine.

    The one helper for printing or gluing numbers near machine epsilon (a residual, a
    largest error, a relative difference): their exact value depends on the CPU's SIMD
    level, the BLAS kernel and the library versions, so a chapter shows "below 1e-15"
    instead of "1.1e-16".  Book: every chapter (README, "Portable outputs").

    Parameters
    ----------
    value : float or array_like
        The error size(s); the largest absolute value is compared with ``bound``.
    bound : float
        A positive bound, usually a power of ten, chosen with a margin over every
        machine's noise; printed as the shortest decimal that reads back as it
        (``1.5e-15`` stays ``1.5e-15``), never rounded to a smaller number.
    markdown : bool, optional
        Return ``IPython.display.Markdown`` ("below $10^{-15}$") to glue instead of text.

    Returns
    -------
    str or IPython.display.Markdown
        ``"below 1e-15"`` (text) or the Markdown form.

    Raises
    ------
    ValueError
        If ``bound`` is not positive, or the largest ``|value|`` is not below it (the
        check a notebook's assertion would make, so a wrong number cannot print as noise).

    Examples
    --------
    >>> below(1.1e-16, 1e-15)
    'below 1e-15'
    """
    arr = _checks.as_float_array("value", value)
    limit = _checks.scalar("bound", bound)
    if not limit > 0:
        raise ValueError(f"bound={limit!r} must be positive")
    largest = float(abs(arr).max()) if arr.size else 0.0
    if not largest < limit:
        raise ValueError(f"value={largest!r} is not below bound={limit!r}: it is not "
                         "rounding noise under this bound")
    # the bound as the shortest decimal that reads back as this double (1e-15, 1.5e-15, 4e-16):
    # rounding it to one digit could print a number the value is not below (1.4e-15 "below
    # 1e-15"); the decimal is within half an ulp of the double, and no double lies between
    # them, so a value below the double is below the printed number too
    mantissa, exponent = np.format_float_scientific(limit, unique=True, trim="-").split("e")
    text = f"{mantissa}e{int(exponent)}"
    if not markdown:
        return f"below {text}"
    from IPython.display import Markdown
    tex = f"10^{{{int(exponent)}}}" if mantissa == "1" else f"{mantissa} \\times 10^{{{int(exponent)}}}"
    return Markdown(f"below ${tex}$")

"""Real state sequences for small Markov chains: DNA nucleotides and daily weather.

Each loader returns ``(states, names)``: an int array of state indices in time
(or sequence) order and the tuple of state names, so that
``dm.transition_counts(states, len(names))`` gives the chain's count matrix
(row i = the database D_i of departures from state i, eq. (4)).
Book: chapter "Another chain: DNA and weather".  Shipped data and licences:
``data/PROVENANCE-sequences.md``.
"""
from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .. import _checks

_DATA = resources.files("dpmarkov.datasets") / "data"

NUCLEOTIDES = ("a", "c", "g", "t")
WEATHER = ("sun", "fog", "drizzle", "rain", "snow")
_DNA_FILES = {"yersinia": "dna_yersinia_pPCP1.txt",
              "arabidopsis": "dna_arabidopsis_chloroplast.txt"}


def encode(symbols, names) -> np.ndarray:
    """The index of each symbol in ``names``; ``ValueError`` names an unknown symbol."""
    lookup = {s: i for i, s in enumerate(names)}
    out = np.empty(len(symbols), dtype=np.int64)
    for t, s in enumerate(symbols):
        if s not in lookup:
            raise ValueError(f"symbol {s!r} at position {t} is not one of {tuple(names)}")
        out[t] = lookup[s]
    return out


@_checks.public
def load_dna(organism="yersinia"):
    """A DNA sequence as states 0..3 = a, c, g, t.

    ``organism="yersinia"``: the *Yersinia pestis* plasmid pPCP1 (GenBank NC_005816,
    9,609 bp); ``"arabidopsis"``: the *Arabidopsis thaliana* chloroplast genome
    (NC_000932, 154,478 bp).  Both molecules are circular; the sequence is returned
    as printed in the record (no wrap-around transition).

    Returns ``(states, names)`` with ``names = ("a", "c", "g", "t")``.
    Book: chapter "Another chain: DNA and weather".

    Parameters
    ----------
    organism : {"yersinia", "arabidopsis"}, optional
        Which shipped sequence (default ``"yersinia"``).

    Returns
    -------
    states : numpy.ndarray of int64
        The state index (0..3) of each base, in the record's order.
    names : tuple of str
        ``("a", "c", "g", "t")``.

    Raises
    ------
    ValueError
        If ``organism`` is not one of the shipped names, or the shipped file holds a
        letter other than a, c, g, t (a damaged file).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> states, names = dm.datasets.load_dna("yersinia")
    >>> states.shape, names
    ((9609,), ('a', 'c', 'g', 't'))
    """
    if not isinstance(organism, str) or organism not in _DNA_FILES:
        raise ValueError(f"organism={organism!r} must be one of {sorted(_DNA_FILES)}")
    text = (_DATA / _DNA_FILES[organism]).read_text()
    seq = "".join(line.strip() for line in text.splitlines() if not line.startswith(">"))
    codes = np.frombuffer(seq.encode("ascii"), dtype=np.uint8)
    lookup = np.full(256, -1, dtype=np.int64)
    for i, s in enumerate(NUCLEOTIDES):
        lookup[ord(s)] = i
    states = lookup[codes]
    if np.any(states < 0):
        bad = int(np.argmax(states < 0))
        raise ValueError(f"letter {seq[bad]!r} at position {bad} is not a nucleotide a/c/g/t")
    return states, NUCLEOTIDES


@_checks.public
def load_weather():
    """Seattle's daily weather 2012-2015 (1,461 days) as states 0..4.

    States, in this order: sun, fog, drizzle, rain, snow.  Snow (23 days) and
    drizzle (54 days) are rare, so several day-to-day transitions are never
    observed: a ready example of a chain where Assumptions 3 and 6 bite.

    Returns ``(states, names)``.  Book: chapter "Another chain: DNA and weather".

    Returns
    -------
    states : numpy.ndarray of int64, shape (1461,)
        The state index (0..4) of each day, in date order.
    names : tuple of str
        ``("sun", "fog", "drizzle", "rain", "snow")``.

    Raises
    ------
    ValueError
        If the shipped table holds a weather name outside ``names`` (a damaged file).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> states, names = dm.datasets.load_weather()
    >>> states.shape, int((states == names.index("snow")).sum())
    ((1461,), 23)
    """
    with resources.as_file(_DATA / "seattle_weather.csv") as path:
        table = pd.read_csv(path)
    return encode(table["weather"].tolist(), WEATHER), WEATHER

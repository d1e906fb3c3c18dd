"""The sequence loaders (DNA, Seattle weather) against numbers read from the raw files.

Known values (lengths, letter counts, first and last letters, day-to-day weather
transitions) were read from the GenBank records NC_005816 / NC_000932 and from
vega_datasets' seattle-weather.csv when the data were packaged.
"""
from __future__ import annotations

import numpy as np
import pytest

from dpmarkov.datasets import load_dna, load_weather
from dpmarkov.datasets.sequences import encode


def _pairs(states, n):
    """Transition counts with plain numpy, independent of dpmarkov.chain."""
    out = np.zeros((n, n), dtype=int)
    np.add.at(out, (states[:-1], states[1:]), 1)
    return out


def _letters(states, names):
    return "".join(names[s] for s in states)


def test_yersinia_plasmid():
    states, names = load_dna()
    assert names == ("a", "c", "g", "t")
    assert states.dtype == np.int64 and states.shape == (9609,)
    np.testing.assert_array_equal(np.bincount(states, minlength=4), [2792, 2250, 2099, 2468])
    assert _letters(states[:20], names) == "tgtaacgaacggtgcaatag"
    assert _letters(states[-9:], names) == "cgacccctg"           # ORIGIN line 9601
    counts = _pairs(states, 4)
    assert counts.sum() == 9608 and counts.min() > 0              # all 16 transitions seen


def test_arabidopsis_chloroplast():
    states, names = load_dna("arabidopsis")
    assert states.shape == (154_478,)
    np.testing.assert_array_equal(np.bincount(states, minlength=4), [48546, 28496, 27570, 49866])
    assert _letters(states[:20], names) == "atgggcgaacgacgggaatt"
    assert _letters(states[-12:], names) == "gtcccgggcatc"


def test_unknown_organism():
    with pytest.raises(ValueError, match="organism='ecoli'"):
        load_dna("ecoli")


def test_seattle_weather():
    states, names = load_weather()
    assert names == ("sun", "fog", "drizzle", "rain", "snow")
    assert states.shape == (1461,)
    np.testing.assert_array_equal(np.bincount(states, minlength=5), [714, 411, 54, 259, 23])
    assert [names[s] for s in states[:2]] == ["drizzle", "rain"]       # 2012-01-01, 01-02
    assert [names[s] for s in states[-3:]] == ["fog", "sun", "sun"]    # 2015-12-29 ... 31
    counts = _pairs(states, 5)
    sun, fog, drizzle, rain, snow = range(5)
    assert counts[sun, sun] == 495 and counts[fog, fog] == 252 and counts[rain, rain] == 182
    assert counts[snow, snow] == 10 and counts[rain, snow] == 10 and counts[sun, snow] == 3
    assert counts[fog, snow] == 0 and counts[snow, fog] == 0 and counts[drizzle, snow] == 0
    assert counts.sum() == 1460 and (counts == 0).sum() == 3


def test_encode():
    np.testing.assert_array_equal(encode(["b", "a", "b"], ("a", "b")), [1, 0, 1])
    with pytest.raises(ValueError, match="symbol 'c' at position 2"):
        encode(["a", "b", "c"], ("a", "b"))

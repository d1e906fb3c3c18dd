"""dpmarkov._numerics (safe-side roots): the bracketing shared by every calibration of the package."""
import numpy as np
import pytest

from dpmarkov._numerics import push_upper_end, root_on_safe_side


def test_push_upper_end_then_root_on_the_safe_side():
    # f(x) = x - r with roots r spread over many octaves; brackets start at [r/8, r/4]
    r = np.array([1e-3, 0.7, 3.0, 5e4, 1e150])
    f = lambda x, idx: x - r[idx]                                   # noqa: E731
    lo = r / 8
    lo, f_lo, hi, f_hi = push_upper_end(f, lo, lo - r, r / 4, lambda x: 2 * x)
    assert np.all(f_lo <= 0) and np.all(f_hi > 0) and np.all(hi == 2 * lo)
    x = root_on_safe_side(f, lo, hi, f_lo, f_hi, rtol=1e-13)
    # on the safe side (f <= 0) and within the tolerance: a root taken from above, or a
    # looser stop, would fail one of the two
    assert np.all(x <= r) and np.all(r - x <= 1e-13 * r)


def test_push_upper_end_refuses_past_its_limit():
    f = lambda x, idx: -np.ones(x.shape)                            # noqa: E731  never > 0
    with pytest.raises(ValueError, match="no upper bracket"):
        push_upper_end(f, np.zeros(2), -np.ones(2), np.ones(2), lambda x: x + 1.0, limit=10.0)

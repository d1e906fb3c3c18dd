"""Algorithm 2's default batch: as many matrices as fit in 64 MiB, and invisible in the draws.

``chain.BATCH_BYTES`` (64 MiB) bounds the memory one batch of ``iter_privatize_chain`` holds
(the docstring: "``batch`` defaults to as many matrices as fit in 64 MiB"; e.g. 1000 matrices
of 265 x 265 are 562 MB, never alive at once).  A changed constant (65 MiB, 2**21, a ``/``
for a ``*``) used to leave every test green: the tests drew too few matrices for the default
to split them.  Here the design is chosen so that it does.
"""

import numpy as np

import dpmarkov as dm

MIB = 2**20
# 8 n^2 = 1,048,352 bytes a 362 x 362 matrix: 64 MiB hold 64 of them (64.01) and 65 MiB
# would hold 65 (65.01), so the default batch is exactly 64 and a bound of 65 MiB, 63 MiB
# or 128 MiB gives another batch size.
N_STATES = 362
SIZE = 65


def _design():
    counts = np.ones((N_STATES, N_STATES))
    return counts, counts > 0, 2.0 * N_STATES          # alpha = 2 everywhere: one gamma a cell


def test_default_batch_is_the_most_matrices_that_fit_in_64_mib_and_splits_nothing_visible():
    counts, support, k = _design()
    one = 8 * N_STATES * N_STATES                       # bytes of one matrix
    batches = list(dm.iter_privatize_chain(counts, k, support=support, size=SIZE, rng=3))
    sizes = [b.shape[0] for b in batches]
    assert sum(sizes) == SIZE
    # the memory bound: no batch holds more than 64 MiB (a larger constant fails here) ...
    assert max(b.nbytes for b in batches) <= 64 * MIB
    # ... and the first batch is not smaller than the bound allows (a smaller one fails here)
    assert (sizes[0] + 1) * one > 64 * MIB
    assert sizes == [64, 1]
    # the batching never changes the draws: the same seed split into batches of 7 (9 of 7
    # and one of 2) gives the same matrices, bit for bit
    whole = np.concatenate(batches)
    again = dm.privatize_chain(counts, k, support=support, size=SIZE, rng=3, batch=7)
    assert np.array_equal(whole, again)

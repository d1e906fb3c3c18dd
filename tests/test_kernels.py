"""The notebooks' kernels under pytest-xdist talk over IPC, not TCP ports (conftest.py)."""
import os

import pytest


@pytest.mark.skipif(not os.environ.get("PYTEST_XDIST_WORKER"), reason="only under pytest-xdist")
def test_nbval_kernels_use_ipc_sockets_of_their_worker():
    pytest.importorskip("nbval")
    from nbval.kernel import RunningKernel

    kernel = RunningKernel("python3")
    try:
        assert kernel.km.transport == "ipc"
        assert os.path.basename(os.path.dirname(kernel.km.ip)).startswith(
            f"nbval-{os.environ['PYTEST_XDIST_WORKER']}-")
        assert kernel.is_alive()
    finally:
        kernel.stop()

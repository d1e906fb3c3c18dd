"""nbval's kernels under pytest-xdist: IPC sockets in a folder of each worker's own.

jupyter_client gives each kernel five TCP ports that it found free on 127.0.0.1. When the two
workers of ``./run.sh test`` start kernels at the same moment, a port found free by one can be
taken by the other (or by a client connection) before the kernel binds it; the kernel then
exits with "Address already in use" and nbval reports "Kernel died before replying to
kernel_info" for every cell of the notebook (jupyter_client's known race under parallel runs,
seen once in a fresh-clone run of .ci/run). Under xdist, kernels therefore talk over IPC (Unix
domain sockets, jupyter_client's other transport) in a temporary folder of each worker, where
only that worker's kernels, one at a time, name their sockets: no port is shared. A run
without xdist keeps jupyter_client's default. tests/test_kernels.py checks the setting.
"""
import functools
import os
import shutil
import tempfile


def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or not config.pluginmanager.hasplugin("nbval"):
        return
    from jupyter_client.manager import KernelManager
    from nbval import kernel

    config.kernel_sockets = tempfile.mkdtemp(prefix=f"nbval-{worker}-")
    kernel.KernelManager = functools.partial(
        KernelManager, transport="ipc", ip=os.path.join(config.kernel_sockets, "kernel")
    )


def pytest_unconfigure(config):
    if hasattr(config, "kernel_sockets"):
        shutil.rmtree(config.kernel_sockets, ignore_errors=True)

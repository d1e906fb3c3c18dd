"""The test run's forked notebook kernels (scripts/kernel_forkserver.py) behave as fresh ones.

``./run.sh test`` gives nbval kernels forked from a server that has imported the libraries
once.  These tests start such a server and compare what a notebook can observe in a forked
kernel with what it observes in an ordinary fresh kernel.  They fail if a preloaded library
decides something at import from its surroundings (pandas preloaded gives display.max_columns 0
instead of 20), if a kernel setting read from the environment at import is lost (without
``parent_handle`` the forked kernel prints a banner and has no parent poller; without the
variables debugpy sets, one is missing), if kernels share a random state (random's, numpy's,
sympy's), or if a descriptor of the server or of whoever started it reaches the kernel.  Then
the machinery: a kernel in another folder or environment is refused and starts fresh,
interrupts and terminations reach the kernel, a killed launcher or a dead test process takes
the kernel with it, the launcher exits with the kernel's status, the server keeps no
descriptor of a request, and without a server the launcher is an ordinary kernel.
"""
from __future__ import annotations

import ast
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "scripts" / "kernel_forkserver.py"
BOOK = ROOT / "book"
FORKED = "dpmarkov-forked"

# What a notebook can observe about its kernel; printed as one JSON line.
PROBE = r"""
import gc, json, os, random, signal, sys, threading, warnings
import numpy as np
import sympy
import pandas as pd
import matplotlib
import matplotlib.pyplot as plt
warnings.warn("from the notebook", DeprecationWarning)
def fd_kinds():   # what each open descriptor is: a file's path, or socket, pipe, anon_inode
    kinds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            kinds.append(os.readlink(f"/proc/self/fd/{fd}").split(":")[0])
        except OSError:   # the listing's own descriptor, closed by now
            pass
    return sorted(kinds)
facts = {
    "path": sys.path, "argv0": sys.argv[0], "argc": len(sys.argv), "cwd": os.getcwd(),
    # named threads, and those named after their function (not the numbered ones' numbers);
    # the forked kernel's one extra thread, named kernel_forkserver..., is left out
    "threads": sorted(t.name.split(" (")[-1] for t in threading.enumerate()
                      if not t.name.startswith(("Thread-", "kernel_forkserver")) or "(" in t.name),
    "pollers": sum(type(t).__name__ == "ParentPollerUnix" for t in threading.enumerate()),
    "signals": [str(signal.getsignal(s)) for s in
                (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE, signal.SIGHUP)],
    "session_leader": os.getsid(0) == os.getpid(),
    "fds": fd_kinds(),
    "gc": gc.get_threshold(),
    "env": sorted(k for k in os.environ if not k.startswith(("PYTEST_", "JPY_"))),
    "parent": os.environ.get("JPY_PARENT_PID"),
    "max_columns": pd.get_option("display.max_columns"),
    "backend": matplotlib.get_backend(),
    "main": sorted(k for k in globals() if not k.startswith("_")),
    "random": [random.random(), float(np.random.random()), sympy.core.random.rng.random(),
               sympy.Dummy._base_dummy_index],
}
print(json.dumps(facts))
plt.plot([0, 1])
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A fork server in book/ (where nbval runs the kernels), as ./run.sh test starts it."""
    scratch = tmp_path_factory.mktemp("forks")
    log = scratch / "server.log"
    # with a descriptor more, as a shell may leave one open for the programs it starts
    with open(log, "w") as out, open(os.devnull) as extra:
        proc = subprocess.Popen([sys.executable, str(SERVER), "serve", str(scratch / "sock"),
                                 str(scratch)], cwd=BOOK, stdout=out, stderr=subprocess.STDOUT,
                                pass_fds=(extra.fileno(),))
    deadline = time.monotonic() + 120
    while "kernel_forkserver: ready" not in log.read_text():     # after the preloaded imports
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    yield SimpleNamespace(dir=scratch, pid=proc.pid, log=log)
    proc.terminate()
    proc.wait(timeout=10)


def start(name, scratch=None):
    """A kernel of kernelspec ``name`` run in book/, with its manager and a ready client."""
    specs = KernelSpecManager()
    if scratch is not None:
        specs.kernel_dirs.insert(0, str(scratch / "kernels"))
    km = KernelManager(kernel_name=name, kernel_spec_manager=specs)
    km.start_kernel(cwd=str(BOOK))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(kc, code, timeout=60):
    """(stdout text, stderr text, MIME types displayed, the reply's status) of one cell."""
    out, err, shown = [], [], []

    def hook(msg):
        content = msg["content"]
        if msg["msg_type"] == "stream":
            (out if content["name"] == "stdout" else err).append(content["text"])
        elif msg["msg_type"] in ("display_data", "execute_result"):
            shown.extend(sorted(content["data"]))

    reply = kc.execute_interactive(code, output_hook=hook, timeout=timeout)
    return "".join(out), "".join(err), shown, reply["content"]["status"]


def value(kc, expression, timeout=60):
    """An expression's value in the kernel, as Python literal text (from the execute reply's
    user_expressions, which arrive with the reply itself, unlike printed output)."""
    reply = kc.execute_interactive("", user_expressions={"v": expression}, timeout=timeout)
    result = reply["content"]["user_expressions"]["v"]
    assert result["status"] == "ok", result
    return result["data"]["text/plain"]


def probe(name, scratch=None):
    km, kc = start(name, scratch)
    try:
        out, err, shown, status = run(kc, PROBE)
        assert status == "ok", err
        return json.loads(out), err, shown
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_forked_kernel_looks_like_a_fresh_one(server):
    fresh, fresh_err, fresh_shown = probe("python3")
    forked, forked_err, forked_shown = probe(FORKED, server.dir)
    other, _, _ = probe(FORKED, server.dir)
    # fresh OS entropy in each kernel: random's, numpy's global and sympy's generators, and
    # the base of sympy's Dummy indices drawn at its import
    assert all(a != b for a, b in zip(forked["random"], other["random"]))
    # open descriptors: the same files and pipes, and one socket more (to the launcher); the
    # count of anonymous inodes (zmq's and asyncio's event descriptors) varies with timing
    kinds = [{k: facts["fds"].count(k) for k in set(facts["fds"]) - {"anon_inode"}}
             for facts in (fresh, forked)]
    kinds[0]["socket"] += 1
    assert kinds[1] == kinds[0]
    for facts in (fresh, forked):
        del facts["random"], facts["parent"], facts["fds"]
    assert forked == fresh
    assert fresh["pollers"] == 1 and fresh["max_columns"] == 20      # the probe sees them
    # the warning names the cell's file, /tmp/ipykernel_<pid>/<hash>.py
    assert (re.sub(r"ipykernel_\d+", "", forked_err) == re.sub(r"ipykernel_\d+", "", fresh_err)
            and "from the notebook" in fresh_err)
    assert forked_shown == fresh_shown and "image/png" in fresh_shown


def test_an_interrupt_reaches_the_forked_kernel(server):
    km, kc = start(FORKED, server.dir)
    try:
        kc.execute("import time; time.sleep(60)")
        time.sleep(1.0)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=20)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert value(kc, "6 * 7") == "42"                   # and it goes on
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_killed_launcher_takes_its_kernel_with_it(server):
    km, kc = start(FORKED, server.dir)
    pid = int(value(kc, "__import__('os').getpid()"))
    launcher = km.provisioner.process.pid
    assert pid != launcher
    kc.stop_channels()
    os.kill(launcher, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    assert not _alive(pid)
    km.cleanup_resources()


def test_without_a_server_the_launcher_is_an_ordinary_kernel(tmp_path):
    spec = tmp_path / "kernels" / FORKED
    spec.mkdir(parents=True)
    argv = [sys.executable, str(SERVER), "launch", str(tmp_path / "no-server"), "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps(
        {"argv": argv, "display_name": "forked", "language": "python"}))
    km, kc = start(FORKED, tmp_path)
    try:
        out = value(kc, "__import__('os').getpid()")
        assert int(out) == km.provisioner.process.pid        # the launcher itself, exec'd
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_kernel_in_other_surroundings_is_refused_and_starts_fresh(server, monkeypatch):
    # the server forks only kernels with its working directory and environment (but the
    # per-kernel variables); another variable, or another folder, gives an ordinary kernel
    for cwd, extra in ((BOOK, {"DPMARKOV_PROBE": "1"}), (ROOT, {})):
        for name, setting in extra.items():
            monkeypatch.setenv(name, setting)
        specs = KernelSpecManager()
        specs.kernel_dirs.insert(0, str(server.dir / "kernels"))
        km = KernelManager(kernel_name=FORKED, kernel_spec_manager=specs)
        km.start_kernel(cwd=str(cwd))
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            pid, where = ast.literal_eval(value(kc, "(__import__('os').getpid(), "
                                                    "__import__('os').getcwd())"))
            assert pid == km.provisioner.process.pid              # the launcher, exec'd
            assert where == str(cwd)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            monkeypatch.undo()
    assert server.log.read_text().count("starts as an ordinary kernel") >= 2


def test_terminate_reaches_the_kernel_and_no_descriptor_is_left(server):
    fds = len(os.listdir(f"/proc/{server.pid}/fd"))
    km, kc = start(FORKED, server.dir)
    pid = int(value(kc, "__import__('os').getpid()"))
    kc.stop_channels()
    launcher = km.provisioner.process
    launcher.send_signal(signal.SIGTERM)              # jupyter_client's terminate
    assert launcher.wait(timeout=20) != 0             # the kernel died of it, not by exiting
    assert not _alive(pid)
    km.cleanup_resources()
    km, kc = start(FORKED, server.dir)                    # and a clean shutdown exits 0
    kc.stop_channels()
    launcher = km.provisioner.process
    km.request_shutdown()
    assert launcher.wait(timeout=30) == 0
    km.cleanup_resources()
    assert len(os.listdir(f"/proc/{server.pid}/fd")) == fds   # what each request received


def test_a_kernel_ends_with_the_process_that_started_it(server, tmp_path):
    # a fresh kernel's parent poller ends it when the test process dies; the forked kernel's
    # launcher does the same for it
    script = tmp_path / "parent.py"
    script.write_text(f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_kernel_forkserver import start, value
from pathlib import Path
km, kc = start({FORKED!r}, Path({str(server.dir)!r}))
print(int(value(kc, "__import__('os').getpid()")), km.provisioner.process.pid, flush=True)
time.sleep(600)
""")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        kernel, launcher = map(int, parent.stdout.readline().split())
        assert _alive(kernel) and _alive(launcher)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (_alive(kernel) or _alive(launcher)):
        time.sleep(0.2)
    assert not _alive(kernel) and not _alive(launcher)


def test_a_broken_request_leaves_the_server_serving(server):
    # a client that hangs up at once, mid-length, mid-request, or with too few descriptors:
    # each request is refused (logged), and the next kernel is forked as usual
    fds = len(os.listdir(f"/proc/{server.pid}/fd"))
    for payload, descriptors in ((b"", []), (b"\0\0", []), (b"\0" * 7 + b"\x20{", []),
                                 (b"\0" * 7 + b"\x02{}", [0])):
        client = socket.socket(socket.AF_UNIX)
        client.connect(str(server.dir / "sock"))
        if descriptors:
            socket.send_fds(client, [payload], descriptors)
        else:
            client.sendall(payload)
        client.close()
    deadline = time.monotonic() + 20
    while server.log.read_text().count("a request failed") < 4:
        assert time.monotonic() < deadline, server.log.read_text()
        time.sleep(0.1)
    assert len(os.listdir(f"/proc/{server.pid}/fd")) == fds
    km, kc = start(FORKED, server.dir)
    try:
        assert int(value(kc, "__import__('os').getpid()")) != km.provisioner.process.pid
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)

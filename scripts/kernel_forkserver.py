"""Notebook kernels for the test run, forked from one process that has imported the libraries once.

Each nbval kernel of ``./run.sh test`` is a fresh Python that imports ipykernel, numpy, scipy,
matplotlib, sympy and mpmath before its notebook's first cell has done anything (about 1.4 s
of CPU per chapter on average, 30 s over the book).  This script imports them once, in a
server, and forks each notebook's kernel from that untouched process:

    python scripts/kernel_forkserver.py serve SOCKET KERNELS_DIR       # ./run.sh test starts it
    python scripts/kernel_forkserver.py launch SOCKET CONNECTION_FILE  # the kernelspec's command

``serve`` writes the kernelspec ``dpmarkov-forked`` into KERNELS_DIR/kernels (KERNELS_DIR goes
on ``JUPYTER_PATH``), listens on the Unix socket SOCKET, imports ``PRELOAD`` and then, for each
connection, forks a child that runs an ordinary IPython kernel (``ipykernel.kernelapp``).
``launch`` is the process jupyter_client starts and watches: it hands the child its working
directory, environment, arguments and standard streams, relays the signals jupyter_client
sends (interrupt, terminate) and exits when the child does; a child whose launcher is killed
exits too.  When no server answers, or the kernel's working directory or environment is not
the server's, ``launch`` becomes an ordinary kernel itself.

What a notebook can observe is what a fresh kernel gives it, and tests/test_kernel_forkserver.py
compares the two: the working directory, environment, ``sys.argv``, ``sys.path``, signal
handlers, threads, open files, start-up file (``PYTHONSTARTUP``), matplotlib backend, pandas'
display options, the names in the notebook's namespace, warnings, figures, and fresh OS entropy
for every generator of the ``random`` module the imports made (random's own, sympy's) and for
numpy's global one.  What differs: the libraries of ``PRELOAD`` are already in ``sys.modules``
(each chapter still imports what it uses into its namespace), with the objects they made at
import frozen (``gc.freeze``); the kernel's parent is the server (``os.getppid``), its command
line the server's (``sys.orig_argv``), and its CPU clock (``time.process_time``) started with
the server; it has one more daemon thread and one more socket (to its launcher); the warnings
filters the imports added come in import order; and the kernels of one run share Python's
string-hash seed.  None of these changes a chapter's output.  Each notebook runs in a process
of its own, forked from the server and never from another notebook's kernel, and nbval
compares every output with the one a fresh kernel stored.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys

#: The kernelspec's name, given to nbval with ``--nbval-kernel-name``.
KERNEL_NAME = "dpmarkov-forked"

#: What the server imports.  A library belongs here only if its import decides nothing from
#: its surroundings beyond the environment and working directory, which the server shares with
#: its kernels.  Hence not pandas (it sets display.max_columns at import from whether it runs
#: in an IPython kernel: 20 there, the terminal's width elsewhere), not matplotlib's inline
#: backend (its import registers the figure display with the running IPython shell), and not
#: dpmarkov, the package under test, which each chapter imports itself.
PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.debugger", "numpy",
           "scipy.special", "scipy.linalg", "scipy.optimize", "scipy.stats", "scipy.integrate",
           "scipy.sparse.csgraph", "matplotlib.pyplot", "sympy", "mpmath")

#: Environment variables that may differ between the server and its kernels: jupyter_client's
#: (JPY_*), pytest's (PYTEST_*; COLUMNS and LINES in xdist's workers) and the shell's (PWD,
#: OLDPWD, _).  None of the preloaded libraries reads them at import, and each kernel sees its
#: own values; any other difference gives an ordinary kernel (``_shared_environment``).
PER_KERNEL_PREFIXES = ("JPY_", "PYTEST_")
PER_KERNEL_NAMES = ("COLUMNS", "LINES", "PWD", "OLDPWD", "_")

_HEADER = 8                                      # bytes of a request's length prefix


def launch(path: str, connection_file: str) -> None:
    """The kernel process jupyter_client starts: a forked kernel's stand-in, or an ordinary kernel.

    It ends when its kernel ends, with the kernel's exit status, and takes the kernel with it
    when its own parent (the test process) ends, as a fresh kernel's parent poller does.
    """
    import threading
    import time

    argv = [_launcher_file(), "-f", connection_file]
    parent = os.getppid()
    server, pid = _request_kernel(path, argv)
    if pid is None:                              # no server, or not this kernel's surroundings
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv[1:]])

    def relay(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:               # the kernel has just ended
            pass

    def end_with_parent():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)                              # the kernel sees its launcher go and exits

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(signum, relay)
    threading.Thread(target=end_with_parent, daemon=True).start()
    said = b""
    while chunk := server.recv(4096):            # the kernel holds the other end until it exits
        said += chunk
    sys.exit(int(said.rsplit(b"exit ", 1)[-1]) if b"exit " in said else 1)


def serve(path: str, kernels_dir: str) -> None:
    """Listen, write the kernelspec, import ``PRELOAD``, then fork a kernel per request until the
    parent (the shell that started the server) ends.

    The socket listens before the imports, so that the first kernels wait for them instead of
    starting as ordinary ones, and before the kernelspec is written, so that nbval is given the
    forked kernels only when the socket could be made.  A request that fails (a client that
    hangs up, a fork that fails) is logged and refused; the server goes on.
    """
    import gc
    import importlib
    import random
    import threading

    parent = os.getppid()
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # as jupyter_client starts kernels: no other fds
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.settimeout(1.0)                     # to look for the parent once a second
    _write_kernelspec(kernels_dir, path)
    before = dict(os.environ)
    surroundings = (os.getcwd(), _shared_environment(before))
    # what ipykernel sets before a kernel's code runs; matplotlib reads it at import
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for name in PRELOAD:
        importlib.import_module(name)
    # and what the imports set (debugpy: PYDEVD_USE_FRAME_EVAL), for each kernel to set again
    imported = {k: v for k, v in os.environ.items() if before.get(k) != v}
    if "matplotlib_inline.backend_inline" in sys.modules or threading.active_count() != 1:
        sys.exit("kernel_forkserver: the preloaded libraries imported the inline backend or "
                 "started a thread: a forked kernel would not be a fresh one")
    gc.collect()
    # every generator of the random module the imports made (random's own, sympy's, others):
    # each kernel seeds them afresh, as its own imports would have
    generators = [g for g in gc.get_objects() if isinstance(g, random.Random)]
    gc.freeze()                                  # keep the preloaded objects shared after fork
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)    # the system reaps the kernels
    print(f"kernel_forkserver: ready ({len(generators)} random generators to seed per kernel)",
          flush=True)
    while os.getppid() == parent:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        fds = []
        try:
            conn.settimeout(10.0)                # a request, or the client is dropped
            request, fds = _read_request(conn)
            conn.settimeout(None)
            theirs = (request["cwd"], _shared_environment(request["env"]))
            if theirs != surroundings:
                differ = sorted(k for k in theirs[1].keys() | surroundings[1].keys()
                                if theirs[1].get(k) != surroundings[1].get(k))
                print(f"kernel_forkserver: a kernel in {theirs[0]} (server: {surroundings[0]}), "
                      f"environment differing in {differ}, starts as an ordinary kernel",
                      flush=True)
                conn.sendall(b"0\n")
            elif (pid := os.fork()) == 0:
                try:                             # the child never returns to this loop
                    listener.close()
                    _become_kernel(conn, request, fds, imported, generators)
                finally:
                    os._exit(1)
            else:
                print(f"kernel_forkserver: forked kernel {pid} in {theirs[0]}", flush=True)
        except Exception as err:                 # this request only: the server goes on
            print(f"kernel_forkserver: a request failed ({err!r}); its client starts an "
                  "ordinary kernel or none", flush=True)
        finally:
            conn.close()
            for fd in fds:
                os.close(fd)


def _become_kernel(conn: socket.socket, request: dict, fds: list[int], imported: dict,
                   generators: list) -> None:
    """In the forked child: take on the launcher's process state, then run an IPython kernel."""
    import atexit
    import threading
    import traceback

    import numpy as np

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()                                  # jupyter_client starts kernels in a new session
    for target, fd in enumerate(fds):            # the launcher's stdin, stdout and stderr
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ.update(imported)
    sys.argv = request["argv"]
    if sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]                          # python -m ipykernel_launcher leaves no such entry
    for generator in generators:                 # fresh OS entropy, as fresh imports draw
        generator.seed()
    np.random.seed()
    from sympy.core.symbol import Dummy         # preloaded; its base index is drawn at import
    Dummy._base_dummy_index = Dummy._prng.randint(10**6, 9 * 10**6)
    conn.sendall(f"{os.getpid()}\n".encode())

    def exit_with_launcher():
        while conn.recv(4096):
            pass
        os._exit(1)

    threading.Thread(target=exit_with_launcher, name="kernel_forkserver launcher watch",
                     daemon=True).start()
    from ipykernel import kernelapp
    status = 1
    try:
        # parent_handle's default is read from JPY_PARENT_PID when ipykernel is imported,
        # in the server, where it is unset: the kernel's own value is passed
        kernelapp.launch_new_instance(argv=sys.argv[1:],
                                      parent_handle=int(os.environ.get("JPY_PARENT_PID") or 0))
        status = 0
    except SystemExit as end:
        status = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        atexit._run_exitfuncs()                  # as a kernel's own interpreter ends
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            conn.sendall(f"exit {status}\n".encode())   # the launcher exits with it
        finally:
            os._exit(status)


def _request_kernel(path: str, argv: list[str]) -> tuple[socket.socket, int | None]:
    """Ask the server at ``path`` for a kernel: (the connection, the kernel's pid or None)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.connect(path)
        request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        socket.send_fds(server, [len(request).to_bytes(_HEADER, "big") + request], [0, 1, 2])
        line = b""
        while not line.endswith(b"\n"):
            chunk = server.recv(1)
            if not chunk:                        # the server ended before answering
                return server, None
            line += chunk
    except OSError:
        return server, None
    return server, int(line) or None


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    """(the request, the three descriptors sent with it); ConnectionError if it comes short."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < _HEADER or len(data) < _HEADER + int.from_bytes(data[:_HEADER], "big"):
        chunk = conn.recv(1 << 16)
        if not chunk:
            for fd in fds:
                os.close(fd)
            raise ConnectionError(f"the client hung up after {len(data)} bytes of its request")
        data += chunk
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ConnectionError(f"the client sent {len(fds)} descriptors, not 3")
    return json.loads(data[_HEADER:]), fds


def _shared_environment(env) -> dict:
    """The environment without the per-kernel variables: what the server and its kernels share."""
    return {k: v for k, v in env.items()
            if not k.startswith(PER_KERNEL_PREFIXES) and k not in PER_KERNEL_NAMES}


def _launcher_file() -> str:
    """A fresh kernel's sys.argv[0]: the path of ipykernel's launcher module (found, not imported)."""
    import importlib.util
    return importlib.util.find_spec("ipykernel_launcher").origin


def _write_kernelspec(kernels_dir: str, path: str) -> None:
    spec_dir = os.path.join(kernels_dir, "kernels", KERNEL_NAME)
    os.makedirs(spec_dir, exist_ok=True)
    spec = {"argv": [sys.executable, os.path.abspath(__file__), "launch", path,
                     "{connection_file}"],
            "display_name": "Python 3 (forked for the tests)", "language": "python",
            "metadata": {"debugger": True}, "kernel_protocol_version": "5.5"}
    with open(os.path.join(spec_dir, "kernel.json.part"), "w") as f:
        json.dump(spec, f, indent=1)
    # whole or not at all: start_kernel_forkserver waits for the file to appear
    os.replace(os.path.join(spec_dir, "kernel.json.part"), os.path.join(spec_dir, "kernel.json"))


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    {"launch": launch, "serve": serve}[mode](*args)

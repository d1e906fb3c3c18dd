"""Where a submission runs: a sandboxed process that answers the grader in plain JSON.

The grader (``scripts/grade.py``) never executes submitted code. It starts
``scripts/grading/runner.py`` in a separate process per submission and question kind, sends
it the notebook's code cells and then calls by name, and reads back plain data (numbers,
strings, lists, numeric arrays), which it parses itself (:func:`decode`): no object crosses,
so no value can choose its own comparison.

On Linux the process runs under bubblewrap (``bwrap``, Debian's package ``bubblewrap``):

- new user, PID, network, IPC, UTS and cgroup namespaces (no network at all), every
  capability dropped, user ``nobody``, a new session, killed with the grader;
- a file system of its own: the operating system (``/usr``), the Python installation and its
  libraries read-only, a private empty ``/tmp`` as working folder, and nothing of the
  repository (no autograder, test, assignment or other submission) except, read-only, the
  ``dpmarkov`` package itself, and not even that for a question that forbids the package;
- a seccomp filter (:func:`seccomp_filter`) that refuses every new process (threads stay
  allowed), so a fork bomb gets ``EPERM`` even when the grader runs as root (root is exempt
  from ``RLIMIT_NPROC``);
- the runner's own hard limits on CPU time and address space (``setrlimit``, which the
  submission cannot raise again), a CPU budget per cell and per call, and here a wall-clock
  limit on every answer, after which the process is killed.

Elsewhere (macOS, Windows, or Linux without bubblewrap) :func:`start` refuses unless the
instructor passes ``unsafe=True`` (``--unsafe-no-sandbox``): then the runner is a plain
child process (``subprocess``: spawn, no fork) with the same protocol, the same limits where
the system has them (macOS: CPU and memory; Windows: only the wall-clock limit) and the checks
still in the grader, but it can read your files and import ``dpmarkov`` by a detour.
"""
from __future__ import annotations

import json
import os
import platform
import queue
import shutil
import site
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RUNNER = Path(__file__).with_name("runner.py")
ROOT = Path(__file__).resolve().parents[2]
MAX_LINE = 64 * 2**20          # bytes of one answer; more is refused, not read into memory
IN_SANDBOX_RUNNER = "/sandbox/runner.py"
DTYPES = {"b", "i", "u", "f"}  # the array kinds that may cross: bool, int, unsigned, float


class SandboxUnavailable(RuntimeError):
    """No sandbox on this system and the instructor did not accept running without one."""


class SandboxError(RuntimeError):
    """The sandbox died, ran out of time, or answered something that is not plain data."""


@dataclass(frozen=True)
class Limits:
    """Resources of one sandboxed process.

    ``cpu``: CPU seconds for the whole process (hard ``RLIMIT_CPU``); ``cpu_per_step``: CPU
    seconds for one cell or one call (a timer that raises, and one of three times as much real
    time for a cell that sleeps; the hard limit and ``wall`` back them);
    ``memory``: bytes of address space (``RLIMIT_AS``); ``wall``: seconds the grader waits
    for any one answer before it kills the process.
    """

    cpu: float = 600.0
    cpu_per_step: float = 120.0
    memory: int = 4 * 2**30
    wall: float = 900.0


DEFAULT_LIMITS = Limits()


# -- seccomp: refuse new processes, allow threads ------------------------------------------
_ARCH = {  # machine -> (AUDIT_ARCH value, {syscall: number})
    "x86_64": (0xC000003E, {"fork": 57, "vfork": 58, "clone": 56, "clone3": 435}),
    "aarch64": (0xC00000B7, {"clone": 220, "clone3": 435}),
}
_RET_ALLOW, _RET_KILL = 0x7FFF0000, 0x80000000
_RET_EPERM, _RET_ENOSYS = 0x00050000 | 1, 0x00050000 | 38
_CLONE_THREAD = 0x00010000


def seccomp_filter(machine: str | None = None) -> bytes:
    """A classic-BPF seccomp program (for ``bwrap --seccomp``) that refuses new processes.

    ``fork`` and ``vfork`` fail with EPERM; ``clone`` fails with EPERM unless it makes a
    thread (``CLONE_THREAD``); ``clone3``, whose flags a filter cannot read, fails with ENOSYS,
    so the C library falls back to ``clone``. A system call of another ABI (32-bit calls from a
    64-bit process, x32) kills the process, since its numbers differ.
    """
    machine = machine or platform.machine()
    if machine not in _ARCH:
        raise SandboxUnavailable(f"no seccomp filter for machine={machine!r}")
    arch, nr = _ARCH[machine]
    ld_w_abs, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    prog = [(ld_w_abs, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, _RET_KILL),
            (ld_w_abs, 0, 0, 0)]
    if machine == "x86_64":                         # x32 system calls carry bit 30
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, _RET_KILL)]
    for name in ("fork", "vfork"):
        if name in nr:
            prog += [(jeq, 0, 1, nr[name]), (ret, 0, 0, _RET_EPERM)]
    prog += [(jeq, 0, 1, nr["clone3"]), (ret, 0, 0, _RET_ENOSYS),
             (jeq, 1, 0, nr["clone"]), (ret, 0, 0, _RET_ALLOW),
             (ld_w_abs, 0, 0, 16),                  # clone's flags, low 32 bits
             (jset, 0, 1, _CLONE_THREAD), (ret, 0, 0, _RET_ALLOW), (ret, 0, 0, _RET_EPERM)]
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def bwrap_available() -> bool:
    """True where the kernel sandbox can be used: Linux with ``bwrap`` on the PATH."""
    return sys.platform.startswith("linux") and shutil.which("bwrap") is not None


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(top), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    return args


def _python_dirs() -> list[Path]:
    """The interpreter's installation and library folders (read-only in the sandbox)."""
    dirs = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    dirs |= {Path(p).resolve() for p in site.getsitepackages() if Path(p).is_dir()}
    dirs.add(Path(sys.executable).parent.resolve())
    out = []
    for d in sorted(dirs, key=lambda p: len(p.parts)):
        if any(d.is_relative_to(o) for o in out) or d == Path("/usr") or d.is_relative_to("/usr"):
            continue
        if ROOT.is_relative_to(d):
            raise SandboxUnavailable(f"the Python folder {d} holds the repository {ROOT}: "
                                     "use a virtual environment (./run.sh makes .venv)")
        out.append(d)
    return out


def _package_dir() -> Path:
    import dpmarkov

    return Path(dpmarkov.__file__).resolve().parent


def bwrap_command(forbid: bool) -> list[str]:
    """The bubblewrap command line of one sandbox (see the module's docstring)."""
    cmd = ["bwrap", "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
           "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           *_system_binds(), "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for d in _python_dirs():
        cmd += ["--ro-bind", str(d), str(d)]
    package = _package_dir()
    if forbid:
        if any(package.is_relative_to(d) for d in _python_dirs()):
            cmd += ["--tmpfs", str(package)]     # installed among the libraries: hide it
    else:
        cmd += ["--ro-bind", str(package), str(package)]
    cmd += ["--ro-bind", str(RUNNER), IN_SANDBOX_RUNNER, "--chdir", "/tmp", "--clearenv"]
    for key, value in _ENV.items():
        cmd += ["--setenv", key, value]
    return cmd


_ENV = {"HOME": "/tmp", "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}


# -- plain data both ways --------------------------------------------------------------------
def encode(value):
    """A trusted argument as plain JSON data (arrays, numbers, strings, PCG64 generators)."""
    if isinstance(value, np.random.Generator):
        state = value.bit_generator.state
        if state["bit_generator"] != "PCG64":
            raise TypeError("only PCG64 generators cross into the sandbox")
        return {"__generator__": state}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in DTYPES:
            raise TypeError(f"array of {value.dtype}")
        array = value.astype(value.dtype.newbyteorder("="))
        return {"__ndarray__": array.tolist(), "dtype": array.dtype.str}
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    raise TypeError(f"cannot send {type(value).__name__} to the sandbox")


def decode(value):
    """Untrusted JSON from the sandbox as plain Python values and numpy arrays, or raise.

    Only None, bools, ints, floats, strings, lists and ``{"__ndarray__", "dtype"}`` of kind
    bool, int, unsigned or float are accepted; the result holds no object the submission made.
    Raises SandboxError on anything else, a malformed array or nesting too deep.
    """
    try:
        return _decode(value)
    except RecursionError:
        raise SandboxError("data nested too deep") from None


def _decode(value):
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is list:
        return [_decode(v) for v in value]
    if type(value) is dict and set(value) == {"__ndarray__", "dtype"}:
        dtype = np.dtype(str(value["dtype"]))
        if dtype.kind not in DTYPES:
            raise SandboxError(f"an array of dtype {dtype} is not plain data")
        try:
            return np.array(value["__ndarray__"], dtype=dtype)
        except (TypeError, ValueError) as error:
            raise SandboxError(f"a malformed array: {error}") from None
    raise SandboxError(f"not plain data: {type(value).__name__}")


# -- one sandboxed process -------------------------------------------------------------------
class Sandbox:
    """One submission running in its sandbox: its variables, and calls into it.

    ``Sandbox(cells, forbid=..., limits=..., unsafe=...)`` starts the process and runs the
    cells; ``variables`` holds what the notebook left (plain data, or ``CALLABLE`` for a
    function); ``call(name, *args)`` calls one of its functions there. Use as a context
    manager (the process is killed on exit).
    """

    CALLABLE = object()

    def __init__(self, cells: list[str], *, forbid: bool = False, limits: Limits = DEFAULT_LIMITS,
                 unsafe: bool = False):
        if bwrap_available():
            read, write = os.pipe()
            os.write(write, seccomp_filter())
            os.close(write)
            cmd = [*bwrap_command(forbid), "--seccomp", str(read),
                   sys.executable, "-I", IN_SANDBOX_RUNNER]
            pass_fds = (read,)
        elif unsafe:
            cmd, pass_fds, read = [sys.executable, "-I", str(RUNNER)], (), None
        else:
            raise SandboxUnavailable(
                "no sandbox here (bubblewrap runs on Linux only: apt-get install bubblewrap); "
                "grade on Linux, or pass --unsafe-no-sandbox to run submissions as plain "
                "child processes that can read your files (README: grading)")
        self.limits = limits
        env = None if read is not None else {**_ENV, "SYSTEMROOT": os.environ.get("SYSTEMROOT", ""),
                                            "HOME": str(Path.home())}
        self.process = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            pass_fds=pass_fds, env=env, start_new_session=os.name == "posix",
            cwd=None if read is not None else _scratch_dir())
        if read is not None:
            os.close(read)
        # a few lines at most wait here: a sandbox that floods its output blocks on its pipe
        self._lines: queue.Queue = queue.Queue(maxsize=4)
        self._closed = False
        threading.Thread(target=self._read, daemon=True).start()
        self._next = 0
        self._send({"cells": cells, "forbid": forbid, "cpu": limits.cpu,
                    "cpu_per_step": limits.cpu_per_step, "memory": limits.memory})
        raw = self._receive().get("variables")
        if type(raw) is not dict:
            raise SandboxError("no variables")
        self.variables = {}
        for name, value in raw.items():
            if type(name) is not str:
                continue
            if value == {"__callable__": True}:
                self.variables[name] = self.CALLABLE
                continue
            try:
                self.variables[name] = decode(value)
            except SandboxError:
                continue

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            try:
                line = stream.readline(MAX_LINE + 1)
            except (OSError, ValueError):
                line = b""
            if not line or len(line) > MAX_LINE:
                line = None
            while not self._closed:
                try:
                    self._lines.put(line, timeout=1)
                    break
                except queue.Full:
                    continue
            if line is None or self._closed:
                return

    def _send(self, obj) -> None:
        try:
            self.process.stdin.write((json.dumps(obj) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise SandboxError("the sandbox has stopped") from None

    def _receive(self) -> dict:
        try:
            line = self._lines.get(timeout=self.limits.wall)
        except queue.Empty:
            self.close()
            raise SandboxError(f"no answer within {self.limits.wall:g} s") from None
        if line is None:
            self.close()
            raise SandboxError("the sandbox has stopped (a limit, or a crash)")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            raise SandboxError("an answer that is not JSON, or nested too deep") from None
        if type(message) is not dict:
            raise SandboxError("an answer that is not a JSON object")
        return message

    def call(self, name: str, *args):
        """``name(*args)`` in the sandbox; its value as plain data (SandboxError if it fails).

        A ``numpy.random.Generator`` among ``args`` is advanced as the call advanced it there.
        """
        self._next += 1
        self._send({"id": self._next, "call": name, "args": [encode(a) for a in args]})
        answer = self._receive()
        if answer.get("id") != self._next:
            raise SandboxError("an answer out of turn")
        if "error" in answer or "value" not in answer:
            raise SandboxError(f"{name} failed in the sandbox: {answer.get('error')!s:.80}")
        states = answer.get("generators") or {}
        for i, arg in enumerate(args):
            if isinstance(arg, np.random.Generator):
                state = states.get(str(i)) if type(states) is dict else None
                if type(state) is not dict or state.get("bit_generator") != "PCG64":
                    raise SandboxError("a generator's state did not come back")
                try:
                    arg.bit_generator.state = state
                except (TypeError, ValueError, KeyError):
                    raise SandboxError("a malformed generator state") from None
        return decode(answer["value"])

    def close(self) -> None:
        self._closed = True
        if self.process.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.process.pid, 9)
                else:
                    self.process.kill()
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _scratch_dir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="dpmarkov-grade-")

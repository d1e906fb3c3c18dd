"""Runs ONE submission inside the sandbox and answers the grader in plain JSON.

This file is the only code of ours in the sandbox: it needs the standard library and numpy
only, and it is started as ``python -I runner.py`` (``scripts/grading/sandbox.py``).
Protocol, one JSON object a line:

1. the grader writes ``{"cells": [...], "forbid": bool, "cpu_per_step": s, "cpu": s,
   "memory": bytes}``;
2. the runner lowers its own limits (CPU time, address space, processes: hard limits a
   submission cannot raise again), hides its pipes from the submission (file descriptors 0, 1
   and 2 point to /dev/null while submitted code runs; a print of fake results goes nowhere),
   runs the code cells in order with errors ignored (as ``otter run`` does), each within
   ``cpu_per_step`` seconds of CPU and three times that of real time, and answers ``{"variables": {name: value}}``: every
   top-level name whose value is plain data, and ``{"__callable__": true}`` for a function;
3. then, until its input ends: ``{"id": i, "call": name, "args": [...]}`` is answered by
   ``{"id": i, "value": ...}`` or ``{"id": i, "error": "..."}`` (and the new states of any
   random generators passed in, ``"generators"``).

Plain data is: None, bools, ints, floats, strings, lists of plain data, and numpy arrays of
bools, integers or floats as ``{"__ndarray__": nested lists, "dtype": "<f8"}``. Anything else
is left out: no object crosses, so no value can choose how it compares. Nothing here is
trusted: the grader parses what arrives as data and decides every score itself.
"""
import contextlib
import io
import json
import os
import signal
import sys
import types

try:
    import resource
except ImportError:  # Windows: only the grader's wall-clock limit holds there
    resource = None


class StepTimeout(BaseException):
    """A cell or a call used up its time."""


def _on_cpu_alarm(signum, frame):
    raise StepTimeout("time per step exceeded")


def limit(cpu: float, memory: int) -> None:
    """Hard limits on this process: CPU seconds, address space, and no new processes.

    On Linux (the sandbox) every limit must hold; elsewhere (``--unsafe-no-sandbox``) a limit
    the system refuses (macOS often refuses ``RLIMIT_AS``) is skipped.
    """
    if resource is None:
        return
    wanted = [(resource.RLIMIT_CPU, int(cpu))]
    if memory:
        wanted.append((resource.RLIMIT_AS, int(memory)))
    if hasattr(resource, "RLIMIT_NPROC"):
        # counted per user namespace: the sandbox's own processes (root is exempt; bwrap's
        # seccomp filter refuses new processes there)
        wanted.append((resource.RLIMIT_NPROC, 16))
    for which, value in wanted:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            if sys.platform.startswith("linux"):
                raise


def encode(value, depth=0):
    """``value`` as plain JSON data, or raise TypeError."""
    import numpy as np

    if depth > 20:
        raise TypeError("too deep")
    if value is None or type(value) in (bool, str):
        return value
    if type(value) is int:
        return value
    if type(value) is float:
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"array of {array.dtype}")
        plain = np.array(array, dtype=array.dtype.newbyteorder("="))
        return {"__ndarray__": plain.tolist(), "dtype": plain.dtype.str}
    if type(value) in (list, tuple):
        return [encode(v, depth + 1) for v in value]
    raise TypeError(f"not plain data: {type(value).__name__}")


def decode_args(args):
    """The grader's arguments (trusted plain data) as Python and numpy values."""
    import numpy as np

    generators = {}

    def one(x, path):
        if isinstance(x, dict) and "__ndarray__" in x:
            return np.array(x["__ndarray__"], dtype=x["dtype"])
        if isinstance(x, dict) and "__generator__" in x:
            g = np.random.Generator(np.random.PCG64())
            g.bit_generator.state = x["__generator__"]
            generators[path] = g
            return g
        if isinstance(x, list):
            return [one(v, f"{path}.{i}") for i, v in enumerate(x)]
        return x

    return [one(a, str(i)) for i, a in enumerate(args)], generators


def main() -> None:
    # the grader's pipes, kept on descriptors of our own; 0, 1 and 2 become /dev/null
    inp = os.fdopen(os.dup(0), "r", encoding="utf-8")
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(), io.StringIO(), io.StringIO()
    request = json.loads(inp.readline())
    limit(request["cpu"], request["memory"])
    itimer = hasattr(signal, "setitimer")
    if itimer:
        signal.signal(signal.SIGPROF, _on_cpu_alarm)
        signal.signal(signal.SIGALRM, _on_cpu_alarm)
    step = float(request["cpu_per_step"])

    def reply(obj) -> None:
        out.write(json.dumps(obj, allow_nan=True) + "\n")
        out.flush()

    def timed(function, *args):
        # CPU time, and real time (three times as much: a cell that sleeps or waits)
        if not itimer:
            return function(*args)
        signal.setitimer(signal.ITIMER_PROF, step)
        signal.setitimer(signal.ITIMER_REAL, 3 * step)
        try:
            return function(*args)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)

    if request["forbid"]:
        # the question forbids the package: it is not in this sandbox at all (the grader
        # mounts none); this stand-in only turns the notebook's import line into a clear error
        stub = types.ModuleType("dpmarkov")

        def _absent(name):
            raise ImportError("dpmarkov is not available to this question")

        stub.__getattr__ = _absent
        sys.modules["dpmarkov"] = stub
    os.environ["MPLBACKEND"] = "Agg"
    env = {"__name__": "__main__"}
    for i, source in enumerate(request["cells"]):
        try:
            timed(exec, compile(source, f"<cell {i}>", "exec"), env)
        except BaseException:  # noqa: BLE001 - errors in a cell are ignored, as otter run does
            sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    variables = {}
    for name, value in list(env.items()):
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if callable(value):
            variables[name] = {"__callable__": True}
            continue
        with contextlib.suppress(Exception):   # not plain data: left out
            variables[name] = encode(value)
    reply({"variables": variables})
    for line in inp:
        message = json.loads(line)
        answer = {"id": message["id"]}
        try:
            function = env[message["call"]]
            args, generators = decode_args(message["args"])
            answer["value"] = encode(timed(function, *args))
            answer["generators"] = {k: g.bit_generator.state for k, g in generators.items()}
        except BaseException as error:  # noqa: BLE001 - the grader scores a failed call 0
            answer = {"id": message["id"], "error": type(error).__name__}
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        reply(answer)


if __name__ == "__main__":
    main()

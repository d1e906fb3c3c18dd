# The environment of the test run, sourced by ./run.sh test and benchmarks/time_checks.sh
# (so that the timings are of the same run).  From the project root.  None of it changes a
# result: it decides how the work is scheduled, where memory comes from and how often
# Python collects garbage.
#
# Two test workers and the book build share the two cores: one BLAS thread each (OpenBLAS
# spins while it waits, so more threads than cores only burn CPU).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# glibc hands freed blocks above 128 KB back to the system and takes them again with fresh
# page faults, which are slow on virtual machines (stationary_distribution on the taxi
# chapter's 1,000 chains: 0.19-0.25 s, 0.12-0.14 s with these): keep freed memory in each
# process for reuse.  Other C libraries ignore the variables (benchmarks/README.md).
export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824
# Each notebook kernel collects garbage less often (tests/kernel_startup.py).
export PYTHONSTARTUP="$PWD/tests/kernel_startup.py"
# nbval's notebook kernels are forked from one server that has imported ipykernel, numpy,
# scipy, matplotlib, sympy and mpmath once (scripts/kernel_forkserver.py; about 30 s of CPU
# less over the book).  A notebook sees what a fresh kernel gives it, but for differences no
# chapter's output depends on (tests/test_kernel_forkserver.py compares the two kinds of
# kernel), and nbval compares every output with the one a fresh kernel stored.
# start_kernel_forkserver starts the server (its socket, kernelspec and log in a new folder
# KERNEL_FORKS) and sets NBVAL_KERNEL, nbval's option naming the kernel; stop_kernel_forkserver
# ends it.  Without the server a kernel starts as an ordinary one.
start_kernel_forkserver() {
  NBVAL_KERNEL=""                  # until the server has written its kernelspec: ordinary kernels
  KERNEL_FORKS="$(mktemp -d)" || { KERNEL_FORKS=""; return 0; }
  export JUPYTER_PATH="$KERNEL_FORKS${JUPYTER_PATH:+:$JUPYTER_PATH}"
  ( cd book && exec ../.venv/bin/python ../scripts/kernel_forkserver.py serve \
      "$KERNEL_FORKS/socket" "$KERNEL_FORKS" ) >"$KERNEL_FORKS/server.log" 2>&1 &
  KERNEL_FORKSERVER=$!
  # written once the socket listens (within 5 s), renamed into place whole
  local spec="$KERNEL_FORKS/kernels/dpmarkov-forked/kernel.json" _
  for _ in $(seq 100); do
    [ -f "$spec" ] && { NBVAL_KERNEL="--nbval-kernel-name dpmarkov-forked"; return 0; }
    kill -0 "$KERNEL_FORKSERVER" 2>/dev/null || break
    sleep 0.05
  done
  echo "== kernel_forkserver did not start (nbval's kernels start fresh):" >&2
  tail -n 5 "$KERNEL_FORKS/server.log" >&2
}
stop_kernel_forkserver() {
  [ -n "${KERNEL_FORKS:-}" ] || return 0
  kill "$KERNEL_FORKSERVER" 2>/dev/null || true
  echo "== kernel_forkserver: $(grep -c ': forked kernel' "$KERNEL_FORKS/server.log") kernels" \
    "forked, $(grep -c 'starts as an ordinary kernel' "$KERNEL_FORKS/server.log") refused"
  rm -rf "$KERNEL_FORKS"
  KERNEL_FORKS=""
}

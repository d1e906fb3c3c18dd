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

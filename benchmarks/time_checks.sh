#!/usr/bin/env bash
# Wall and CPU time of the checks that issue 15 budgets (not a test; see benchmarks/README.md):
#   1. the book build from the stored outputs beside nbval on every notebook (execution once),
#      the pair the issue budgets at <= 100 s;
#   2. the whole README test command, ./run.sh test (budget <= 4 minutes; skipped with --pair-only).
# Run from the project root after ./run.sh has set up .venv:  bash benchmarks/time_checks.sh [--pair-only]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/test_env.sh                                      # as ./run.sh test
out="$(mktemp -d)"
.venv/bin/python -m compileall -q dpmarkov >/dev/null     # as ./run.sh does before every command
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# CPU seconds used by the whole machine (user, nice, system, irq, softirq; /proc/stat): the
# forked kernels are the fork server's children, outside the time of the timed command
machine_cpu() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
cpu_since() { echo "$(( ($(machine_cpu) - $1) / $(getconf CLK_TCK) )) s of CPU on the machine"; }

echo "== 1. book build (stored outputs, niced) beside nbval on book/*.ipynb"
.venv/bin/python scripts/stored_outputs_config.py "$out/_config_stored_outputs.yml"
start=$(date +%s%N) cpu=$(machine_cpu)
( renice -n 10 -p "$BASHPID" >/dev/null
  .venv/bin/jupyter-book build . --config "$out/_config_stored_outputs.yml" --path-output "$out" \
    --all -W -n --keep-going >"$out/build.log" 2>&1 ) &
build=$!
TIMEFORMAT="   nbval: %R s wall (CPU of pytest and the kernel launchers: %U s user + %S s system)"
start_kernel_forkserver                                    # as ./run.sh test
trap stop_kernel_forkserver EXIT
# shellcheck disable=SC2086
time .venv/bin/python -m pytest -q -n 2 --dist loadfile book/*.ipynb --nbval $NBVAL_KERNEL \
  --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider >"$out/nbval.log" 2>&1 \
  || { tail -n 20 "$out/nbval.log"; exit 1; }
wait "$build" || { tail -n 20 "$out/build.log"; exit 1; }
echo "   book build and nbval both done after $(( ($(date +%s%N) - start) / 1000000 )) ms, $(cpu_since "$cpu")"
stop_kernel_forkserver

[ "${1:-}" = "--pair-only" ] && exit 0
echo "== 2. ./run.sh test"
TIMEFORMAT="   ./run.sh test: %R s wall (CPU of its processes but the forked kernels: %U s user + %S s system)"
cpu=$(machine_cpu)
time ./run.sh test >"$out/test.log" 2>&1 || { tail -n 30 "$out/test.log"; exit 1; }
echo "   ./run.sh test: $(cpu_since "$cpu")"
grep -E "passed" "$out/test.log" | sed 's/^/   /'
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"

#!/usr/bin/env bash
# Wall and CPU time of the whole README test command, ./run.sh test (budget: 5 minutes on the
# 2-core machine).  Not a test; see benchmarks/README.md.  Run from the project root after
# ./run.sh has set up .venv:  bash benchmarks/time_checks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# CPU seconds used by the whole machine (user, nice, system, irq, softirq; /proc/stat)
machine_cpu() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
cpu=$(machine_cpu)
TIMEFORMAT="   ./run.sh test: %R s wall"
time ./run.sh test >"$out/test.log" 2>&1 || { tail -n 30 "$out/test.log"; exit 1; }
echo "   ./run.sh test: $(( ($(machine_cpu) - cpu) / $(getconf CLK_TCK) )) s of CPU on the machine"
grep -E "passed" "$out/test.log" | sed 's/^/   /'
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"

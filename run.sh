#!/usr/bin/env bash
# dpmarkov's one entry point.  Each command makes (or reuses) the virtual
# environment .venv with everything in requirements.txt, so a fresh clone needs
# nothing but Python 3.11.  Written for bash 3.2 (macOS's own) and later, with tools that
# Linux and macOS both have (tests/test_run_sh.py checks this).
#
#   ./run.sh book      build the book's public edition (no solution of a graded exercise), every
#                      notebook executed -> _build/html/index.html
#   ./run.sh test      every test: a clean book build with -W from the notebooks' stored outputs,
#                      then unit tests, reader tests on the built pages, nbval on every notebook
#   ./run.sh instructor  the instructor edition (every solution, the exams), every notebook
#                      executed -> _build/instructor/_build/html/index.html
#   ./run.sh student   the student edition (no solutions) -> _build/student/_build/html/index.html
#   ./run.sh bench     the benchmarks (timings against plain numpy/scipy)
#   ./run.sh assignments  the graded assignments (otter-grader) -> _build/assignments/<part>/
#   ./run.sh grade FOLDER [CSV]  grade every submitted notebook below FOLDER, without Docker,
#                      into one CSV of scores per question (default FOLDER/scores.csv)
#   ./run.sh pdf       the whole book as one PDF -> _build/pdf/dpmarkov-book.pdf (installs Debian's
#                      chromium and poppler-utils), then checks it (tests/test_pdf.py)
#   ./run.sh test-dispatch  nbval on every notebook again, numpy's SIMD dispatch cut to its
#                      build's baseline (as a CPU without AVX2 or AVX-512 runs it)
#   ./run.sh test-oldest   the unit tests on the lowest library versions pyproject.toml allows
#   ./run.sh test-pythons [VERSION ...]  the unit tests and nbval on every notebook under
#                      Python 3.12 and 3.13 (or the VERSIONs), each in its own .venv-VERSION
#   ./run.sh test-install  slow reader checks: the wheel in a fresh venv runs notebooks and the
#                      assignments' student notebooks (their public tests) from the built site
#                      (needs PyPI), and every page fits at 1400 and 800 px in headless chromium
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
VENV=.venv
PY="$VENV/bin/python"
# nbval's options, the same for every pass over the notebooks (test, test-dispatch,
# test-pythons): outputs compared after tests/sanitize.cfg, two workers, a notebook per worker
NBVAL=(--nbval --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider -n 2 --dist loadfile)

sha256() {  # the SHA-256 of stdin, in hex: GNU's sha256sum, or macOS's shasum
  if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}

tool_folders() {
  # The tools' per-user folders (matplotlib's settings and font cache, IPython's profile,
  # Jupyter's settings, kernels and runtime files) live in the project, not in the home
  # folder: every command works with a read-only home (matplotlib would otherwise warn in
  # every notebook's output), and no personal setting (a matplotlibrc, an IPython start-up
  # file, a kernel installed with --user) changes what the notebooks print.  The caches of
  # pip and uv stay the user's own unless the home folder cannot be written.
  local home="$PWD/$VENV-home"
  export MPLCONFIGDIR="$home/matplotlib" IPYTHONDIR="$home/ipython" \
    JUPYTER_CONFIG_DIR="$home/jupyter/config" JUPYTER_DATA_DIR="$home/jupyter/data" \
    JUPYTER_RUNTIME_DIR="$home/jupyter/runtime"
  mkdir -p "$MPLCONFIGDIR" "$IPYTHONDIR" "$JUPYTER_CONFIG_DIR" "$JUPYTER_DATA_DIR" \
    "$JUPYTER_RUNTIME_DIR"
  if ! { [ -d "${HOME:-}" ] && [ -w "$HOME" ]; }; then
    export XDG_CACHE_HOME="$home/cache" PIP_CACHE_DIR="$home/cache/pip" \
      UV_CACHE_DIR="$home/cache/uv"
  fi
}

setup() {
  local stamp="$VENV/.installed" want
  want="$(cat requirements.txt pyproject.toml | sha256)"
  if [ -x "$PY" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    compile_package
    return
  fi
  echo "== setting up $VENV (one time; see setup.log) =="
  local python="${PYTHON:-python3.11}"
  command -v "$python" >/dev/null || python=python3
  "$python" -m venv "$VENV"
  {
    "$PY" -m pip install --upgrade pip
    "$PY" -m pip install -r requirements.txt
    "$PY" -m pip install --no-deps -e .
  } >setup.log 2>&1 || { tail -n 40 setup.log; echo "setup failed: see setup.log" >&2; exit 1; }
  echo "$want" >"$stamp"
  compile_package
}

compile_package() {
  # the package's bytecode, written once for the many Python processes of a run (notebook
  # kernels, test workers, the build), which would each compile it again where the
  # environment sets PYTHONDONTWRITEBYTECODE (0.1 s each); stale files are rewritten
  "$PY" -m compileall -q dpmarkov >/dev/null
}

build_book() {  # $1: output folder; further args go to jupyter-book
  local out="$1"; shift
  "$VENV/bin/jupyter-book" build . --path-output "$out" "$@"
}

build_public() {  # the public edition (scripts/student_edition.py) -> _build/html; args to jupyter-book
  # BUILD_NICE: a lower priority for both steps (nice runs a command, not a shell function)
  nice -n "${BUILD_NICE:-0}" "$PY" scripts/student_edition.py _build/public_src --edition public
  nice -n "${BUILD_NICE:-0}" "$VENV/bin/jupyter-book" build _build/public_src --path-output . "$@"
}

need_debian_packages() {  # COMMAND:PACKAGE ...: apt-get install the packages whose command is missing
  local missing=() pair
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
  [ ${#missing[@]} -eq 0 ] && return
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "== installing Debian packages: ${missing[*]} =="
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}"
}

find_python() {  # VERSION (3.12): print the path of a Python VERSION, or fail saying how to get one
  local version="$1" candidate
  for candidate in "python$version" \
      "${PYENV_ROOT:-${HOME:-}/.pyenv}"/versions/"$version".*/bin/"python$version" \
      "$("$VENV/bin/uv" python find --no-python-downloads "$version" 2>/dev/null || true)"; do
    [ -n "$candidate" ] || continue
    # a pyenv shim of a version pyenv does not have fails here, as does a missing file
    if [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" \
        = "$version" ]; then
      "$candidate" -c 'import sys; print(sys.executable)'
      return
    fi
  done
  echo "Python $version not found (looked for python$version on PATH, in pyenv's versions" \
    "and among uv's Pythons): install it, e.g. 'pyenv install $version', and run again" >&2
  return 1
}

python_venv() {  # VERSION: make (or reuse) .venv-VERSION with the lock and the package
  local version="$1" venv=".venv-$1" python want
  python="$(find_python "$version")" || exit 1
  want="$( { cat requirements.txt pyproject.toml; echo "$python"; } | sha256)"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.installed" 2>/dev/null)" = "$want" ]; then
    return
  fi
  echo "== setting up $venv with $python ==" >&2
  rm -rf "$venv"
  "$VENV/bin/uv" venv -q --python "$python" "$venv"
  # the universal lock: numpy and scipy of their newest lines where Python >= 3.12
  "$VENV/bin/uv" pip install -q --python "$venv/bin/python" -r requirements.txt
  "$VENV/bin/uv" pip install -q --python "$venv/bin/python" --no-deps -e .
  echo "$want" >"$venv/.installed"
}

# tests/test_run_sh.py sources this file to call its functions: no command then
if [ "${BASH_SOURCE[0]}" != "$0" ]; then return 0; fi
tool_folders

cmd="${1:-}"
case "$cmd" in
  book)
    setup
    # the public edition: the repository's book without the solutions of the exercises the
    # assignments grade and without the instructor part (scripts/student_edition.py)
    build_public --all -W -n --keep-going
    echo "The book is at $(pwd)/_build/html/index.html"
    ;;
  instructor)
    setup
    build_book _build/instructor --all -W -n --keep-going
    echo "The instructor edition is at $(pwd)/_build/instructor/_build/html/index.html"
    ;;
  student)
    setup
    # the same book with every exercise solution removed (scripts/student_edition.py)
    "$PY" scripts/student_edition.py _build/student_src --edition student
    "$VENV/bin/jupyter-book" build _build/student_src --path-output _build/student --all -W -n --keep-going
    echo "The student edition is at $(pwd)/_build/student/_build/html/index.html"
    ;;
  test)
    setup
    rm -rf _build
    # Every notebook runs once, in a fresh kernel, by nbval beside the unit tests (the second
    # pass at numpy's baseline SIMD dispatch is ./run.sh test-dispatch, which .ci/run runs
    # next).  OpenBLAS's settings stay as the machine has them.  Meanwhile the book is built
    # from the notebooks' stored outputs with execution off (scripts/stored_outputs_config.py),
    # warnings as errors; the reader tests then inspect the built pages.  One BLAS thread per process: two test workers and the build share 2 cores.
    export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
    # the grading sandbox (tests/test_grading_forgery.py) needs bubblewrap
    if [ "$(uname -s)" = Linux ]; then need_debian_packages bwrap:bubblewrap; fi
    echo "== book build from the stored outputs (warnings as errors), beside the tests =="
    status=0
    "$PY" scripts/stored_outputs_config.py _build/_config_stored_outputs.yml
    # niced (BUILD_NICE): it fills the cores the tests leave idle; the public edition, as
    # ./run.sh book builds it (tests/test_reader.py checks that no solution of a graded
    # exercise is in it)
    ( BUILD_NICE=10 build_public --config _build/_config_stored_outputs.yml --all -W -n --keep-going
    ) >_build/book-build.log 2>&1 &
    build=$!
    # the slowest notebooks first (xdist's loadfile hands out files in this order), so the
    # longest items start early and the short unit tests fill the end (one path a line,
    # without a space)
    # shellcheck disable=SC2207
    notebooks=($("$PY" scripts/notebook_order.py))
    echo "== unit tests and nbval on every notebook =="
    "$PY" -m pytest "${NBVAL[@]}" "${notebooks[@]}" tests --ignore tests/test_reader.py \
      || status=$?
    wait "$build" || { status=1; tail -n 40 _build/book-build.log; echo "book build failed" >&2; }
    tail -n 3 _build/book-build.log
    echo "== reader tests on the built pages =="
    "$PY" -m pytest tests/test_reader.py -p no:cacheprovider -q || status=$?
    exit "$status"
    ;;
  bench)
    setup
    "$PY" -m pip install -q -r benchmarks/requirements.txt   # quantecon, for comparison only
    for b in benchmarks/bench_*.py; do "$PY" "$b"; done
    ;;
  assignments)
    setup
    # otter assign, per part: student/<part>.ipynb (no solutions, public tests only) and
    # autograder/<part>-autograder_*.zip (every test); it also grades the solutions.
    rm -rf _build/assignments
    for nb in assignments/*/*.ipynb; do
      part="$(basename "$(dirname "$nb")")"
      "$VENV/bin/otter" assign "$nb" "_build/assignments/$part"
    done
    echo "Student notebooks: $(pwd)/_build/assignments/*/student/"
    echo "Autograders and instructor notebooks (rubrics): $(pwd)/_build/assignments/*/autograder/"
    echo "Grade a folder of submissions: ./run.sh grade FOLDER"
    ;;
  grade)
    [ $# -ge 2 ] || { echo "usage: ./run.sh grade FOLDER [CSV] [--seed N] [--unsafe-no-sandbox]" \
      "| --export-written FOLDER OUT | --merge-hand SCORES_CSV HAND_CSV [OUT_CSV]" >&2; exit 2; }
    setup
    # each submission runs in a bubblewrap sandbox (Linux; scripts/grading/sandbox.py) and only
    # plain data comes back; the tests run here (scripts/grade.py). Elsewhere grade.py refuses
    # unless --unsafe-no-sandbox is given (README: grading).
    if [ "$(uname -s)" = Linux ]; then need_debian_packages bwrap:bubblewrap; fi
    case "$2" in
      --export-written|--merge-hand) ;;          # no autograder needed: no code runs
      *) compgen -G "_build/assignments/*/autograder/*.zip" >/dev/null || "$0" assignments ;;
    esac
    "$PY" scripts/grade.py "${@:2}"
    ;;
  pdf)
    setup
    need_debian_packages chromium:chromium pdftotext:poppler-utils
    "$PY" scripts/book_pdf.py
    # the contents name the pages the chapters start on; no empty code frame, no interface text
    "$PY" -m pytest tests/test_pdf.py -p no:cacheprovider -q
    ;;
  test-install)
    setup
    # java: Spark's local mode for tests/test_trip_spark.py (Java 17, Debian's package)
    need_debian_packages chromium:chromium java:openjdk-17-jre-headless
    # the optional extra dpmarkov[spark] (pyspark), as pyproject.toml lists it
    # shellcheck disable=SC2046  # one word per requirement
    "$PY" -m pip install -q $("$PY" -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["spark"])')
    [ -f _build/html/index.html ] || build_public --all -W -n --keep-going
    # -rx: the count of code blocks that still scroll sideways is reported (tests/test_browser.py)
    DPMARKOV_TEST_INSTALL=1 "$PY" -m pytest tests/test_install.py tests/test_browser.py \
      tests/test_trip_spark.py -p no:cacheprovider -rx
    ;;
  test-dispatch)
    setup
    # nbval on every notebook with numpy's SIMD dispatch cut to the baseline of its build
    # (scripts/baseline_dispatch.py), as a CPU without AVX2 or AVX-512 would run it: an output
    # that depends on the SIMD level fails here.  OpenBLAS's settings stay as the machine has
    # them.  Apart from ./run.sh test (which runs every notebook once) to keep that command
    # within its 5 minutes; .ci/run runs both.
    export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
    # shellcheck disable=SC2207
    notebooks=($("$PY" scripts/notebook_order.py))
    echo "== nbval on every notebook, numpy at its baseline SIMD dispatch =="
    NPY_DISABLE_CPU_FEATURES="$("$PY" scripts/baseline_dispatch.py)" \
      "$PY" -m pytest "${NBVAL[@]}" -q "${notebooks[@]}"
    ;;
  test-oldest)
    setup
    # The library against the lowest versions pyproject.toml allows (uv's lowest-direct
    # resolution of the package, its parquet, accounting and test extras), in its own venv:
    # the unit tests only (tests/conftest.py leaves out the files that need the book's tools).
    base="$("$PY" -c 'import sys; print(sys._base_executable)')"
    rm -rf .venv-oldest
    "$VENV/bin/uv" venv -q --python "$base" .venv-oldest
    "$VENV/bin/uv" pip install -q --python .venv-oldest/bin/python --resolution lowest-direct \
      -e ".[parquet,accounting,test]"
    "$VENV/bin/uv" pip list -q --python .venv-oldest/bin/python 2>/dev/null \
      | grep -iE '^(numpy|scipy|pandas|sympy|mpmath|python-flint|pyarrow|dp-accounting) '
    OPENBLAS_NUM_THREADS=1 DPMARKOV_UNIT_ONLY=1 .venv-oldest/bin/python -m pytest tests -n 2 \
      -p no:cacheprovider -q
    ;;
  test-pythons)
    setup
    # The unit tests and nbval on every notebook under the other Pythons the lock serves
    # (./run.sh test runs them under 3.11, .venv's), each in its own .venv-VERSION made with
    # uv from requirements.txt (numpy 2.5 and scipy 1.18 there).  Every stored output must
    # come out the same; the reader tests need the built book and stay with ./run.sh test.
    export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
    [ $# -ge 2 ] || set -- "$cmd" 3.12 3.13
    status=0
    for version in "${@:2}"; do
      python_venv "$version"
      py=".venv-$version/bin/python"
      "$py" -m compileall -q dpmarkov >/dev/null
      echo "== Python $version: unit tests and nbval on every notebook =="
      # shellcheck disable=SC2207
      notebooks=($("$py" scripts/notebook_order.py))
      "$py" -m pytest "${NBVAL[@]}" -q "${notebooks[@]}" tests --ignore tests/test_reader.py \
        || status=$?
    done
    exit "$status"
    ;;
  *)
    sed -n '/^#   /p' "$0"; exit 2 ;;
esac

"""Print the numpy SIMD features to disable to run numpy at its baseline dispatch level.

Usage: NPY_DISABLE_CPU_FEATURES="$(python scripts/baseline_dispatch.py)" python ...

numpy compiles some loops for several CPU levels and picks the best one the CPU has at
import.  Cutting them all to the build's baseline (numpy's own switch,
``NPY_DISABLE_CPU_FEATURES``) lets one machine check that no stored output depends on the
SIMD level, as another CPU would (``./run.sh test`` runs nbval that way too).  The names
are read from this numpy (they differ between versions and architectures): every dispatch
target the CPU has.  OpenBLAS's own kernel choice is left as the machine has it.
"""
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

print(" ".join(name for name in __cpu_dispatch__ if __cpu_features__.get(name)))

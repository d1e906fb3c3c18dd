# Run by every notebook kernel that ./run.sh test starts: the variable PYTHONSTARTUP names this
# file, and IPython kernels execute it at start-up (IPKernelApp.exec_PYTHONSTARTUP); plain
# Python scripts, pytest and its workers do not.  Python's cyclic garbage collector then runs
# less often than with its defaults (700, 10, 10): its collections took up to 1 s of CPU in a
# chapter's kernel (0.7-1.0 s in the heaviest; benchmarks/README.md).  Collections only free
# unreachable reference cycles, so no output changes.  No name is bound and there is no
# docstring, so the chapter's namespace stays exactly as a reader's fresh kernel has it.
__import__("gc").set_threshold(50_000, 20, 100)

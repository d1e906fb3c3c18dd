"""dpmarkov.display: the typeset numbers and the glue the chapters use."""
import matplotlib
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import Markdown
from IPython.utils.capture import capture_output
from myst_nb import glue as myst_glue

from dpmarkov.display import glue, latex_number, md_number

matplotlib.use("Agg")


def _outputs(fn, *args):
    InteractiveShell.instance()         # as in a kernel (else display() just prints)
    with capture_output() as cap:
        fn(*args)
    return [(o.data, o.metadata) for o in cap.outputs]


@pytest.mark.parametrize("value", [0.103, "text", Markdown("$7.3 \\times 10^{-4}$"),
                                   np.array([1.0, 2.0]), md_number(2.212)])
@pytest.mark.parametrize("display", [True, False])
def test_glue_writes_what_myst_nb_glue_writes(value, display):
    # the book's build reads these outputs: any difference in the MIME types, the prefix or
    # the scrapbook metadata would lose the value (or show it where it should be hidden)
    ours = _outputs(glue, "key", value, display)
    theirs = _outputs(myst_glue, "key", value, display)
    assert ours == theirs and len(ours) == 1
    data, meta = ours[0]
    assert meta["scrapbook"] == {"name": "key", "mime_prefix": "" if display else
                                 "application/papermill.record/"}
    assert all(k.startswith(meta["scrapbook"]["mime_prefix"]) for k in data)


def test_glue_figure_and_input_policy():
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    assert _outputs(glue, "fig", fig, False) == _outputs(myst_glue, "fig", fig, False)
    plt.close(fig)
    for bad in [("", 1.0, True), (3, 1.0, True)]:
        with pytest.raises(TypeError, match="name"):
            glue(*bad)
    with pytest.raises(TypeError, match="display"):
        glue("key", 1.0, "no")


def test_latex_number_forms():
    assert latex_number(7.3e-4, 2) == "7.3 \\times 10^{-4}"
    assert latex_number(9.999e-5, 3) == "1.00 \\times 10^{-4}"     # rounds into the next decade
    assert latex_number(12345.6, 3) == "12{,}346"
    assert latex_number(0) == "0"
    assert md_number(0.103).data == "$0.103$"

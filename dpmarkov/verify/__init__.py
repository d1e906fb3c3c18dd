"""Independent checks of the float formulas: mpmath twins (``highprec``)."""

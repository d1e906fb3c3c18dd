"""Real data for the book, shipped as package data (see data/PROVENANCE-*.md).

Each module loads one kind of data; the loaders return numpy arrays (and a pandas
table of names where useful).  Imports are lazy (PEP 562), as for ``dpmarkov`` itself:
a name's module is imported on first use, so counting trip files (``count_trips``) does
not import pandas or the other loaders.
"""
import importlib as _importlib

#: Where each public name lives: the module that defines it (imported on first use).
_EXPORTS = {
    "credit": ("load_credit_ratings",),
    "grades": ("load_grades",),
    "preprocess": ("prepare_chain",),
    "sequences": ("load_dna", "load_weather"),
    "taxi": ("TripCounts", "count_pairs", "load_taxi_counts", "load_taxi_zones",
             "trip_counts"),
    "synthetic_trips": ("write_synthetic_trips",),
    "trip_files": ("count_trips", "trip_counts_from_file"),
    "trip_spark": ("count_trips_spark",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "TripCounts", "count_pairs", "count_trips", "count_trips_spark",
    "load_credit_ratings", "load_dna", "load_grades", "load_taxi_counts", "load_taxi_zones",
    "load_weather", "prepare_chain", "trip_counts", "trip_counts_from_file",
    "write_synthetic_trips",
]


#: The loader modules, reachable as ``dm.datasets.<module>`` (imported on first use).
_SUBMODULES = frozenset(_EXPORTS) | {"taxi_monthly"}


def __getattr__(name):
    """Import a public name's module (or a loader module) on first use and keep it here."""
    module = _WHERE.get(name, name if name in _SUBMODULES else None)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = _importlib.import_module(f".{module}", __name__)
    globals()[name] = value = getattr(value, name) if name in _WHERE else value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))

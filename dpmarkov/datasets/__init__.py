"""Real data for the book, shipped as package data (see data/PROVENANCE-*.md).

Each module loads one kind of data; the loaders return numpy arrays (and a pandas
table of names where useful).
"""
from .credit import load_credit_ratings
from .grades import load_grades
from .preprocess import prepare_chain
from .sequences import load_dna, load_weather
from .taxi import load_taxi_counts, load_taxi_zones, trip_counts, trip_counts_from_file

__all__ = [
    "load_credit_ratings", "load_dna", "load_grades", "load_taxi_counts", "load_taxi_zones",
    "load_weather", "prepare_chain", "trip_counts", "trip_counts_from_file",
]

"""Real data for the book, shipped as package data (see data/PROVENANCE-*.md).

Each module loads one kind of data; the loaders return numpy arrays (and a pandas
table of names where useful).
"""
from .credit import load_credit_ratings
from .grades import load_grades
from .preprocess import prepare_chain
from .sequences import load_dna, load_weather
from .taxi import TripCounts, count_pairs, load_taxi_counts, load_taxi_zones, trip_counts
from .synthetic_trips import write_synthetic_trips
from .trip_files import count_trips, trip_counts_from_file
from .trip_spark import count_trips_spark

__all__ = [
    "TripCounts", "count_pairs", "count_trips", "count_trips_spark",
    "load_credit_ratings", "load_dna", "load_grades", "load_taxi_counts", "load_taxi_zones",
    "load_weather", "prepare_chain", "trip_counts", "trip_counts_from_file",
    "write_synthetic_trips",
]

"""Real data for the book, shipped as package data (see data/PROVENANCE-*.md).

Each module loads one kind of data; the loaders return numpy arrays (and a pandas
table of names where useful).
"""
from .credit import load_credit_ratings
from .grades import load_grades
from .sequences import load_dna, load_weather

__all__ = ["load_credit_ratings", "load_grades", "load_dna", "load_weather"]

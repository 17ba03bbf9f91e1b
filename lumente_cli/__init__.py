"""Lumente: a terminal study companion for programming concepts."""

__version__ = "0.1.0"

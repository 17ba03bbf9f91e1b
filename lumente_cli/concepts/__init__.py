"""The concept library: curated concept files, user files, and their schema."""

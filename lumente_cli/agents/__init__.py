"""The six agents behind typed contracts, and the providers that run them."""

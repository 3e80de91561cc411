"""Adapters: the storage ports implemented on the local disk and on AWS."""

"""Benchmarks for the BFS-QL gateway: `PYTHONPATH=. python -m bench [--quick]` (see README.md)."""

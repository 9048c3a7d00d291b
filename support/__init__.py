"""What the tests and the benchmarks share: synthetic graphs (`synth`), real SPARQL
servers (`servers`), real data converted from packages (`datasets`), the CSR floor
(`csr`), process accounting (`processes`), the questions on published vocabularies
(`questions`) and the agent's conversation (`conversation`).

Imported from the repository root, as `python -m pytest` and `python -m bench` run;
never part of the installed package. It imports neither `tests` nor `bench`
(tests/test_layers.py)."""

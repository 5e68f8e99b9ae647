"""Proofs anyone can check that no completion shorter than a task's minimum exists.

A second encoder of the rules (:mod:`.lights_cnf`), a prover that asks a proof-logging SAT
solver to refute its formula (:mod:`.produce`), and a checker of the proofs in plain Python
(:mod:`.drup`, :mod:`.check`); worlds of independent parts (lights v5 Challenge) are proved
part by part over a partition the checker verifies closed (:mod:`.parts`). The package sits
beside ``arena_gen.envs`` in the import layers and may not import it, so nothing here shares
code with the searches that found the minima.
"""

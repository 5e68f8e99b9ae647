"""Core contracts: seeds, canonical JSON, task records, the env registry, schemas, suite I/O."""

"""Integrity figures (#41): the cost of key redaction against the key's length (a search per
form of the key, as before, against the one-pass trie scan), and the cost of one sealed-secret
derivation (scrypt, what every offline guess at a secret pays).

Reproduce: ``python benchmarks/bench_trust.py [--mb 5]`` from the repository root.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from unittest import mock

from arena_gen.core import redact
from arena_gen.suite.seal import KDF, SCHEME

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def seconds(text: str, key: str, few_forms: int) -> float:
    """One redaction of ``text``, each form searched alone up to ``few_forms`` forms."""
    with mock.patch.object(redact, "_FEW_FORMS", few_forms):
        redact._patterns.cache_clear()
        start = time.perf_counter()
        redact.redact_text(text, [key])
        took = time.perf_counter() - start
    redact._patterns.cache_clear()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=5, help="reply size in millions of characters")
    args = parser.parse_args()
    rng = random.Random(7)
    texts = {"random": "".join(rng.choices(ALPHABET, k=args.mb * 1_000_000)),
             "prose": ("The agent toggled switch 3 and saw lights 1, 4 and 7 turn on. "
                       * (args.mb * 20_000))[:args.mb * 1_000_000]}
    print(f"| reply ({args.mb} M chars) | key chars | search per form (s) | now (s) | "
          f"ratio |")
    print("|---|---|---|---|---|")
    for kind, text in texts.items():
        for n in (16, 64, 256, 1024):
            key = "".join(rng.choices(ALPHABET, k=n))
            old, new = seconds(text, key, 10**9), seconds(text, key, redact._FEW_FORMS)
            print(f"| {kind} | {n} | {old:.2f} | {new:.2f} | {old / new:.2f} |")
    start = time.perf_counter()
    hashlib.scrypt(b"x" * 65, salt=SCHEME.encode(), n=KDF["n"], r=KDF["r"], p=KDF["p"],
                   maxmem=256 * 1024 * 1024, dklen=32)
    print(f"\none sealed-secret derivation (scrypt n={KDF['n']}, r={KDF['r']}, p={KDF['p']}, "
          f"{128 * KDF['n'] * KDF['r'] // 2**20} MiB): {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()

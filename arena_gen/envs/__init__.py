"""The built-in environments, one package each (``lights``, ``trading``, ``energy``, ``repo``).

Each package holds everything about its env (game versions, samplers, verifiers, importer,
agents, rules-text render/parse) and declares its versions in its own ``SPECS``, announced in
the ``arena_gen.envs`` entry-point group like any third-party env (see docs/adding-an-env.md).
Env packages never import each other (an import-linter independence contract).
"""

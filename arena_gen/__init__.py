"""arena-gen: generate, verify, freeze, run and score hidden-rule agent benchmarks."""

__version__ = "0.1.0"


def _register_gym() -> None:
    from .gym_registration import register_gym_envs

    register_gym_envs()


_register_gym()

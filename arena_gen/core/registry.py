"""The env registry: one typed spec per (environment, version), declared by its env's package.

Each env is a package (``arena_gen/envs/<env>/`` for the built-in ones, or a third-party package)
whose ``SPECS`` tuple is announced through the ``arena_gen.envs`` entry-point group; the
registry loads the group on first use, so core never names an env and a plugin needs no edit
of arena-gen. Registering an env gives it the CLI, suite building, verification, the runner, the
scorer and the registry-wide tests.

A spec's parts are the objects themselves or :class:`Lazy` references *into the declaring
package* (``Parts(__name__)("sampler:sample")``), imported only when used, so ``arena-gen show``
loads no solver; a reference can never leave its own package. Versions live side by side, as
Gymnasium keeps CartPole-v0 and -v1: a suite built with version 1 keeps playing and verifying
after version 2 ships, since every task is played by the spec of its own ``env_version``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

from arena_gen.core.errors import RegistryError

if TYPE_CHECKING:
    from arena_gen.core.agent import Agent
    from arena_gen.core.calibration import Calibration
    from arena_gen.core.fingerprint import WorldShape
    from arena_gen.core.game import Game
    from arena_gen.core.odyssey import OdysseyPrompt, ReplyRule
    from arena_gen.core.task import Certificate, Draft, Task

T = TypeVar("T")

#: The entry-point group a package announces its env specs in (a sequence of EnvSpec, or a
#: function returning one).
ENTRY_POINT_GROUP = "arena_gen.envs"


class RegistryWarning(UserWarning):
    """A third-party env plugin could not be loaded (it is skipped; the others still work)."""


@dataclass(frozen=True)
class Lazy(Generic[T]):
    """A part of an env package, named ``module:attr`` relative to that package and imported on
    first use (the name cannot leave the package: ``..`` and absolute names are refused)."""

    package: str
    target: str

    def __post_init__(self) -> None:
        module, _, attr = self.target.partition(":")
        if not module or not attr or module.startswith(".") or ":" in attr:
            raise RegistryError(f"a part of {self.package} must look like 'module:attr' inside "
                                f"that package, got {self.target!r}")

    def load(self) -> T:
        """Import the module inside the package and return the attribute."""
        module_name, _, attr = self.target.partition(":")
        module = importlib.import_module(f"{self.package}.{module_name}")
        try:
            value: T = getattr(module, attr)
        except AttributeError:
            raise RegistryError(f"{module.__name__} has no attribute {attr!r}") from None
        return value

    @property
    def module(self) -> str:
        """The absolute name of the module the part lives in (read without importing it)."""
        return f"{self.package}.{self.target.partition(':')[0]}"


class Parts:
    """Makes :class:`Lazy` parts of one package: ``part = Parts(__name__)``, then
    ``part("game_v1:LightsGame")``."""

    def __init__(self, package: str) -> None:
        self.package = package

    def __call__(self, target: str) -> Lazy[Any]:
        return Lazy(self.package, target)


#: A part: the object itself or a lazy reference into the declaring package.
Part: TypeAlias = T | Lazy[T]
GameFactory = Callable[[Any], "Game[Any, Any, Any]"]
Sampler = Callable[[Mapping[str, Any], Any], "Draft"]
Verifier = Callable[[Any], "Certificate"]
Acceptance = Callable[[Any, Any], str | None]
AgentFactory = Callable[[], "Agent"]
Importer = Callable[[Any], list["Draft"]]
ImportedDraft = Callable[..., "Draft"]
ReplayCheck = Callable[["Task", Any], None]
#: ``random_bound(task) -> p``: the exact probability that the uniform random policy solves a
#: task within its budget, or a mapping ``{"bound": p, "method": ...}`` holding an upper bound,
#: or None where the env has none for that task (the generic fallback applies).
RandomBound = Callable[[Any], "float | Mapping[str, Any] | None"]
#: ``potential(game) -> phi``: the shaping potential of one compiled world, ``phi(state)``
#: (minus a distance to success, or minus the regret against the certificate's witness: see
#: ``arena_gen.train.shaping``), built once per world.
PotentialFactory = Callable[["Game[Any, Any, Any]"], Callable[[Any], float]]
PublicAgain = Callable[[Mapping[str, Any], int, Mapping[str, Any] | None],
                       tuple[dict[str, Any], int]]


def resolve(part: Part[T]) -> T:
    """The object behind a part (a lazy reference is imported)."""
    return part.load() if isinstance(part, Lazy) else part


def accept_solvable(draft: Any, certificate: Any) -> str | None:
    """The default acceptance rule: a solvable candidate is accepted."""
    return None if certificate.solvable else "unsolvable"


@dataclass(frozen=True)
class EnvSpec:
    """What arena-gen knows about one version of one environment: its parts and its facts."""

    name: str
    version: int
    #: A small integer naming the env in every seed path; every version of an env keeps it.
    code: int
    gym_name: str
    #: The package that declares the spec (its source is part of the build cache's key).
    package: str
    game: Part[GameFactory]
    sampler: Part[Sampler]
    presets: Part[Mapping[str, Any]]
    verifier: Part[Verifier]
    accept: Part[Acceptance] | None = None
    #: The env's inductive heuristic (the ladder's ``heuristic`` rung).
    heuristic: Part[AgentFactory] | None = None
    #: The with-rules planner (reads only ``rules_text``; the ladder's top rung).
    planner: Part[AgentFactory] | None = None
    #: Further scripted inductive baselines, by rung name.
    baselines: Mapping[str, Part[AgentFactory]] = field(default_factory=dict)
    #: Model-free rungs by name: memory of what was tried, no model of the rules (systematic
    #: search, non-learning policies); played only by ladders of format 2.
    model_free: Mapping[str, Part[AgentFactory]] = field(default_factory=dict)
    #: The exact random-policy success probability of a task (``random_bound(task) -> p``),
    #: where the state space allows it; without one, calibrations that ask for the bound
    #: (``Calibration.random_epsilon``) use the generic Clopper-Pearson fallback
    #: (:mod:`arena_gen.suite.resistance`).
    random_bound: Part[RandomBound] | None = None
    #: The ladder format this version's certificates carry: 1 (rungs without kinds) or 2 (each
    #: rung records its kind, model-free rungs played).
    ladder_version: int = 1
    #: More agents this env offers by name (``arena-gen run --agent NAME``), e.g. the paper's
    #: scripted trading strategies.
    agents: Mapping[str, Part[AgentFactory]] = field(default_factory=dict)
    #: The ladder targets per suite; a version without one builds uncalibrated suites.
    calibration: Part[Mapping[str, Calibration]] | None = None
    #: An oracle other than the generic one (which plays the certificate's witness).
    oracle: Part[AgentFactory] | None = None
    #: ``importer(path) -> drafts`` for released data, and ``imported_draft``, the one function
    #: of a world and its source facts that builds every draft it returns (verify re-derives).
    importer: Part[Importer] | None = None
    imported_draft: Part[ImportedDraft] | None = None
    #: Env-specific facts a witness replay must reproduce (e.g. the oracle's recorded value).
    replay_check: Part[ReplayCheck] | None = None
    #: How the env's worlds are fingerprinted up to renaming (a
    #: :class:`~arena_gen.core.fingerprint.WorldShape`): streams skip released worlds by it.
    fingerprint: Part[WorldShape] | None = None
    #: The certified shaping potential (a :data:`PotentialFactory`): minus the exact distance
    #: to success from the true state (lights, repo) or minus the regret against the
    #: certificate's witness (trading, energy); ``arena_gen.train.shaping`` turns it into a
    #: dense reward.
    potential: Part[PotentialFactory] | None = None
    #: The curriculum's difficulty levels, easiest first: an ordered mapping ``L1``, ``L2``,
    #: ... to sampler presets (derived from this version's presets), each a stream level.
    levels: Part[Mapping[str, Any]] | None = None
    #: A text env class other than the generic :class:`~arena_gen.core.game_env.GameEnv`.
    env: Part[Callable[..., Any]] | None = None
    #: The fewest steps the released data claims every imported task needs (the import table
    #: shows which tasks' exact minima fall below it), if it claims one.
    released_floor: int | None = None
    #: A fixed horizon of one step per day (trading, energy): a budget never below it.
    daily: bool = False
    #: ``public_again(public, budget, preset) -> (public, budget)``: the public view and turn
    #: budget the sampler gives for a task's public facts (with its preset's config, the
    #: preset's budget): ``verify`` of a sealed suite's public copy, which holds no world,
    #: refuses an edited intro or budget by it.
    public_again: Part[PublicAgain] | None = None
    #: The OdysseyArena harness's facts for this env (steps, windows, prompt), if it has one.
    odyssey: Part[OdysseyProfile] | None = None
    #: The action grammar the LLM prompt states: a note and example actions from ``public``.
    grammar: Part[Grammar] | None = None
    #: Seconds to build one task (sample + verify + ladder) / to verify one, per suite, on one
    #: core: the build and verify schedulers start the slow ones first and size progress bars.
    build_seconds: Mapping[str, float] = field(default_factory=dict)
    verify_seconds: Mapping[str, float] = field(default_factory=dict)
    #: The suites that hold this env when no ``--env`` is given (a plugin joins none unless it
    #: says so, so installing one never changes the bytes of a released suite).
    default_suites: Sequence[str] = ()
    #: Start this env's tasks before all others (its per-task time has the widest spread).
    schedule_first: bool = False
    #: A preview version is registered, playable, verifiable and importable, but is neither the
    #: default for a build that names no version (``get(name)``) nor the one whose grammar
    #: speaks for a version without its own (:func:`part_for`); a suite may still pin it
    #: (``arena_gen.suite.catalog.PINNED``), and it is then released with that suite (the
    #: paper-scale Challenge's versions are).
    preview: bool = False
    #: What certified induction bounds of a task need from the env (issue 39): an object with
    #: ``relabelled_draft(task, world)``, ``relabellings(world, count, seq)``, ``build(worlds,
    #: horizon, seconds=...)`` (the adversary over a pool) and ``min_steps(world)``.
    adversary: Part[Any] | None = None
    #: ``hidden_change(task) -> lines``: each hidden change point of the task's world (energy's
    #: pattern shifts) with its certified minimum detection day, for ``show --reveal`` (issue
    #: 39); no lines for a world without one.
    hidden_change: Part[Callable[[Any], list[str]]] | None = None

    @property
    def gym_id(self) -> str:
        return f"arena_gen/{self.gym_name}-v{self.version}"

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.version)

    def has(self, part: str) -> bool:
        """Whether this version has ``part`` (``planner``, ``importer``, ...) registered."""
        return part in PARTS and getattr(self, part) is not None

    def load(self, part: str) -> Any:
        """Load one named part (``game``, ``sampler``, ``verifier``, ...) of this spec."""
        if part not in PARTS:
            raise RegistryError(f"{part!r} is not a part of an env spec; parts: "
                                f"{', '.join(PARTS)}")
        value = getattr(self, part)
        if value is None:
            raise RegistryError(f"env {self.name!r} v{self.version} has no {part!r} registered")
        return resolve(value)

    def load_baselines(self) -> dict[str, AgentFactory]:
        """The extra inductive baselines, loaded, by rung name."""
        return {name: resolve(p) for name, p in sorted(self.baselines.items())}

    def load_model_free(self) -> dict[str, AgentFactory]:
        """The model-free rungs, loaded, by rung name."""
        return {name: resolve(p) for name, p in sorted(self.model_free.items())}

    def acceptance(self) -> Acceptance:
        """The acceptance rule ``accept(draft, certificate) -> reason or None``; by default
        every solvable candidate is accepted."""
        return self.load("accept") if self.accept is not None else accept_solvable

    def make_game(self, task: Any) -> Any:
        """Compile the task's game (the rules of this env version)."""
        return self.load("game")(task)

    def make(self, task: Any, render_mode: str | None = None, protocol: Any = None) -> Any:
        """The text env for ``task``: the generic env around the task's game (a harness
        ``protocol`` only when one is given, so custom env classes keep working)."""
        extra = {} if protocol is None else {"protocol": protocol}
        if self.env is None:
            from arena_gen.core.game_env import GameEnv

            return GameEnv(self.make_game(task), render_mode=render_mode, **extra)
        return resolve(self.env)(self.make_game(task), render_mode=render_mode, **extra)


#: The loadable parts of a spec (the fields holding code rather than facts).
PARTS = ("game", "sampler", "presets", "verifier", "accept", "heuristic", "planner",
         "calibration", "oracle", "importer", "imported_draft", "replay_check", "env",
         "odyssey", "grammar", "fingerprint", "potential", "levels", "public_again",
         "random_bound", "adversary", "hidden_change")


@dataclass(frozen=True)
class ActionTool:
    """One form of an env's action as a tool (function) call, so ``--action-format tools`` can
    offer it: a name, what it does, its arguments' JSON schema (from the task's ``public``) and
    how a call's arguments are written as the action text the game reads."""

    name: str
    description: str
    parameters: Callable[[dict[str, Any]], dict[str, Any]]
    render: Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Grammar:
    """How an env's actions are written, for prompts: one note and example actions, and the
    same actions as tool calls (None: one generic tool taking the action text)."""

    note: str
    examples: Callable[[dict[str, Any]], list[str]]
    tools: Sequence[ActionTool] | None = None


@dataclass(frozen=True)
class OdysseyProfile:
    """One env under the OdysseyArena reference harness (from its ``infer_multi_turn_*.py``;
    :func:`arena_gen.core.budget.protocol_for` reads the first three fields, the odyssey
    harness in :mod:`arena_gen.agents.harness` the rest)."""

    #: The reference script's ``max_steps``.
    steps: int
    #: Whether the reference observation starts with the feedback line (trading and energy
    #: print the state alone; the feedback stays in ``info`` and the log).
    show_feedback: bool = True
    #: History entries the reference prompt shows (None: all of them).
    window: int | None = None
    #: The env's prompt wording (role, goal and action help, history entry shape, joiner,
    #: current state); None: :data:`arena_gen.core.odyssey.GENERIC_PROMPT`.
    prompt: Part[OdysseyPrompt] | None = None
    #: What a reply plays (lost steps, replays); None:
    #: :func:`arena_gen.core.odyssey.play_as_sent`.
    reply: Part[ReplyRule] | None = None


_REGISTRY: dict[tuple[str, int], EnvSpec] = {}


def register(spec: EnvSpec) -> EnvSpec:
    """Add an env spec; a second spec with the same (name, version), another env's code, or a
    version of an env another package declares, is an error."""
    if spec.key in _REGISTRY:
        raise RegistryError(f"env {spec.name!r} v{spec.version} is already registered")
    for other in _REGISTRY.values():
        if other.code == spec.code and other.name != spec.name:
            raise RegistryError(f"env code {spec.code} is taken by {other.name!r}")
        if other.name == spec.name and other.code != spec.code:
            raise RegistryError(f"env {spec.name!r} has code {other.code}; every version of an "
                                f"env keeps its code (the seed contract names it)")
        if other.name == spec.name and other.package != spec.package:
            raise RegistryError(f"env {spec.name!r} is declared by {other.package}; "
                                f"{spec.package} cannot add versions to it (one package owns "
                                f"an env's versions)")
    _REGISTRY[spec.key] = spec
    return spec


def unregister(name: str, version: int | None = None) -> None:
    """Remove one version of an env, or all of them (tests use this to keep the registry clean)."""
    for key in [k for k in _REGISTRY if k[0] == name and version in (None, k[1])]:
        del _REGISTRY[key]


def versions(name: str) -> list[int]:
    """The registered versions of an env, oldest first."""
    _discover()
    return sorted(v for n, v in _REGISTRY if n == name)


def get(name: str, version: int | None = None) -> EnvSpec:
    """The spec of a registered env: the given version, else the newest one that is not a
    preview (the version ``build`` uses by default)."""
    found = versions(name)
    if not found:
        raise RegistryError(f"unknown env {name!r}; registered: {names()}")
    if version is None:
        current = [v for v in found if not _REGISTRY[(name, v)].preview] or found
        return _REGISTRY[(name, current[-1])]
    try:
        return _REGISTRY[(name, int(version))]
    except KeyError:
        raise RegistryError(f"env {name!r} has no version {version}; this arena-gen has "
                            f"{', '.join(f'v{v}' for v in found)}") from None


def newest_with(name: str, part: str) -> EnvSpec:
    """The newest version of an env (previews included) that has ``part`` registered."""
    for version in reversed(versions(name)):
        spec = _REGISTRY[(name, version)]
        if spec.has(part):
            return spec
    raise RegistryError(f"no version of env {name!r} has a {part!r} registered")


def released_with(name: str, part: str) -> EnvSpec:
    """The newest version of an env that is not a preview and has ``part`` (what speaks for a
    version without its own, :func:`part_for`), else :func:`newest_with`'s."""
    for version in reversed(versions(name)):
        spec = _REGISTRY[(name, version)]
        if spec.has(part) and not spec.preview:
            return spec
    return newest_with(name, part)


def part_for(name: str, version: int | None, part: str) -> EnvSpec:
    """The spec whose ``part`` a task of env version ``version`` uses: that version's when it
    declares one (a task is prompted in its own game's grammar), else :func:`released_with`'s
    (also for ``version`` None, when no task is known)."""
    if version is not None:
        spec = get(name, version)
        if spec.has(part):
            return spec
    return released_with(name, part)


def for_task(task: Any) -> EnvSpec:
    """The spec that plays ``task``: its own env and env version."""
    return get(task.env, task.env_version)


def make_env(task: Any, protocol: Any = None) -> Any:
    """The text env for a task, built by the spec of the task's env version (and a harness
    :class:`~arena_gen.core.protocol.Protocol`, if any)."""
    return for_task(task).make(task, protocol=protocol)


def make_game(task: Any) -> Any:
    """The compiled game of a task, from the spec of the task's env version."""
    return for_task(task).make_game(task)


def names() -> list[str]:
    """Registered env names, ordered by env code (the built-in envs first, as released)."""
    _discover()
    codes = {n: spec.code for (n, _), spec in _REGISTRY.items()}
    return sorted(codes, key=lambda n: (codes[n], n))


def specs() -> list[EnvSpec]:
    """The newest spec of each registered env, in :func:`names` order."""
    return [get(name) for name in names()]


def all_specs() -> list[EnvSpec]:
    """Every registered (env, version) spec, by env then version."""
    return [get(name, v) for name in names() for v in versions(name)]


def suite_envs(suite: str) -> list[str]:
    """The envs a suite holds when no ``--env`` is given: those whose default spec joins it."""
    return [spec.name for spec in specs() if suite in spec.default_suites]


_DISCOVERED = False


def _discover() -> None:
    """Register every spec announced in the ``arena_gen.envs`` entry-point group, once."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    for entry in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP),
                        key=lambda e: e.name):
        ours = entry.value.startswith("arena_gen.")
        try:
            announced = entry.load()
            found = announced() if callable(announced) else announced
            for spec in found:
                if not isinstance(spec, EnvSpec):
                    raise RegistryError(f"announces {type(spec).__name__}, not an EnvSpec")
                register(spec)
        except Exception as exc:
            if ours:  # a broken built-in env is arena-gen's own bug: never hide it
                raise
            warnings.warn(f"env plugin {entry.name!r} ({entry.value}) skipped: "
                          f"{type(exc).__name__}: {exc}", RegistryWarning, stacklevel=3)
    if not _REGISTRY:
        raise RegistryError("no env is registered: arena-gen's entry points are missing "
                            "(install it, e.g. pip install -e .)")

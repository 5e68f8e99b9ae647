"""Detached Ed25519 signatures of suites (#16): keygen, sign, ``verify --signature``; a
signature binds the manifest's bytes to the key the user trusts, and a damaged ``.sig`` is the
project's error naming the file and the JSON path."""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_gen.cli import main
from arena_gen.core.canon import canonical_json, sha256_hex, sha256_of
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.signing import (
    check_signature,
    generate_key,
    key_id,
    public_key_id,
    read_signature,
    sign_suite,
)
from arena_gen.core.suite_io import SIGNATURE, SIGNATURE_TMP, is_our_suite, suite_hash, write_suite
from arena_gen.suite.build import build_suite
from arena_gen.suite.verify import verify_suite
from tests.small_suites import preset_counts


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small unsigned suite (2 lights tasks)."""
    built = build_suite("lite", 7, ["lights"], counts={"lights": 2})
    return write_suite(tmp_path_factory.mktemp("plain") / "suite", built.manifest, built.tasks)


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    generate_key(folder / "a")
    generate_key(folder / "b")
    return {"a": folder / "a", "a.pub": folder / "a.pub", "b.pub": folder / "b.pub"}


@pytest.fixture
def signed(plain: Path, keys: dict[str, Path], tmp_path: Path) -> Path:
    """A fresh copy of the small suite, signed with key a."""
    folder = tmp_path / "signed"
    shutil.copytree(plain, folder)
    sign_suite(folder, keys["a"])
    return folder


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [*args], env=env)


def verify(folder: Path, *args: str) -> Result:
    with preset_counts({"lights": 2}):  # the small suite is the suite of its seed
        return run("verify", str(folder), "--jobs", "1", "--display", "plain", *args)


def assert_clean_failure(result: Result) -> None:
    """Exit 1 with the project's one-line error: no traceback."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


# ------------------------------------------------------------------------- the happy path


def test_keygen_sign_verify(plain: Path, tmp_path: Path) -> None:
    key = tmp_path / "release.key"
    result = run("keygen", str(key))
    assert result.exit_code == 0, result.output
    kid = public_key_id(tmp_path / "release.key.pub")
    assert f"key id {kid}" in result.output and len(kid) == 16
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert (tmp_path / "release.key.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")

    folder = tmp_path / "suite"
    shutil.copytree(plain, folder)
    result = run("sign", str(folder), "--key", str(key))
    assert result.exit_code == 0 and kid in result.output, result.output
    sig_bytes = (folder / SIGNATURE).read_bytes()
    doc = json.loads(sig_bytes)
    raw = base64.b64decode(doc["public_key"])
    assert doc["files"] == {name: sha256_hex((folder / name).read_bytes())
                            for name in ("lights.jsonl", "manifest.json")}
    assert doc["key_id"] == kid == key_id(raw)
    assert sorted(doc) == ["algorithm", "files", "key_id", "public_key", "schema_version",
                           "signature"]
    assert doc["algorithm"] == "ed25519" and doc["schema_version"] == 2
    assert sig_bytes == (json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n").encode()
    assert len(base64.b64decode(doc["signature"])) == 64

    result = verify(folder, "--signature", "--public-key", str(tmp_path / "release.key.pub"))
    assert result.exit_code == 0, result.output
    assert f"the signature verifies against key id {kid}" in result.output


def test_public_key_alone_implies_signature_and_env_vars_follow_the_rule(
        signed: Path, plain: Path, keys: dict[str, Path]) -> None:
    assert verify(signed, "--public-key", str(keys["a.pub"])).exit_code == 0
    result = verify(plain, "--public-key", str(keys["a.pub"]))
    assert_clean_failure(result)
    assert f"FAIL signature: {plain / SIGNATURE}: missing" in result.output
    result = run("verify", str(plain), "--jobs", "1",
                 env={"ARENA_GEN_VERIFY_PUBLIC_KEY": str(keys["a.pub"])})
    assert_clean_failure(result)
    assert "signature fails" in result.output


def test_signature_without_public_key_is_a_usage_error(signed: Path) -> None:
    for args in (["--signature"], ["--signature-file", str(signed / SIGNATURE)]):
        result = verify(signed, *args)
        assert result.exit_code == 2 and "--signature needs --public-key" in result.output
    result = run("verify", str(signed), env={"ARENA_GEN_VERIFY_SIGNATURE": "1"})
    assert result.exit_code == 2 and "--signature needs --public-key" in result.output


def test_signature_file_elsewhere(signed: Path, keys: dict[str, Path], tmp_path: Path) -> None:
    elsewhere = tmp_path / "published.sig"
    (signed / SIGNATURE).rename(elsewhere)
    assert verify(signed, "--public-key", str(keys["a.pub"]), "--signature-file",
                  str(elsewhere)).exit_code == 0
    assert "missing" in (check_signature(signed, keys["a.pub"]) or "")


def test_verify_rebuild_ignores_the_signature(signed: Path, keys: dict[str, Path]) -> None:
    with preset_counts({"lights": 2}):
        report = verify_suite(signed, rebuild=True, public_key=keys["a.pub"])
    assert report.ok and report.rebuild_problems == [] and report.signature_problem is None
    assert report.signed_by == public_key_id(keys["a.pub"])


# ------------------------------------------------------------------------- what must fail


def _rehash_task_edit(folder: Path) -> None:
    """Edit task 0 where plain verify does not look (its recorded verifier seconds) and rehash
    the line, the manifest's task map and suite hash: plain verify passes afterwards."""
    lines = (folder / "lights.jsonl").read_text().splitlines()
    task = json.loads(lines[0])
    task["certificate"]["seconds"] = 123.0
    task["sha256"] = sha256_of({k: v for k, v in task.items() if k != "sha256"})
    lines[0] = canonical_json(task)
    (folder / "lights.jsonl").write_text("\n".join(lines) + "\n")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["tasks"][task["id"]] = task["sha256"]
    manifest["suite_sha256"] = suite_hash(manifest["tasks"])
    (folder / "manifest.json").write_text(canonical_json(manifest) + "\n")


def test_hash_consistent_tamper_fails_only_with_signature(signed: Path,
                                                          keys: dict[str, Path]) -> None:
    _rehash_task_edit(signed)
    assert verify(signed).exit_code == 0  # plain verify cannot see this edit
    result = verify(signed, "--signature", "--public-key", str(keys["a.pub"]))
    assert_clean_failure(result)
    assert f"FAIL signature: {signed / SIGNATURE}, at $.files.lights.jsonl:" in result.output
    assert "its bytes changed after signing" in result.output


def test_tamper_with_the_recorded_sha256_updated_fails_the_signature(
        signed: Path, keys: dict[str, Path]) -> None:
    _rehash_task_edit(signed)
    doc = json.loads((signed / SIGNATURE).read_text())
    doc["files"] = {name: sha256_hex((signed / name).read_bytes()) for name in doc["files"]}
    (signed / SIGNATURE).write_text(json.dumps(doc))
    problem = check_signature(signed, keys["a.pub"]) or ""
    assert problem.startswith(f"{signed / SIGNATURE}, at $.signature: does not verify")


def test_wrong_key_names_both_key_ids(signed: Path, keys: dict[str, Path]) -> None:
    a, b = public_key_id(keys["a.pub"]), public_key_id(keys["b.pub"])
    result = verify(signed, "--public-key", str(keys["b.pub"]))
    assert_clean_failure(result)
    assert f"signed by key id {a}, not by the given key {b}" in result.output


def test_the_key_inside_the_sig_is_never_trusted(signed: Path, keys: dict[str, Path],
                                                tmp_path: Path) -> None:
    """An attacker re-signs a tampered manifest with their own key: its .sig is internally
    consistent, and fails against the trusted key."""
    generate_key(tmp_path / "evil")
    _rehash_task_edit(signed)
    sign_suite(signed, tmp_path / "evil")
    assert check_signature(signed, tmp_path / "evil.pub") is None
    problem = check_signature(signed, keys["a.pub"]) or ""
    assert f"signed by key id {public_key_id(tmp_path / 'evil.pub')}, not by" in problem


def _edit_sig(folder: Path, **fields: Any) -> None:
    doc = json.loads((folder / SIGNATURE).read_text())
    doc.update(fields)
    (folder / SIGNATURE).write_text(json.dumps(doc))


MALFORMED: dict[str, tuple[Any, str]] = {
    "bad base64": (lambda f: _edit_sig(f, signature="!" * 86 + "=="), "at $.signature:"),
    "wrong type": (lambda f: _edit_sig(f, signature=5), "at $.signature: 5 is not of type"),
    "wrong algorithm": (lambda f: _edit_sig(f, algorithm="rsa"), "at $.algorithm:"),
    "wrong key id": (lambda f: _edit_sig(f, key_id="0" * 16), "at $.key_id:"),
    "extra field": (lambda f: _edit_sig(f, note="x"), "at $:"),
    "truncated": (lambda f: (f / SIGNATURE).write_bytes((f / SIGNATURE).read_bytes()[:50]),
                  "invalid JSON"),
    "not UTF-8": (lambda f: (f / SIGNATURE).write_bytes(b'{"algorithm": "\xff"}'),
                  "not UTF-8"),
    "NaN": (lambda f: (f / SIGNATURE).write_bytes(b'{"schema_version": NaN}'), "finite"),
    "huge": (lambda f: (f / SIGNATURE).write_bytes(b" " * 70_000), "larger than"),
    "a folder": (lambda f: ((f / SIGNATURE).unlink(), (f / SIGNATURE).mkdir()), "cannot read"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_signature_is_the_project_error(name: str, signed: Path,
                                                  keys: dict[str, Path]) -> None:
    damage, message = MALFORMED[name]
    damage(signed)
    result = verify(signed, "--public-key", str(keys["a.pub"]))
    assert_clean_failure(result)
    assert f"FAIL signature: {signed / SIGNATURE}" in result.output, result.output
    assert message in result.output, result.output


def test_unusable_keys_fail_before_any_work(signed: Path, keys: dict[str, Path],
                                            tmp_path: Path) -> None:
    result = verify(signed, "--public-key", str(keys["a"]))
    assert_clean_failure(result)
    assert "holds a private key; pass its .pub file" in result.output
    started: list[str] = []
    with pytest.raises(ArenaGenError, match="holds a private key"):
        verify_suite(signed, public_key=keys["a"], on_start=lambda t: started.append(t.id))
    assert started == []  # refused before any task was re-proved
    junk = tmp_path / "junk.pub"
    junk.write_text("-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n")
    for args in (["verify", str(signed), "--public-key", str(junk)],
                 ["verify", str(signed), "--public-key", str(tmp_path / "absent.pub")],
                 ["sign", str(signed), "--key", str(keys["a.pub"])],
                 ["sign", str(signed), "--key", str(tmp_path / "absent")]):
        result = run(*args)
        assert_clean_failure(result)
        assert "key" in result.output and "Traceback" not in result.output


def test_sign_refuses_a_broken_suite(plain: Path, keys: dict[str, Path],
                                     tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(plain, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["suite_sha256"] = "0" * 64
    (folder / "manifest.json").write_text(canonical_json(manifest) + "\n")
    result = run("sign", str(folder), "--key", str(keys["a"]))
    assert_clean_failure(result)
    assert "suite_sha256 does not match" in result.output
    assert not (folder / SIGNATURE).exists()


# ------------------------------------------------------------------------- suite folders


def test_a_signed_suite_is_ours_and_build_force_drops_the_signature(signed: Path) -> None:
    assert is_our_suite(signed)
    (signed / f"{SIGNATURE_TMP}4242").write_text("{")  # left by a killed sign
    assert is_our_suite(signed)
    result = run("build", "--suite", "lite", "--seed", "7", "--env", "lights", "--out",
                 str(signed), "--display", "none")
    assert result.exit_code == 1 and "pass --force" in result.output, result.output
    result = run("build", "--suite", "lite", "--seed", "7", "--env", "lights", "--out",
                 str(signed), "--force", "--display", "none")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in signed.iterdir()) == ["lights.jsonl", "manifest.json"]


def test_a_stranger_file_still_makes_a_folder_not_ours(signed: Path) -> None:
    (signed / "manifest.json.sig.bak").write_text("mine")
    assert not is_our_suite(signed)


def test_signing_again_replaces_the_signature_and_never_deletes_a_file_it_did_not_create(
        signed: Path, keys: dict[str, Path], tmp_path: Path) -> None:
    (signed / f"{SIGNATURE_TMP}4242").write_text("{")  # a user's (or a killed sign's) file
    generate_key(tmp_path / "c")
    sign_suite(signed, tmp_path / "c")
    assert sorted(p.name for p in signed.iterdir()) == [
        f"{SIGNATURE_TMP}4242", "lights.jsonl", "manifest.json", SIGNATURE]
    assert (signed / f"{SIGNATURE_TMP}4242").read_text() == "{"
    assert read_signature(signed / SIGNATURE)["key_id"] == public_key_id(tmp_path / "c.pub")


def test_the_wheel_would_ship_a_signature() -> None:
    setup = (Path(__file__).resolve().parent.parent / "setup.cfg").read_text()
    line = next(x for x in setup.splitlines() if x.startswith("arena_gen.suites ="))
    patterns = [p.strip() for p in line.split("=", 1)[1].split(",")]
    assert any(Path("lite", SIGNATURE).match(p) for p in patterns), patterns


# ------------------------------------------------------------------------- keys


def test_keygen_refuses_to_overwrite(tmp_path: Path) -> None:
    key = tmp_path / "k"
    key.write_text("precious")
    result = run("keygen", str(key))
    assert_clean_failure(result)
    assert "refusing to overwrite" in result.output and key.read_text() == "precious"
    assert not (tmp_path / "k.pub").exists()
    (tmp_path / "j.pub").write_text("published")
    result = run("keygen", str(tmp_path / "j"))
    assert_clean_failure(result)
    assert not (tmp_path / "j").exists() and (tmp_path / "j.pub").read_text() == "published"


def test_key_mode_is_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        generate_key(tmp_path / "k")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "k").stat().st_mode) == 0o600


def test_without_cryptography_every_signing_command_names_the_extra(
        signed: Path, keys: dict[str, Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "cryptography" or m.startswith("cryptography.")]:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    monkeypatch.setitem(sys.modules, "cryptography", None)
    for args in (["keygen", str(tmp_path / "k")],
                 ["sign", str(signed), "--key", str(keys["a"])],
                 ["verify", str(signed), "--signature", "--public-key", str(keys["a.pub"])]):
        result = run(*args)
        assert_clean_failure(result)
        assert "pip install 'arena-gen[sign]'" in result.output, (args, result.output)
    assert not (tmp_path / "k").exists()


# ------------------------------------------------------------------------- fuzz

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=100), st.lists(st.integers(), max_size=3),
                    st.binary(max_size=80).map(lambda b: base64.b64encode(b).decode()))


@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_signatures_end_in_ok_or_the_project_error(
        data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = _fuzz_suite(tmp_path_factory)
    original = _FUZZ["sig"]
    doc = json.loads(original)
    how = data.draw(st.sampled_from(["replace", "delete", "add", "flip", "cut"]))
    field = data.draw(st.sampled_from(sorted(doc)))
    if how == "replace":
        doc[field] = data.draw(_VALUES)
    elif how == "delete":
        del doc[field]
    elif how == "add":
        doc[data.draw(st.text(max_size=5))] = data.draw(_VALUES)
    raw = json.dumps(doc).encode()
    if how == "flip":
        at = data.draw(st.integers(0, len(original) - 1))
        raw = original[:at] + bytes([original[at] ^ data.draw(st.integers(1, 255))]) \
            + original[at + 1:]
    elif how == "cut":
        raw = original[:data.draw(st.integers(0, len(original) - 1))]
    (folder / SIGNATURE).write_bytes(raw)
    try:
        problem = check_signature(folder, _FUZZ["pub"])
    except ArenaGenError:
        return
    if problem is None:  # only a document meaning the same as the original verifies
        got, want = json.loads(raw), json.loads(original)
        for name in ("public_key", "signature"):
            got[name], want[name] = (base64.b64decode(got[name]), base64.b64decode(want[name]))
        assert got == want
    else:
        assert isinstance(problem, str) and str(folder / SIGNATURE) in problem


_FUZZ: dict[str, Any] = {}


def _fuzz_suite(factory: pytest.TempPathFactory) -> Path:
    """One signed suite for every fuzz example (each writes its own .sig over it)."""
    if "folder" not in _FUZZ:
        built = build_suite("lite", 7, ["lights"], counts={"lights": 1})
        root = factory.mktemp("fuzz")
        folder = write_suite(root / "suite", built.manifest, built.tasks)
        generate_key(root / "k")
        sign_suite(folder, root / "k")
        _FUZZ.update(folder=folder, pub=root / "k.pub", sig=(folder / SIGNATURE).read_bytes())
    folder: Path = _FUZZ["folder"]
    return folder

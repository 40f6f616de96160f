"""pytest hooks for pytest-ttsbench. Hooks stay thin: each delegates to a plain module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ttsbench.cases.loader import CASE_SUFFIXES
from pytest_ttsbench.collect import RESULT_PROPERTY, CaseFile
from pytest_ttsbench.config import ConfigError, Settings, load_settings
from pytest_ttsbench.reporting.terminal import write_summary
from pytest_ttsbench.results import ItemResult
from pytest_ttsbench.session import BENCH_KEY, AsrOverrides, BenchSession, default_run_dir, parse_engine_option

RUN_DIR_KEY = "ttsbench_run_dir"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ttsbench", "text-to-speech benchmark (pytest-ttsbench)")
    group.addoption(
        "--tts-engine",
        action="append",
        metavar="NAME[,NAME...]",
        help="engine profile(s) to synthesize with; without it no case is synthesized",
    )
    group.addoption(
        "--tts-results",
        metavar="PATH",
        help="JSON-lines results file, one line per item as it finishes "
        "(default: a new folder under the configured runs_dir)",
    )
    group.addoption("--tts-audio-dir", metavar="DIR", help="where clips are kept (default: beside the results)")
    group.addoption(
        "--tts-asr-model",
        metavar="NAME|PATH",
        help="Whisper model: a name (auto, tiny.en, base, …) or a local CTranslate2 folder",
    )
    group.addoption("--tts-asr-device", metavar="DEVICE", help="faster-whisper device (cpu, cuda, auto)")
    group.addoption("--tts-asr-compute-type", metavar="TYPE", help="faster-whisper compute type (int8, float16…)")
    group.addoption("--tts-asr-beam-size", type=int, metavar="N", help="beam size for decoding")
    group.addoption(
        "--tts-contract",
        choices=("raw", "mono", "bilingual"),
        default="raw",
        help="which text variant of an item is sent (default: raw)",
    )
    group.addoption(
        "--tts-quorum",
        type=int,
        metavar="N",
        help="routes that must agree for a verdict with several ASR routes (default: majority)",
    )
    group.addoption(
        "--tts-breakdown",
        action="append",
        default=[],
        metavar="FACET",
        help="also summarize by this facet (e.g. form); repeatable",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tts: a text-to-speech benchmark item (pytest-ttsbench)")
    try:
        settings = load_settings(Path(config.rootpath))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from exc
    engines = parse_engine_option(config.getoption("tts_engine"))
    unknown = [name for name in engines if name not in settings.engines]
    if unknown:
        raise pytest.UsageError(
            f"unknown engine profile(s) {', '.join(unknown)}; known: {', '.join(sorted(settings.engines))}"
            f" (define profiles in {settings.source or 'ttsbench.yaml'})"
        )
    workerinput = getattr(config, "workerinput", None)
    results_path, audio_dir = _output_paths(config, settings, engines, workerinput)
    config.stash[BENCH_KEY] = BenchSession(
        settings=settings,
        engine_names=engines,
        asr=AsrOverrides(
            model=config.getoption("tts_asr_model"),
            device=config.getoption("tts_asr_device"),
            compute_type=config.getoption("tts_asr_compute_type"),
            beam_size=config.getoption("tts_asr_beam_size"),
        ),
        results_path=results_path,
        audio_dir=audio_dir,
        contract=config.getoption("tts_contract"),
        quorum=config.getoption("tts_quorum"),
        breakdown=list(config.getoption("tts_breakdown")),
        is_worker=workerinput is not None,
    )
    config.pluginmanager.register(_Recorder(config.stash[BENCH_KEY]), "ttsbench-recorder")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(), "ttsbench-xdist")


def _output_paths(
    config: pytest.Config, settings: Settings, engines: list[str], workerinput: dict | None
) -> tuple[Path | None, Path | None]:
    """Where results and clips go; workers get the controller's choice so a run has one folder."""
    if not engines:
        return None, None
    if workerinput is not None and RUN_DIR_KEY in workerinput:
        results, audio = workerinput[RUN_DIR_KEY]
        return Path(results), Path(audio)
    option = config.getoption("tts_results")
    audio_option = config.getoption("tts_audio_dir")
    if option:
        results = Path(option).resolve()
        audio = Path(audio_option).resolve() if audio_option else results.parent / f"{results.stem}-audio"
    else:
        run_dir = default_run_dir(settings.base_dir, settings.runs_dir, engines)
        results = run_dir / "results.jsonl"
        audio = Path(audio_option).resolve() if audio_option else run_dir / "audio"
    return results, audio


class _Recorder:
    """Records each finished result; on the controller it receives every worker's reports too."""

    def __init__(self, bench: BenchSession) -> None:
        self.bench = bench

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.bench.is_worker or report.when != "call":
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY:
                self.bench.record(ItemResult.from_dict(json.loads(value)))


class _XdistHooks:
    """Hooks that exist only when pytest-xdist is installed."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:  # type: ignore[no-untyped-def]
        bench: BenchSession = node.config.stash[BENCH_KEY]
        if bench.results_path is not None:
            node.workerinput[RUN_DIR_KEY] = (str(bench.results_path), str(bench.audio_dir))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    bench: BenchSession = parent.config.stash[BENCH_KEY]
    explicit = parent.session.isinitpath(file_path)
    if file_path.suffix in CASE_SUFFIXES:
        if explicit or _under_case_dirs(file_path, bench):
            return CaseFile.from_parent(parent, path=file_path)
    elif file_path.suffix == ".jsonl" and explicit:
        return CaseFile.from_parent(parent, path=file_path)
    return None


def _under_case_dirs(path: Path, bench: BenchSession) -> bool:
    base = bench.settings.base_dir
    return any(path.is_relative_to((base / folder).resolve()) for folder in bench.settings.cases)


def pytest_report_header(config: pytest.Config) -> list[str]:
    bench: BenchSession = config.stash[BENCH_KEY]
    if not bench.engine_names:
        return []
    return [f"ttsbench: engines {', '.join(bench.engine_names)}; results -> {bench.results_path}"]


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    bench: BenchSession = config.stash[BENCH_KEY]
    if bench.is_worker or not bench.results:
        return
    write_summary(terminalreporter, bench.results, bench.breakdown, bench.results_path)


def pytest_unconfigure(config: pytest.Config) -> None:
    bench = config.stash.get(BENCH_KEY, None)
    if bench is not None:
        bench.close()

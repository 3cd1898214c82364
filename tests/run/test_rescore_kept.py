"""A published board keeps its episodes (episodes.json.gz) and `todo-bench rescore FOLDER`
rebuilds its summary from them: the same bytes where nothing changed, the scorer's verdict on
an edited episode where something did, one line on a damaged file."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from harness._inspect_private import sample_stores
from harness.commands import main
from harness.results.kept import EPISODES
from harness.results.summary import read_summary, write_summary
from harness.run.rescore_kept import _stores, rescore_kept
from tests.helpers import ROOT


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kept")
    command = ["run", "--model", "sim/sloppy", "--variants", "L0,L3", "--epochs", "1"]
    command += ["--scenarios", "near_duplicates,user_cancels", "--display", "none"]
    assert main([*command, "--out", str(root / "run"), "--publish", str(root / "board")]) == 0
    return root / "board"


def copy(board: Path, tmp_path: Path) -> Path:
    shutil.copytree(board, tmp_path / "board")
    return tmp_path / "board"


def kept(folder: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(gzip.decompress((folder / EPISODES).read_bytes()))
    return data


def test_a_published_board_keeps_every_episode_in_a_few_hundred_bytes_each(board: Path) -> None:
    episodes = kept(board)["episodes"]
    assert isinstance(episodes, list) and len(episodes) == 2 * 2
    assert (board / EPISODES).stat().st_size < 1000 * len(episodes)
    assert {(e["variant"], e["scenario"]) for e in episodes} == {
        (v, s) for v in ("L0-rewrite", "L3-granular") for s in ("near_duplicates", "user_cancels")
    }


def test_rescore_rebuilds_the_summary_byte_for_byte(
    board: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy(board, tmp_path)
    before = (folder / "summary.json").read_bytes()
    assert main(["rescore", str(folder)]) == 0
    assert (folder / "summary.json").read_bytes() == before
    assert "re-scored 4 kept episodes" in capsys.readouterr().out


def test_an_edited_episode_is_scored_again_not_copied(board: Path, tmp_path: Path) -> None:
    """The kept ledger is what the summary comes from: an item taken out of a list the agent
    wrote is one more dropped todo on its row."""
    folder = copy(board, tmp_path)
    data = kept(folder)
    episodes = data["episodes"]
    assert isinstance(episodes, list)
    episode = next(e for e in episodes if e["variant"] == "L0-rewrite")
    ledger = json.loads(episode["ledger_json"])
    writes = [e for e in ledger["events"] if e["kind"] == "todo" and e["accepted"] and e["after"]]
    last = writes[-1]
    last["after"] = last["after"][:-1]
    episode["ledger_json"] = json.dumps(ledger)
    (folder / EPISODES).write_bytes(gzip.compress(json.dumps(data).encode()))

    def dropped(path: Path) -> float:
        summary = json.loads((path / "summary.json").read_text())
        (row,) = [v for v in summary["variants"] if v["variant"] == "L0-rewrite"]
        return float(sum(e["values"]["dropped_todos"] for e in row["per_episode"]))

    before = dropped(folder)
    assert main(["rescore", str(folder)]) == 0
    assert dropped(folder) >= before + 1


def test_a_damaged_kept_file_is_one_line(
    board: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy(board, tmp_path)
    (folder / EPISODES).write_bytes(b"not gzip")
    assert main(["rescore", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{EPISODES}: not a kept-episodes file" in err


def test_the_same_run_keeps_the_same_bytes(board: Path, tmp_path: Path) -> None:
    command = ["run", "--model", "sim/sloppy", "--variants", "L0,L3", "--epochs", "1"]
    command += ["--scenarios", "near_duplicates,user_cancels", "--display", "none"]
    assert main([*command, "--out", str(tmp_path / "run"), "--publish", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b" / EPISODES).read_bytes() == (board / EPISODES).read_bytes()


#: every committed board that keeps its episodes (results/latest at least)
KEPT_BOARDS = sorted(p.parent for p in (ROOT / "results").rglob(EPISODES))


def test_the_default_board_keeps_its_episodes() -> None:
    assert ROOT / "results" / "latest" in KEPT_BOARDS


@pytest.mark.parametrize("committed", KEPT_BOARDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_committed_board_is_rebuilt_from_its_kept_episodes(
    committed: Path, tmp_path: Path
) -> None:
    """Rescoring a committed board's kept episodes gives its summary byte for byte (a scoring
    change that moves a number fails here until the board is rescored), from its summary and
    episodes alone, as a fresh clone has them (no logs, no run.json). `todo-bench rescore`'s
    rendering of the other formats is the small board's test above, not repeated per board."""
    folder = tmp_path / "board"
    folder.mkdir()
    for name in ("summary.json", EPISODES):
        shutil.copy(committed / name, folder / name)
    summary = rescore_kept(str(folder), read_summary(str(folder / "summary.json")))
    write_summary(summary, str(folder / "summary.json"))
    assert (folder / "summary.json").read_bytes() == (committed / "summary.json").read_bytes()


def test_a_run_folder_keeps_its_episodes_and_rescores_without_its_logs(
    board: Path, tmp_path: Path
) -> None:
    """A board made with `--out` (results/products, results/hard, ...) is committed without its
    logs and run.json: its kept episodes rebuild it all the same."""
    run = board.parent / "run"
    assert kept(run)["episodes"] == kept(board)["episodes"]
    folder = tmp_path / "committed"
    folder.mkdir()
    for name in ("summary.json", EPISODES):
        shutil.copy(run / name, folder / name)
    before = (folder / "summary.json").read_bytes()
    assert main(["rescore", str(folder)]) == 0
    assert (folder / "summary.json").read_bytes() == before


def test_a_run_s_episodes_are_read_from_its_logs_bytes_as_inspect_reads_them(
    board: Path, tmp_path: Path
) -> None:
    """The kept episodes come from each `.eval` log's samples read as plain JSON (9x less CPU
    than inspect's models): the same id, epoch and store as `read_eval_log` gives; a log that is
    no such zip, or a sample without a store, is read through inspect instead."""
    logs = sorted((board.parent / "run" / "logs").rglob("*.eval"))
    assert logs
    for path in logs:
        log = read_eval_log(str(path))
        expected = sorted((str(s.id), s.epoch, dict(s.store)) for s in log.samples or [])
        assert sorted(sample_stores(path.read_bytes()) or []) == expected
        as_json = tmp_path / f"{path.stem}.json"
        write_eval_log(log, str(as_json))
        assert sorted(_stores(str(as_json))) == expected  # inspect's own reading
    assert sample_stores(b"not a zip") is None
    member = io.BytesIO()
    with zipfile.ZipFile(member, "w") as archive:
        archive.writestr("samples/x_epoch_1.json", json.dumps({"id": "x", "epoch": 1}))
    assert sample_stores(member.getvalue()) is None  # no store: not the layout it knows

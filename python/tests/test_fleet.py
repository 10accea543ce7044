# SPDX-License-Identifier: GPL-2.0-or-later
"""python3 -m e2map.fleet on real Dask: a LocalCluster, and a
dask-scheduler with two dask-worker processes started here on 127.0.0.1
(one of which dies mid-job).  54 images of mixed kinds (raw ext2/3/4 made
by mke2fs -d, GPT disks raw, E01 and QCOW2, a corrupt and a truncated
one); the dataset is checked against `e2map scan` run image by image."""
import gzip
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import e2map_cli

HERE = Path(__file__).resolve().parent
KINDS = [("ext4", "4096"), ("ext4", "1024"), ("ext3", "1024"), ("ext2", "4096")]


def make_tree(root: Path, rnd: random.Random) -> None:
    for d in range(rnd.randint(1, 4)):
        sub = root / ("d%d" % d)
        sub.mkdir(parents=True)
        for f in range(rnd.randint(1, 12)):
            p = sub / ("f%d.bin" % f)
            with open(p, "wb") as out:
                for _ in range(rnd.randint(0, 3)):
                    out.seek(rnd.randint(0, 1 << 20))
                    out.write(os.urandom(rnd.randint(1, 70000)))
        os.symlink("d%d" % d, root / ("l%d" % d))
    os.link(root / "d0" / "f0.bin", root / "hard")


@pytest.fixture(scope="module")
def fleet_images(tmp_path_factory):
    if not shutil.which("mke2fs"):
        pytest.skip("no mke2fs")
    base = tmp_path_factory.mktemp("fleet")
    rnd = random.Random(21)
    images = []
    for i in range(50):
        tree = base / ("tree%d" % i)
        make_tree(tree, rnd)
        fs, bs = KINDS[i % len(KINDS)]
        img = base / ("img%02d.%s" % (i, fs))
        subprocess.run(["mke2fs", "-q", "-F", "-t", fs, "-b", bs, "-d",
                        str(tree), "-E", "root_owner=0:0", str(img), "8M"],
                       check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, E2FSPROGS_FAKE_TIME="1700000000"))
        shutil.rmtree(tree)
        images.append(str(img))
    (base / "corrupt.img").write_bytes(os.urandom(1 << 20))
    with open(images[0], "rb") as f:
        (base / "truncated.img").write_bytes(f.read(300 * 1024))
    images += [str(base / "corrupt.img"), str(base / "truncated.img")]
    disks = os.environ.get("E2MAP_DISKS", "")
    for name in ("gpt.img", "gpt.E01", "gpt.qcow2"):
        if os.path.exists(os.path.join(disks, name)):
            shutil.copy(os.path.join(disks, name), base / name)
            images.append(str(base / name))
    return images


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return e


def fleet(*args, **kw):
    return subprocess.run([sys.executable, "-m", "e2map.fleet", *args],
                          env=env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=180,
                          **kw)


def cli_scan(image: str, partition):
    argv = [e2map_cli(), "scan", "--format", "jsonl"]
    if partition is not None:
        argv += ["--partition", str(partition)]
    p = subprocess.run(argv + [image], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p, [json.loads(l) for l in p.stdout.splitlines()]


def check_dataset(out: Path, images):
    rows = [json.loads(l) for l in (out / "manifest.jsonl").open()]
    assert {r["image"] for r in rows} == set(images)
    total_written = 0
    for r in rows:
        p, cli = cli_scan(r["image"], r["partition"])
        if r["status"] == "error":
            assert not cli, r           # the CLI refuses it too
            assert r["error"]["errno"] and p.returncode != 0
            continue
        with gzip.open(out / r["records_file"], "rt") as f:
            got = [json.loads(l) for l in f]
        assert got == cli[:-1], r["id"]
        assert r["summary"] == cli[-1]["summary"]
        assert r["records"] == cli[-1]["summary"]["inodes"]
        total_written += cli[-1]["summary"]["written_bytes"]
        events = [json.loads(l) for l in gzip.open(out / r["timeline_file"])]
        named = sum(len(x["paths"]) for x in got if x["atime"])
        assert len(events) >= 3 * named and all(
            {"message", "datetime", "timestamp_desc"} <= e.keys()
            for e in events)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["total"]["written_bytes"] == total_written
    assert summary["total"]["failed_filesystems"] == 2   # corrupt, truncated
    assert summary["total"]["images"] == len(images)
    return rows


def test_fleet_on_a_local_cluster(fleet_images, tmp_path):
    out = tmp_path / "ds"
    p = fleet("scan", *fleet_images, "--out", str(out), "--workers", "2",
              "--timeline")
    assert p.returncode == 0, p.stderr
    rows = check_dataset(out, fleet_images)
    assert len(rows) >= 54
    # A rerun skips what is done, and says so.
    before = {f: f.stat().st_mtime_ns for f in (out / "done").iterdir()}
    p = fleet("scan", *fleet_images, "--out", str(out), "--workers", "1",
              "--timeline")
    assert p.returncode == 0, p.stderr
    assert "(%d skipped as done" % len(rows) in p.stderr
    assert before == {f: f.stat().st_mtime_ns
                      for f in (out / "done").iterdir()}
    # du: the same totals; find: files by glob and by content hash.
    p = fleet("du", *fleet_images, "--workers", "2")
    assert p.returncode == 0, p.stderr
    du = json.loads(p.stdout)
    assert du["total"] == json.loads((out / "summary.json").read_text())["total"]
    want = __import__("hashlib").sha256(
        _read_first_file(fleet_images[1])).hexdigest()
    p = fleet("find", *fleet_images, "--workers", "2", "--sha256", want)
    hits = [json.loads(l) for l in p.stdout.splitlines()]
    assert any(h["image"] == fleet_images[1] and "/d0/f0.bin" in h["paths"]
               for h in hits), p.stdout
    assert all(h["sha256"] == want for h in hits)
    p = fleet("find", *fleet_images, "--workers", "2", "--path", "/l*",
              "--type", "symlink")
    hits = [json.loads(l) for l in p.stdout.splitlines()]
    assert len({h["image"] for h in hits}) >= 50


def _read_first_file(image):
    import e2map
    with e2map.open(image) as img, img.open("/d0/f0.bin") as f:
        return f.read()


def test_fleet_on_a_scheduler_and_two_workers(fleet_images, tmp_path):
    """dask-scheduler and dask-worker as a lab runs them; one worker dies
    as it starts its third task, and the job still finishes whole."""
    sched_file = tmp_path / "scheduler.json"
    marker = tmp_path / "died"
    e = env()
    e["E2MAP_DIED_MARKER"] = str(marker)
    common = ["--no-dashboard"]
    procs = [subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--scheduler-file",
                               str(sched_file)] + common, env=e,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        for _ in range(300):
            if sched_file.exists() and sched_file.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        for preload in ([], ["--preload", str(HERE / "dying_worker.py")]):
            procs.append(subprocess.Popen(
                ["dask-worker", "--scheduler-file", str(sched_file),
                 "--nthreads", "1", "--nworkers", "1", "--no-nanny",
                 "--memory-limit", "1GiB", "--host", "127.0.0.1"]
                + common + preload, env=e, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        from distributed import Client
        with Client(address, timeout=60) as c:
            c.wait_for_workers(2, timeout=60)
        out = tmp_path / "ds"
        p = fleet("scan", *fleet_images, "--out", str(out), "--scheduler",
                  address, "--timeline")
        assert p.returncode == 0, p.stderr
        assert marker.exists(), "the dying worker never died"
        rows = check_dataset(out, fleet_images)
        assert sum(r["status"] == "ok" for r in rows) == len(rows) - 2
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_fleet_formats_hashes_and_redo(fleet_images, tmp_path):
    """--format csv and body are the CLI's bytes; --sha256 hashes the
    image file; --redo scans again what a run finished."""
    import hashlib
    few = fleet_images[:4] + [f for f in fleet_images if "E01" in f]
    for fmt in ("csv", "body"):
        out = tmp_path / fmt
        args = ["scan", *few, "--out", str(out), "--workers", "1",
                "--format", fmt, "--sha256", "--no-progress"]
        assert fleet(*args).returncode == 0
        first = {f.name: f.stat().st_mtime_ns
                 for f in (out / "done").iterdir()}
        p = fleet(*args, "--redo")
        assert p.returncode == 0 and "(0 skipped as done" in p.stderr
        for r in map(json.loads, (out / "manifest.jsonl").open()):
            with open(r["image"], "rb") as f:
                assert r["sha256"] == hashlib.sha256(f.read()).hexdigest()
            argv = [e2map_cli(), "scan", "-q", "--format", fmt]
            if r["partition"] is not None:
                argv += ["--partition", str(r["partition"])]
            want = subprocess.run(argv + [r["image"]],
                                  stdout=subprocess.PIPE).stdout
            with gzip.open(out / r["records_file"]) as f:
                assert f.read() == want, r["id"]
        assert all(f.stat().st_mtime_ns != first[f.name]
                   for f in (out / "done").iterdir())


def test_fleet_shows_dasks_progress_bar_on_a_terminal(fleet_images):
    """On a terminal (stderr a pty) Dask's bar is drawn there; stdout
    keeps du's JSON whole."""
    import pty
    try:
        master, slave = pty.openpty()
    except OSError as e:       # a chroot without /dev/pts
        pytest.skip("no pseudo-terminal here: %s" % e)
    p = subprocess.Popen([sys.executable, "-m", "e2map.fleet", "du",
                          *fleet_images[:6], "--workers", "1"], env=env(),
                         stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    out, _ = p.communicate(timeout=120)
    os.close(master)
    assert p.returncode == 0
    assert json.loads(out)["total"]["filesystems"] == 6
    assert b"[####" in shown and b"100% Completed" in shown, shown[-300:]

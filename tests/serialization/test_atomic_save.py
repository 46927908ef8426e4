"""Saving to a path: atomic, as open(path, "wb") would for modes, symlinks and permissions."""

from __future__ import annotations

import errno
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import zlib

import pytest

import dyngrad

TEMP = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-(?P<host>[0-9a-f]{8})-[0-9a-f]{8}\.tmp")
HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes, signals and symlinks")


def _temps(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if TEMP.fullmatch(n))


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    dyngrad.save({"epoch": 1}, path)

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        dyngrad.save({"epoch": 2}, path)
    monkeypatch.undo()
    assert dyngrad.load(path) == {"epoch": 1}
    assert os.listdir(tmp_path) == ["ckpt.pt"]


def _wait_for(predicate, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out")


HANG_IN_FSYNC = (
    "import os, sys, time, dyngrad\n"
    "os.fsync = lambda fd: time.sleep(120)  # hang once the bytes are written, before rename\n"
    "dyngrad.save({'epoch': 2, 'w': dyngrad.zeros(16 * 2**20)}, sys.argv[1])  # 64 MB\n"
)


def test_temp_files_of_killed_saves_are_removed_by_the_next_save(tmp_path):
    path = tmp_path / "ckpt.pt"
    dyngrad.save({"epoch": 1}, path)
    for _ in range(2):
        child = subprocess.Popen([sys.executable, "-c", HANG_IN_FSYNC, str(path)])
        try:
            mine = f".ckpt.pt.{child.pid}-{HOST}-"
            temp = _wait_for(lambda: [n for n in _temps(tmp_path) if n.startswith(mine)])[0]
            _wait_for(lambda: os.path.getsize(tmp_path / temp) > 64 * 2**20)
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=60)
        assert dyngrad.load(path) == {"epoch": 1}  # the old checkpoint, whole
        # 64 MB left behind, but only by the last kill: each save removes the earlier ones'
        assert _temps(tmp_path) == [temp]
    dyngrad.save({"epoch": 3}, path)
    assert os.listdir(tmp_path) == ["ckpt.pt"]
    assert dyngrad.load(path) == {"epoch": 3}


def test_only_stale_temp_files_of_the_same_target_are_removed(tmp_path):
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    dead, alive = int(finished.stdout), os.getppid()
    names = {
        f".ckpt.pt.{dead}-{HOST}-0123abcd.tmp": False,  # its writer is gone: removed
        f".ckpt.pt.{alive}-{HOST}-0123abcd.tmp": True,  # a save in progress: kept
        f".ckpt.pt.{os.getpid()}-{HOST}-0123abcd.tmp": True,  # this process's own
        f".ckpt.pt.{dead}-00000000-0123abcd.tmp": True,  # another host's (shared disk)
        f".other.pt.{dead}-{HOST}-0123abcd.tmp": True,  # another target's
        ".ckpt.pt.backup": True,  # not a dyngrad temporary file
    }
    if HOST == "00000000":
        pytest.skip("this host's name hashes to the other host's tag")
    for name in names:
        (tmp_path / name).write_bytes(b"partial")
    dyngrad.save([1], tmp_path / "ckpt.pt")
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["ckpt.pt"] + [n for n, keep in names.items() if keep]
    )


# ---- modes, owners, symlinks, permissions: as open(path, "wb") ------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_the_mode_open_gives(tmp_path, umask):
    old = os.umask(umask)
    try:
        dyngrad.save([1], tmp_path / "new.pt")
        with open(tmp_path / "reference", "wb"):
            pass
    finally:
        os.umask(old)
    mode = stat.S_IMODE(os.stat(tmp_path / "new.pt").st_mode)
    assert mode == stat.S_IMODE(os.stat(tmp_path / "reference").st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o604])
def test_replacing_a_file_keeps_its_mode(tmp_path, mode):
    path = tmp_path / "ckpt.pt"
    dyngrad.save([1], path)
    os.chmod(path, mode)
    dyngrad.save([2], path)
    assert stat.S_IMODE(os.stat(path).st_mode) == mode and dyngrad.load(path) == [2]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_replacing_a_file_keeps_its_owner_when_root_saves(tmp_path):
    path = tmp_path / "ckpt.pt"
    dyngrad.save([1], path)
    os.chown(path, 1234, 5678)
    dyngrad.save([2], path)
    info = os.stat(path)
    assert (info.st_uid, info.st_gid) == (1234, 5678)


def test_saving_through_a_symlink_replaces_its_target(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    dyngrad.save({"run": 7}, runs / "run7.pt")
    (tmp_path / "latest.pt").symlink_to(os.path.join("runs", "run7.pt"))
    (tmp_path / "alias.pt").symlink_to("latest.pt")  # a chain of links
    dyngrad.save({"run": 8}, tmp_path / "alias.pt")
    assert os.readlink(tmp_path / "latest.pt") == os.path.join("runs", "run7.pt")
    assert os.readlink(tmp_path / "alias.pt") == "latest.pt"
    assert dyngrad.load(runs / "run7.pt") == {"run": 8}
    assert sorted(os.listdir(runs)) == ["run7.pt"]  # the temp went beside the target


def test_saving_through_a_dangling_symlink_creates_its_target(tmp_path):
    (tmp_path / "latest.pt").symlink_to("run9.pt")
    dyngrad.save({"run": 9}, tmp_path / "latest.pt")
    assert os.path.islink(tmp_path / "latest.pt")
    assert dyngrad.load(tmp_path / "run9.pt") == {"run": 9}


def _open_error(path) -> OSError | None:
    try:
        with open(path, "ab"):  # "ab": asks what "wb" would, without truncating the file
            return None
    except OSError as exc:
        return exc


def test_a_read_only_file_is_refused_as_open_refuses_it(tmp_path):
    # Root may write any file, so as root open() and save() both succeed here; any other
    # user gets open()'s PermissionError from both. The next two tests cover each side.
    path = tmp_path / "frozen.pt"
    dyngrad.save([1], path)
    os.chmod(path, 0o444)
    expected = _open_error(path)
    if expected is None:
        dyngrad.save([2], path)
        assert dyngrad.load(path) == [2] and stat.S_IMODE(os.stat(path).st_mode) == 0o444
        return
    with pytest.raises(PermissionError) as info:
        dyngrad.save([2], path)
    assert str(info.value) == str(expected) and dyngrad.load(path) == [1]


def test_a_file_the_user_may_not_write_is_left_alone(tmp_path, monkeypatch):
    # what the kernel answers a non-root user for a 0o444 file, asked through os.access
    path = tmp_path / "frozen.pt"
    dyngrad.save([1], path)
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: mode != os.W_OK)
    with pytest.raises(PermissionError) as info:
        dyngrad.save([2], path)
    assert str(info.value) == f"[Errno {errno.EACCES}] Permission denied: '{path}'"
    monkeypatch.undo()
    assert dyngrad.load(path) == [1] and os.listdir(tmp_path) == ["frozen.pt"]


@pytest.mark.skipif(not hasattr(os, "fork") or os.geteuid() != 0, reason="needs root and fork")
def test_a_read_only_file_is_refused_to_a_user_without_root():
    # root drops to `nobody` in a forked child (no new interpreter: nobody may not run ours)
    directory = tempfile.mkdtemp()
    try:
        os.chmod(directory, 0o777)
        path = os.path.join(directory, "frozen.pt")
        dyngrad.save([1], path)
        os.chmod(path, 0o444)
        pid = os.fork()
        if pid == 0:  # the child: exit 0 if refused as open() refuses, 1 if not, 2 if skip
            code = 2
            try:
                os.setgid(65534)
                os.setuid(65534)
                code = 1
                dyngrad.save([2], path)
            except PermissionError as exc:
                code = 0 if str(exc) == f"[Errno 13] Permission denied: '{path}'" else 1
            finally:
                os._exit(code)
        done = _wait_for(lambda: (status := os.waitpid(pid, os.WNOHANG))[0] and status)
        code = os.waitstatus_to_exitcode(done[1])
        if code == 2:
            pytest.skip("cannot drop privileges here")
        assert code == 0 and dyngrad.load(path) == [1] and os.listdir(directory) == ["frozen.pt"]
    finally:
        for name in os.listdir(directory):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


def test_a_directory_is_refused_as_open_refuses_it(tmp_path):
    (tmp_path / "dir.pt").mkdir()
    with pytest.raises(IsADirectoryError) as info:
        dyngrad.save([1], tmp_path / "dir.pt")
    assert str(info.value) == str(_open_error(tmp_path / "dir.pt"))
    assert os.listdir(tmp_path) == ["dir.pt"]


def test_a_missing_directory_is_reported_as_open_reports_it(tmp_path):
    path = tmp_path / "nowhere" / "ckpt.pt"
    with pytest.raises(FileNotFoundError) as info:
        dyngrad.save([1], path)
    assert str(info.value) == str(_open_error(path))

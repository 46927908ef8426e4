"""`save` / `load`: checkpoints that never run code on load, PyTorch's .pt and .safetensors in."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import socket
import stat
import zipfile
import zlib

from ._checkpoint_manifest import MANIFEST, read_manifest, write_manifest
from ._safetensors import is_safetensors, load_safetensors, safetensors_bytes
from ._torch_checkpoint import load_torch_checkpoint

__all__ = ["save", "load"]

# Note [Load errors]
# Whatever is wrong with a file, `load` raises one error that names the file and says what
# is wrong: RuntimeError("<file> is corrupt: ...") for damaged archives, records and
# manifests (PyTorch's first sentence where it has one), and pickle.UnpicklingError("Weights
# only load failed. <file>: ...") for a PyTorch pickle that asks for more than data (see
# Note [Untrusted pickles]). Never an IndexError or TypeError from deep inside, and never
# an allocation the file's own bytes do not justify.

# The largest ratio of a member's size to its compressed size, per zip method. PyTorch
# reads stored and deflated members only; deflate cannot exceed 1032:1, so a member that
# claims more is a zip bomb or corrupt, and is refused before it is inflated.
_EXPANSION = {zipfile.ZIP_STORED: 1, zipfile.ZIP_DEFLATED: 1032}
# What reading a damaged archive raises (json's errors and the manifest's checks are ValueErrors)
_CORRUPT = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, KeyError, ValueError)


def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
) -> None:
    """Matches `torch.save` for tensors, state_dicts and containers; the format is dyngrad's.

    `f` is a path or a writable binary file. A path ending in `.safetensors` writes that
    format (a flat dict of tensors; needs the `safetensors` package). Writes to a path are
    atomic, where torch's are not: a crash leaves the old file or the new one, never half of
    one (see Note [Atomic saves] for temporary files and permissions).

    >>> dyngrad.save(model.state_dict(), "model.pt")
    """
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        _write_atomic(f, safetensors_bytes(obj))
        return
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        write_manifest(obj, archive)
    if _is_path(f):
        _write_atomic(f, buffer.getvalue())
    else:
        f.write(buffer.getvalue())


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Matches `torch.load` for dyngrad checkpoints, PyTorch's zip checkpoints and .safetensors.

    PyTorch checkpoints (`torch.save` since 1.6) are read without torch, through an unpickler
    that rebuilds only tensors, parameters and plain containers and refuses anything else:
    with any `weights_only` value, dyngrad never runs code from a file. Tensors saved on a
    device load there unless `map_location` says otherwise; tensors that shared memory when
    saved by torch share it when loaded, as in torch.
    """
    name = os.fspath(f) if _is_path(f) else getattr(f, "name", "<file object>")
    data = _read_all(f)

    if is_safetensors(data, name):
        return load_safetensors(data, name, map_location)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise RuntimeError(_not_a_zip(name, data)) from None
    with archive:
        try:
            _check_members(archive, name)
            if MANIFEST in archive.namelist():
                return read_manifest(archive, name, map_location)
            return load_torch_checkpoint(archive, name, map_location)
        except _CORRUPT as exc:
            raise RuntimeError(f"{name} is corrupt: {exc}") from None


def _check_members(archive: zipfile.ZipFile, name: str) -> None:
    for info in archive.infolist():
        expansion = _EXPANSION.get(info.compress_type)
        if expansion is None:
            raise RuntimeError(
                f"PytorchStreamReader failed retrieving file meta-data for {info.filename}: "
                f"unsupported method. {name} is corrupt, or compressed with zip method "
                f"{info.compress_type}: checkpoints are stored or deflated."
            )
        if info.flag_bits & 0x1:
            raise RuntimeError(f"{name} is corrupt: its member {info.filename} is encrypted")
        if info.file_size > expansion * info.compress_size + 64:
            raise RuntimeError(
                f"{name} is corrupt: its member {info.filename} claims {info.file_size} "
                f"bytes, more than its {info.compress_size} compressed bytes can hold"
            )


# ---- files ---------------------------------------------------------------------------------


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def _read_all(f) -> bytes:
    if _is_path(f):
        with open(f, "rb") as handle:
            return handle.read()
    return f.read()


def _not_a_zip(name: str, data: bytes) -> str:
    if data[:1] == b"\x80" or data[:2] == b"PK":
        problem = (
            "it was written by torch.save before PyTorch 1.6 (the legacy format, which "
            "dyngrad does not read: re-save it with a recent PyTorch)"
            if data[:1] == b"\x80"
            else "it is truncated or corrupt"
        )
    else:
        problem = (
            "it is neither a zip archive (dyngrad, PyTorch >= 1.6) nor a .safetensors "
            "file; it may be truncated or corrupt"
        )
    return (
        "PytorchStreamReader failed reading zip archive: failed finding central "
        f"directory.\n{name}: {problem}."
    )


# Note [Atomic saves]
# A save to a path behaves as `open(path, "wb")` would, except that nobody ever sees half a
# file. Through symlinks: the link stays and its target is replaced (`latest.pt -> run7.pt`
# keeps working). The bytes go to a temporary file beside the target, named
#     .<target's name>.<pid>-<host>-<random>.tmp
# (the name's first 200 characters; <host>: 8 hex digits of the host name's CRC-32;
# <random>: 8 hex digits), flushed to disk and renamed over the target: a crash leaves the
# whole old file or the whole new one. The new file keeps the old one's mode (and owner,
# where the saver may set it) or, for a new file, gets 0o666 less the umask, as open() gives.
# A target open() could not write (no write permission for the effective user, asked of
# os.access: root may, as with open()) raises the PermissionError open() would, rather than
# being replaced behind its back; a directory that may not be written fails the save (the
# rename needs it), even where open() could have truncated the file in place. A save killed
# before its rename leaves its temporary file; the next save to the same target deletes
# those whose writer is dead (same host, pid gone), never a live writer's.

_TEMP_NAME = ".{name}.{pid}-{host}-{token}.tmp"
_NAME_IN_TEMP = 200  # characters of the target's name kept: a file name has at most 255


def _write_atomic(path, payload: bytes) -> None:
    target = os.path.realpath(os.fspath(path))  # through symlinks, as open(path, "wb") goes
    directory, name = os.path.split(target)
    old = _writable_target(target, os.fspath(path))
    _remove_stale_temps(directory, name)
    fd, temp = _create_temp(directory, name, os.fspath(path))
    try:
        with os.fdopen(fd, "wb") as out:
            if old is not None:
                _keep_owner_and_mode(out.fileno(), old)
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _create_temp(directory: str, name: str, given: str) -> tuple[int, str]:
    fields = {"pid": os.getpid(), "host": _host(), "token": os.urandom(4).hex()}
    temp = os.path.join(directory, _TEMP_NAME.format(name=name[:_NAME_IN_TEMP], **fields))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(temp, flags, 0o666), temp  # 0o666: the umask applies, as for open()
    except OSError as exc:  # name the path the caller gave, as open() would
        raise type(exc)(exc.errno, exc.strerror, given) from None


def _writable_target(target: str, given: str) -> os.stat_result | None:
    """The target's stat (None if it does not exist yet), or open()'s error for it."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), given)
    effective = os.access in os.supports_effective_ids  # open() checks the effective user
    if not os.access(target, os.W_OK, effective_ids=effective):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), given)
    return info


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):  # only root (or the owner, for a group) may
            os.fchown(fd, old.st_uid, old.st_gid)
    if hasattr(os, "fchmod"):  # after fchown, which clears set-user-id bits
        os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _host() -> str:
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _remove_stale_temps(directory: str, name: str) -> None:
    stem = name[:_NAME_IN_TEMP]
    pattern = re.compile(
        rf"\.{re.escape(stem)}\.(?P<pid>\d+)-(?P<host>[0-9a-f]{{8}})-[0-9a-f]{{8}}\.tmp"
    )
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    host = _host()
    for entry in entries:
        found = entry.startswith("." + stem) and pattern.fullmatch(entry)
        if found and found["host"] == host and not _alive(int(found["pid"])):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, entry))


def _alive(pid: int) -> bool:
    if os.name == "nt" or pid == os.getpid():  # on Windows, os.kill(pid, 0) terminates pid
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # EPERM: alive, another user's; or no pid at all
        return True
    return True


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

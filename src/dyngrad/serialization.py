"""`save` / `load`: PyTorch's checkpoint format both ways, read without running the file's code."""

from __future__ import annotations

import contextlib
import errno
import io
import mmap as _mmap
import os
import pickle
import platform
import re
import stat
import warnings
import zlib
from typing import TYPE_CHECKING

from ._checkpoint_manifest import MANIFEST, read_manifest
from ._checkpoint_names import ALLOWED_VALUES, PLAIN_CALLABLES, TENSOR_REBUILDERS, qualified_name
from ._checkpoint_records import locate_pickle
from ._checkpoint_trusted import load_trusted
from ._checkpoint_writer import archive_name, pickle_checkpoint, write_checkpoint
from ._safe_globals import (
    add_safe_globals,
    allowed_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)
from ._safetensors import is_safetensors, load_safetensors, safetensors_bytes
from ._torch_checkpoint import load_weights_only

if TYPE_CHECKING:  # zipfile (and the pathlib it loads) is imported by load and save
    import zipfile

__all__ = [
    "get_unsafe_globals_in_checkpoint",
    "save",
    "load",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
]

# Note [Load errors]
# Whatever is wrong with a file, `load` raises one error that names the file and says what
# is wrong: RuntimeError("<file> is corrupt: ...") for damaged archives, records and
# manifests (PyTorch's first sentence where it has one), and pickle.UnpicklingError("Weights
# only load failed. <file>...") for a PyTorch pickle that asks for more than data (see
# Note [Untrusted pickles]): for a name it may not use, PyTorch's message with its two ways
# out (weights_only=False, add_safe_globals). Never an IndexError or TypeError from deep
# inside, and never an allocation the file's own bytes do not justify.

# The largest ratio of a member's size to its compressed size, per zip method. PyTorch
# reads stored and deflated members only; deflate cannot exceed 1032:1, so a member that
# claims more is a zip bomb or corrupt, and is refused before it is inflated.
_EXPANSION = {0: 1, 8: 1032}  # zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
# What reading a damaged archive raises (json's errors and the manifest's checks are ValueErrors;
# zipfile's BadZipFile and LargeZipFile join them in `load`, which imports zipfile)
_CORRUPT = (zlib.error, EOFError, KeyError, ValueError)
_TRUE = ("1", "y", "yes", "true")


def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Matches `torch.save`: writes PyTorch's own format, which torch.load reads.

    `f` is a path or a writable binary file. Tensors, Parameters, dtypes, Size and devices are
    written under torch's names (see Note [Writing torch.save files]); anything else is
    pickled as torch pickles it, so a whole Module can be saved, and loads only where its
    classes are trusted. A path ending in `.safetensors` writes that format (a flat dict of
    tensors; needs the `safetensors` package). Writes to a path are atomic, where torch's are
    not: a crash leaves the old file or the new one, never half of one (see Note [Atomic
    saves] for temporary files and permissions).

    >>> dyngrad.save(model.state_dict(), "model.pt")
    """
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        payload = safetensors_bytes(obj)
        _write_atomic(f, lambda out: out.write(payload))
        return
    if pickle_module is not None and pickle_module is not pickle:
        raise TypeError(
            f"dyngrad.save pickles with Python's pickle module, not {pickle_module!r}: leave "
            "pickle_module unset"
        )
    if not _use_new_zipfile_serialization:
        raise ValueError(
            "dyngrad.save writes the zip format of torch.save (PyTorch >= 1.6) only, not the "
            "legacy format (_use_new_zipfile_serialization=False), which dyngrad cannot read"
        )
    pickled, storages = pickle_checkpoint(obj, pickle_protocol)  # before any file is touched
    name = archive_name(f if _is_path(f) else None)

    def write(out) -> None:
        write_checkpoint(out, name, pickled, storages)

    if _is_path(f):
        _write_atomic(f, write)
    else:
        write(f)


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Matches `torch.load`: PyTorch's checkpoints (dyngrad's own among them) and .safetensors.

    With `weights_only=True` (the default, as in torch) the pickle is run by an interpreter
    that rebuilds only tensors, parameters, plain containers and the globals marked safe with
    `add_safe_globals` / `safe_globals`, and refuses anything else with PyTorch's "Weights
    only load failed" error: no code from the file runs. `weights_only=False` unpickles with
    pickle itself (for files you trust: it runs what the file names), torch's classes read as
    dyngrad's. Tensors saved on a device load there unless `map_location` says otherwise;
    tensors that shared memory when saved share it when loaded. `mmap=True` maps a file's
    storages instead of reading them (copy-on-write, as torch's).
    Checkpoints in dyngrad's earlier format (dyngrad/manifest.json) load as before.
    """
    weights_only = _weights_only(weights_only, pickle_module)
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    name = os.fspath(f) if _is_path(f) else getattr(f, "name", "<file object>")
    data = _map(f) if mmap else _read_all(f)

    if is_safetensors(data, name):
        return load_safetensors(bytes(data), name, map_location)
    user_globals = allowed_globals() if weights_only else {}  # their errors are the caller's
    import zipfile  # here, not at `import dyngrad`: with the pathlib it loads, 10 ms

    corrupt = (zipfile.BadZipFile, zipfile.LargeZipFile, *_CORRUPT)
    try:
        archive = zipfile.ZipFile(os.fspath(f) if mmap else io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise RuntimeError(_not_a_zip(name, data, mmap)) from None
    with archive:
        try:
            _check_members(archive, name)
            if MANIFEST in archive.namelist():
                return read_manifest(archive, name, map_location)
            mapped = data if mmap else None
            if weights_only:
                return load_weights_only(archive, name, map_location, mapped, user_globals)
            return load_trusted(
                archive, name, map_location, mapped, pickle_module, **pickle_load_args
            )
        except corrupt as exc:
            raise RuntimeError(f"{name} is corrupt: {exc}") from None


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """Matches `torch.serialization.get_unsafe_globals_in_checkpoint`: the globals a
    checkpoint's pickle names that a weights_only load would refuse (unless marked safe with
    `add_safe_globals`), read from its opcodes: nothing in the file runs."""
    import pickletools
    import zipfile

    name = os.fspath(f) if _is_path(f) else getattr(f, "name", "<file object>")
    data = _read_all(f)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise RuntimeError(_not_a_zip(name, data)) from None
    with archive:
        pickled = locate_pickle(archive, name)[0]
    safe = allowed_globals()
    found, strings, memo = [], [], {}
    for op, arg, _ in pickletools.genops(pickled):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
            strings.append(arg)
        elif op.name in ("BINPUT", "LONG_BINPUT", "PUT") and strings:
            memo[arg] = strings[-1]
        elif op.name == "MEMOIZE" and strings:
            memo[len(memo)] = strings[-1]
        elif op.name in ("BINGET", "LONG_BINGET", "GET") and arg in memo:
            strings.append(memo[arg])
        elif op.name == "GLOBAL":
            found.append(tuple(arg.split(" ", 1)))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.append((strings[-2], strings[-1]))
    unsafe = set()
    for module, global_name in found:
        key = qualified_name(module, global_name)
        known = key in ALLOWED_VALUES or key in PLAIN_CALLABLES or key in TENSOR_REBUILDERS
        if not known and key not in safe:
            unsafe.add(f"{module}.{global_name}")
    return sorted(unsafe)


def _weights_only(weights_only: bool | None, pickle_module) -> bool:
    """torch.load's choice: True unless a pickle module is given or the environment says."""
    unset = weights_only is None
    if unset:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    force_not = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    if force and force_not:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force:
        weights_only = True
    elif force_not and unset:
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
            "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
            "weights_only=False.",
            stacklevel=3,
        )
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    return bool(weights_only)


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


def _map(f) -> _mmap.mmap:
    """The file at path `f`, mapped copy-on-write: its arrays may be written, the file stays."""
    if not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with open(f, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            raise RuntimeError(_not_a_zip(os.fspath(f), b"", True))
        return _mmap.mmap(handle.fileno(), 0, access=_mmap.ACCESS_COPY)


def _not_a_zip(name: str, data, mmap: bool = False) -> str:
    if mmap and data[:1] == b"\x80":
        return (
            "mmap can only be used with files saved with "
            f"`torch.save({name}, _use_new_zipfile_serialization=True), please torch.save "
            "your checkpoint with this option in order to use mmap."
        )
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


def _write_atomic(path, write) -> None:
    """Calls `write(file)` on a temporary file, then renames it over `path`."""
    target = os.path.realpath(os.fspath(path))  # through symlinks, as open(path, "wb") goes
    directory, name = os.path.split(target)
    old = _writable_target(target, os.fspath(path))
    _remove_stale_temps(directory, name)
    fd, temp = _create_temp(directory, name, os.fspath(path))
    try:
        with os.fdopen(fd, "wb") as out:
            if old is not None:
                _keep_owner_and_mode(out.fileno(), old)
            write(out)
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
    return f"{zlib.crc32(platform.node().encode()):08x}"  # gethostname(), without socket


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

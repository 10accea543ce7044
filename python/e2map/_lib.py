# SPDX-License-Identifier: LGPL-2.1-or-later
"""The extension, and the one way its errors become Python's."""
from __future__ import annotations

import codecs
import errno as _errno
import os
from typing import NoReturn, Optional, Tuple, Union

from ._native import ffi, lib

PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def encode(path: PathArg) -> bytes:
    """A path for C: str through the filesystem encoding, as os does."""
    return os.fsencode(path)


def decode(raw: bytes) -> str:
    """A name for Python, undecodable bytes kept (surrogateescape, as os)."""
    return os.fsdecode(raw)


def detail_of(m) -> str:
    return ffi.string(lib.e2map_errmsg(m)).decode("utf-8", "replace")


def oserror(err: int, detail: str = "", filename=None) -> OSError:
    """OSError(errno) is the subclass Python maps it to (FileNotFoundError,
    IsADirectoryError...); the words are e2map's, with its detail."""
    text = ffi.string(lib.e2map_strerror(err)).decode()
    if detail:
        text = "%s (%s)" % (text, detail)
    if filename is None:
        return OSError(-err, text)
    return OSError(-err, text, filename)


def fail(err: int, m=ffi.NULL, filename=None) -> NoReturn:
    raise oserror(err, detail_of(m), filename)


def _one_per_byte(e: UnicodeError) -> Tuple[str, int]:
    # U+FFFD for each byte that is not UTF-8, as e2map's JSON writes names
    # (Python's own "replace" takes a whole ill-formed sequence at once).
    assert isinstance(e, UnicodeDecodeError)
    return "\ufffd", e.start + 1


codecs.register_error("e2map-per-byte", _one_per_byte)


def json_name(key: str, raw: bytes) -> dict:
    """A name as e2map's JSON writes it: text, and KEY_hex where the bytes
    are not UTF-8."""
    try:
        return {key: raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {key: raw.decode("utf-8", "e2map-per-byte"),
                key + "_hex": raw.hex()}


# Where two names share a number, glibc's strerrorname_np (the CLI's) and
# the kernel recordings use these; Python's errno.errorcode the others.
_PREFERRED = {_errno.EOPNOTSUPP: "EOPNOTSUPP", _errno.EAGAIN: "EAGAIN",
              _errno.EDEADLK: "EDEADLK"}


def errno_name(err: int) -> str:
    """"ENOENT" for -ENOENT, as e2map's JSON names errors."""
    name = _PREFERRED.get(-err) or _errno.errorcode.get(-err)
    return name or "unknown"


def version() -> str:
    return ffi.string(lib.e2map_version(ffi.NULL, ffi.NULL, ffi.NULL)).decode()


def maybe_str(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw else ""

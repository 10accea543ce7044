# SPDX-License-Identifier: LGPL-2.1-or-later
"""One open inode of an image, as a read-only file object."""
from __future__ import annotations

import io
import mmap
import os
import stat
from typing import TYPE_CHECKING, Iterator, List, NamedTuple, Optional, Tuple

from . import _lib
from ._lib import ffi, lib
from .stat import stat_result

if TYPE_CHECKING:
    from .image import Image

# FIEMAP's flags (linux/fiemap.h): the request's and each extent's.
FIEMAP_FLAG_SYNC = 0x1
FIEMAP_FLAG_XATTR = 0x2
FIEMAP_FLAG_CACHE = 0x4
FIEMAP_EXTENT_LAST = 0x1
FIEMAP_EXTENT_UNKNOWN = 0x2
FIEMAP_EXTENT_DELALLOC = 0x4
FIEMAP_EXTENT_ENCODED = 0x8
FIEMAP_EXTENT_DATA_ENCRYPTED = 0x80
FIEMAP_EXTENT_NOT_ALIGNED = 0x100
FIEMAP_EXTENT_DATA_INLINE = 0x200
FIEMAP_EXTENT_DATA_TAIL = 0x400
FIEMAP_EXTENT_UNWRITTEN = 0x800
FIEMAP_EXTENT_MERGED = 0x1000
FIEMAP_EXTENT_SHARED = 0x2000

# FIEMAP asked in batches of this many extents: filefrag's size.
_BATCH = 292
_CHUNK = 1 << 20


class Extent(NamedTuple):
    """One struct fiemap_extent: bytes, and the kernel's FIEMAP_EXTENT_* flags."""
    logical: int
    physical: int
    length: int
    flags: int

    @property
    def last(self) -> bool:
        return bool(self.flags & FIEMAP_EXTENT_LAST)

    @property
    def unwritten(self) -> bool:
        return bool(self.flags & FIEMAP_EXTENT_UNWRITTEN)


class Fiemap(NamedTuple):
    """What one FS_IOC_FIEMAP call answers: fm_flags written back,
    fm_mapped_extents, and the extents copied out."""
    flags: int
    mapped: int
    extents: List[Extent]


class FiemapError(OSError):
    """FIEMAP refused: FLAGS is fm_flags as the call left it (for EBADR,
    the flags it does not support), MAPPED fm_mapped_extents, or None
    where the struct was not copied back."""
    flags: int = 0
    mapped: Optional[int] = None


# fm_mapped_extents before the call: still there after, the ioctl did not
# copy the struct back (no count a file can have).
_NOT_COPIED = 0xDEADBEEF


def _fiemap_buffer(size: int):
    """Room for the extents asked: a large count (the ioctl takes up to
    2^32 - 1) in pages the kernel backs only where extents are written."""
    if size <= _CHUNK:
        return bytearray(size)
    return mmap.mmap(-1, size, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS |
                     getattr(mmap, "MAP_NORESERVE", 0))


class File(io.RawIOBase):
    """An inode of an image opened as open(2) opens it on the mount.

    read/readinto/seek answer as read(2) and lseek(2) on the mount:
    seek(off, os.SEEK_DATA) and os.SEEK_HOLE included.  Made by
    Image.open; closed by close(), a with block, or garbage collection.
    """

    def __init__(self, image: "Image", handle, name) -> None:
        super().__init__()
        self._image = image
        self._f = handle
        self.name = name

    # -- the io.RawIOBase protocol --------------------------------------

    def readable(self) -> bool:
        self._checked()
        return True

    def seekable(self) -> bool:
        # As a file object on the mount: a FIFO is not (ESPIPE).
        return not stat.S_ISFIFO(self.stat().st_mode)

    def writable(self) -> bool:
        self._checked()
        return False

    def readinto(self, b) -> int:
        f = self._checked()
        view = memoryview(b).cast("B")
        if not view.nbytes:
            return 0
        with self._image._lock:
            n = lib.e2map_file_read(f, ffi.from_buffer(view), view.nbytes)
        if n < 0:
            self._fail(n)
        return n

    def readall(self) -> bytes:
        """The rest in large reads, not RawIOBase's 8 KiB ones."""
        chunks: List[bytes] = []
        while True:
            data = self.read(_CHUNK)
            if not data:
                return b"".join(chunks)
            chunks.append(data)

    def pread(self, size: int, offset: int) -> bytes:
        """os.pread: SIZE bytes at OFFSET, the position unchanged."""
        f = self._checked()
        buf = bytearray(size)
        with self._image._lock:
            n = lib.e2map_file_pread(f, ffi.from_buffer(buf), size, offset)
        if n < 0:
            self._fail(n)
        del buf[n:]
        return bytes(buf)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """lseek(2): SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE."""
        f = self._checked()
        with self._image._lock:
            pos = lib.e2map_file_lseek(f, offset, whence)
        if pos < 0:
            self._fail(pos)
        return pos

    def tell(self) -> int:
        return self.seek(0, os.SEEK_CUR)

    def close(self) -> None:
        if self._f is not None:
            with self._image._lock:
                lib.e2map_file_close(self._f)
            self._f = None
            self._image._files.discard(self)
        super().close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # -- beyond a plain file ---------------------------------------------

    def stat(self) -> os.stat_result:
        """fstat(2)."""
        f = self._checked()
        st = ffi.new("struct e2map_stat *", {"version": lib.E2MAP_STAT_VERSION})
        with self._image._lock:
            err = lib.e2map_file_stat(f, st)
        if err < 0:
            self._fail(err)
        return stat_result(st)

    def fiemap_ioctl(self, start: int = 0, length: int = 2**64 - 1,
                     flags: int = 0, count: int = _BATCH) -> Fiemap:
        """One FS_IOC_FIEMAP call, in and out as the ioctl: COUNT 0 only
        counts.  Refused flags raise FiemapError (EBADR) with its flags."""
        f = self._checked()
        # BUF must outlive FM: a cast does not keep it alive.
        buf = _fiemap_buffer(ffi.sizeof("struct fiemap") +
                             count * ffi.sizeof("struct fiemap_extent"))
        fm = ffi.cast("struct fiemap *", ffi.from_buffer(buf))
        fm.fm_start, fm.fm_length, fm.fm_flags = start, length, flags
        fm.fm_extent_count = count
        fm.fm_mapped_extents = _NOT_COPIED
        with self._image._lock:
            err = lib.e2map_file_fiemap(f, fm)
        if err < 0:
            e = FiemapError(-err, _lib.oserror(err, self._detail()).strerror)
            e.flags = fm.fm_flags
            if fm.fm_mapped_extents != _NOT_COPIED:
                e.mapped = fm.fm_mapped_extents
            raise e
        n = min(fm.fm_mapped_extents, count)
        ext = [Extent(x.fe_logical, x.fe_physical, x.fe_length, x.fe_flags)
               for x in fm.fm_extents[0:n]]
        return Fiemap(fm.fm_flags, fm.fm_mapped_extents, ext)

    def fiemap(self, start: int = 0, length: Optional[int] = None,
               flags: int = 0) -> List[Extent]:
        """Every extent over [START, START + LENGTH) (to the end when
        LENGTH is None), asked in batches as filefrag asks them."""
        end = 2**64 - 1 if length is None else min(start + length, 2**64 - 1)
        out: List[Extent] = []
        while start < end:
            got = self.fiemap_ioctl(start, end - start, flags, _BATCH).extents
            out.extend(got)
            if len(got) < _BATCH or got[-1].last:
                break
            start = got[-1].logical + got[-1].length
        return out

    def data_ranges(self) -> Iterator[Tuple[int, int]]:
        """(start, end) of each data region, as SEEK_DATA and SEEK_HOLE
        give them from 0 on (what cp and tar --sparse copy); the position
        is put back after."""
        pos = self.tell()
        try:
            off = 0
            while True:
                try:
                    data = self.seek(off, os.SEEK_DATA)
                except OSError as e:
                    if e.errno == 6:    # ENXIO: no data past OFF
                        return
                    raise
                off = self.seek(data, os.SEEK_HOLE)
                yield data, off
        finally:
            if not self.closed:
                self.seek(pos)

    # -- internals ---------------------------------------------------------

    def _checked(self):
        if self._f is None:
            raise ValueError("I/O operation on closed file.")
        return self._f

    def _detail(self) -> str:
        return _lib.detail_of(self._image._m)

    def _fail(self, err: int):
        raise _lib.oserror(err, self._detail(), self.name)

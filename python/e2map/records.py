# SPDX-License-Identifier: LGPL-2.1-or-later
"""scan(): one record per inode in use, and per name only it reaches, as
`e2map scan --format jsonl` prints them, streamed from a thread."""
from __future__ import annotations

import queue
import stat as S
import threading
from typing import Iterator, List, NamedTuple, Optional

from . import _lib
from ._lib import ffi, lib
from .stat import Timespec

_TYPES = {S.S_IFREG: "regular", S.S_IFDIR: "directory", S.S_IFLNK: "symlink",
          S.S_IFIFO: "fifo", S.S_IFSOCK: "socket", S.S_IFCHR: "chardev",
          S.S_IFBLK: "blockdev"}

# Records handed from the scan's thread a batch at a time, a few batches
# ahead at most: memory stays bounded whatever the inode count.
_BATCH = 256
_AHEAD = 8


class RecordError(NamedTuple):
    """Why a record failed: the kernel's errno and e2map's detail."""
    errno: int
    name: str
    message: str
    detail: str

    def oserror(self) -> OSError:
        return _lib.oserror(-self.errno, self.detail)


class Record:
    """What `e2map scan` says of one inode (or of one name whose lstat
    fails on its own): its names, stat, and what its mapping holds."""
    __slots__ = ("ino", "paths_bytes", "mode", "nlink", "uid", "gid", "rdev",
                 "size", "blocks", "atime", "mtime", "ctime", "crtime",
                 "written", "unwritten", "holes", "past_eof", "meta_blocks",
                 "extents", "fiemap_extents", "inline", "ea_inode", "error",
                 "name_only")

    ino: int
    paths_bytes: List[bytes]     # each name, as the directory holds it
    mode: int
    nlink: int
    uid: int
    gid: int
    rdev: int
    size: int
    blocks: int                  # st_blocks, 512-byte units
    atime: Optional[Timespec]    # None where the stat failed
    mtime: Optional[Timespec]
    ctime: Optional[Timespec]
    crtime: Optional[Timespec]   # None where the inode keeps none
    written: int                 # bytes below i_size: data, inline data
    unwritten: int               # preallocated
    holes: int
    past_eof: int                # mapped from the block after EOF on
    meta_blocks: int             # extent-tree/indirect blocks, xattr block
    extents: int                 # on disk
    fiemap_extents: int          # what a warm FIEMAP returns
    inline: bool
    ea_inode: bool
    error: Optional[RecordError]
    name_only: bool              # a name whose lstat fails on its own

    @property
    def paths(self) -> List[str]:
        return [_lib.decode(p) for p in self.paths_bytes]

    @property
    def type(self) -> str:
        return _TYPES.get(S.S_IFMT(self.mode), "unknown")

    def asdict(self) -> dict:
        """The record as `scan --format jsonl` writes it."""
        def t(v):
            return None if v is None else {"sec": v.sec, "nsec": v.nsec}
        e, u = self.error, _u64
        return {
            "ino": u(self.ino),
            "paths": [_lib.json_name("path", p) for p in self.paths_bytes],
            "type": self.type, "mode": self.mode, "nlink": self.nlink,
            "uid": self.uid, "gid": self.gid, "rdev": u(self.rdev),
            "size": u(self.size), "blocks": u(self.blocks),
            "atime": t(self.atime), "mtime": t(self.mtime),
            "ctime": t(self.ctime), "crtime": t(self.crtime),
            "written": u(self.written), "unwritten": u(self.unwritten),
            "holes": u(self.holes), "past_eof": u(self.past_eof),
            "meta_blocks": u(self.meta_blocks), "extents": u(self.extents),
            "fiemap_extents": u(self.fiemap_extents), "inline": self.inline,
            "ea_inode": self.ea_inode,
            "error": None if e is None else _error_dict(e),
        }

    def __repr__(self) -> str:
        return "<e2map.Record ino=%d %s %r%s>" % (
            self.ino, self.type, self.paths[:1],
            " error=%s" % self.error.name if self.error else "")


# JSON's safe integers end at 2^53 - 1; past them e2map writes a decimal
# string, so that no reader rounds a size.
_JSON_MAX_SAFE = 2**53 - 1


def _u64(v: int):
    return v if v <= _JSON_MAX_SAFE else str(v)


def _error_dict(e: RecordError) -> dict:
    d = {"errno": e.errno, "name": e.name, "message": e.message}
    if e.detail:
        d.update(_lib.json_name("detail", e.detail.encode("utf-8",
                                                          "surrogateescape")))
    return d


def _error(err: int, detail: str) -> Optional[RecordError]:
    if not err:
        return None
    return RecordError(-err, _lib.errno_name(err),
                       ffi.string(lib.e2map_strerror(err)).decode(), detail)


def _record(r, names: List[bytes], detail: str) -> Record:
    rec = Record()
    st = r.st
    full = r.flags & lib.E2MAP_REC_STAT
    rec.ino, rec.paths_bytes = r.ino, names
    rec.mode, rec.nlink, rec.uid, rec.gid = st.mode, st.nlink, st.uid, st.gid
    rec.rdev, rec.size, rec.blocks = st.rdev, st.size, st.blocks
    if full:
        rec.atime = Timespec(st.atime.sec, st.atime.nsec)
        rec.mtime = Timespec(st.mtime.sec, st.mtime.nsec)
        rec.ctime = Timespec(st.ctime.sec, st.ctime.nsec)
    else:
        rec.atime = rec.mtime = rec.ctime = None
    rec.crtime = (Timespec(st.crtime.sec, st.crtime.nsec)
                  if full and st.mask & lib.E2MAP_STAT_CRTIME else None)
    rec.written, rec.unwritten = r.written, r.unwritten
    rec.holes, rec.past_eof = r.holes, r.past_eof
    rec.meta_blocks, rec.extents = r.meta_blocks, r.extents
    rec.fiemap_extents = r.fiemap_extents
    rec.inline = bool(r.flags & lib.E2MAP_REC_INLINE)
    rec.ea_inode = bool(r.flags & lib.E2MAP_REC_EA_INODE)
    rec.error = _error(r.err, detail)
    rec.name_only = False
    return rec


def _stray(ino: int, name: bytes, err: int, detail: str) -> Record:
    """A name whose lstat fails otherwise than its inode's record: a failed
    record of its own, as `e2map scan` prints it."""
    r = ffi.new("struct e2map_record *")
    r.ino, r.err = ino, err
    rec = _record(r, [name], detail)
    rec.name_only = True
    return rec


class Summary:
    """What `e2map scan` sums up after its records: the regular files a
    copy of the mount reads (those with a name), what a naive copy and a
    sparse-aware one move, and the most fragmented files."""

    def __init__(self, top: int = 10) -> None:
        self.inodes = self.errors = self.regular_files = 0
        self.apparent = self.written = self.unwritten = 0
        self.holes = self.past_eof = self.allocated = 0
        self.top = top
        self._frag: list = []

    def add(self, r: Record) -> None:
        self.errors += r.error is not None
        if r.name_only:
            return      # a name, not an inode
        self.inodes += 1
        self.allocated += r.blocks * 512
        if not S.S_ISREG(r.mode) or not r.paths_bytes:
            return
        self.regular_files += 1
        self.apparent += r.size
        self.written += r.written
        self.unwritten += r.unwritten
        self.holes += r.holes
        self.past_eof += r.past_eof
        if r.fiemap_extents >= 2 and self.top:
            self._frag.append((-r.fiemap_extents, -r.extents, r.ino,
                               r.paths_bytes[0]))
            if len(self._frag) > 4 * self.top:
                self._frag = sorted(self._frag)[:self.top]

    def asdict(self) -> dict:
        """The summary line of `scan --format jsonl`."""
        frag = [dict(ino=ino, **_lib.json_name("path", path),
                     fiemap_extents=-fe, extents=-ex)
                for fe, ex, ino, path in sorted(self._frag)[:self.top]]
        u = _u64
        return {"inodes": self.inodes, "errors": self.errors,
                "regular_files": self.regular_files,
                "apparent_bytes": u(self.apparent),
                "written_bytes": u(self.written),
                "unwritten_bytes": u(self.unwritten),
                "hole_bytes": u(self.holes),
                "past_eof_bytes": u(self.past_eof),
                "allocated_bytes": u(self.allocated),
                "naive_copy_bytes": u(self.apparent),
                "sparse_copy_bytes": u(self.written),
                "most_fragmented": frag}


class _Scan:
    """The scan's thread and what it hands over."""

    def __init__(self, m, threads: int) -> None:
        self.m = m
        self.threads = threads
        self.q: "queue.Queue" = queue.Queue(_AHEAD)
        self.batch: List[Record] = []
        self.stop = False
        self.exc: Optional[BaseException] = None
        self.paths = ffi.new("e2map_paths_t **")
        self.names: list = []
        self.handle = ffi.new_handle(self)

    def run(self) -> None:
        err = 0
        try:
            err = lib.e2map_scan_records_named(self.m, self.threads,
                                               self.paths,
                                               lib.e2map_py_on_record,
                                               self.handle)
            if self.batch:
                self.put(self.batch)
        except BaseException as e:   # handed to the reader, never lost
            self.exc = e
        finally:
            lib.e2map_paths_free(self.paths[0])
            if err < 0 and err != lib.E2MAP_EUSER and not self.exc:
                self.exc = _lib.oserror(err, _lib.detail_of(self.m))
            self.put(None)

    def put(self, item) -> bool:
        while not self.stop:
            try:
                self.q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def on_record(self, r, why) -> int:
        if self.stop:
            return lib.E2MAP_EUSER
        detail = ffi.string(why).decode("utf-8", "replace") if why else ""
        self.names = []
        err = lib.e2map_paths_foreach_lstat(self.paths[0], r.ino,
                                            lib.e2map_py_on_name, self.handle)
        if err < 0:
            raise _lib.oserror(err)
        named, strays = [], []
        for path, nerr, ndetail in self.names:
            if nerr and nerr != r.err:
                strays.append(_stray(r.ino, path, nerr, ndetail))
            else:
                named.append(path)
        self.batch.append(_record(r, named, detail))
        self.batch.extend(strays)
        if len(self.batch) >= _BATCH:
            batch, self.batch = self.batch, []
            if not self.put(batch):
                return lib.E2MAP_EUSER
        return 0


@ffi.def_extern(error=-4096)
def e2map_py_on_record(r, why, payload):
    s = ffi.from_handle(payload)
    try:
        return s.on_record(r, why)
    except BaseException as e:
        s.exc = e
        return lib.E2MAP_EUSER


@ffi.def_extern(error=-4096)
def e2map_py_on_name(path, length, err, detail, payload):
    ffi.from_handle(payload).names.append(
        (ffi.unpack(path, length), err,
         ffi.string(detail).decode("utf-8", "replace") if err else ""))
    return 0


def scan(image_path: bytes, options: bytes, threads: int) -> Iterator[Record]:
    """The records of a handle of its own on the image (the caller's Image
    stays free to use while the scan runs), read in a thread."""
    m = ffi.new("e2map_t **")
    err = lib.e2map_open(image_path, options or ffi.NULL, m)
    if err < 0:
        _lib.fail(err, ffi.NULL, _lib.decode(image_path))
    s = _Scan(m[0], threads)
    t = threading.Thread(target=s.run, name="e2map-scan", daemon=True)
    t.start()
    try:
        while True:
            batch = s.q.get()
            if batch is None:
                break
            yield from batch
        if s.exc:
            raise s.exc
    finally:
        s.stop = True
        t.join()
        lib.e2map_close(m[0])

# SPDX-License-Identifier: LGPL-2.1-or-later
"""An image opened read-only: its tree as os sees the mount, its blocks."""
from __future__ import annotations

import enum
import errno
import os
import stat as S
import threading
import weakref
from typing import (Any, Callable, Dict, Iterator, List, NamedTuple, Optional,
                    Tuple, Union)

from . import _lib, records
from ._lib import PathArg, ffi, lib
from .file import File
from .stat import Timespec, birthtime, stat_result

DT_UNKNOWN, DT_DIR, DT_REG, DT_LNK = 0, 4, 8, 10


class State(enum.IntFlag):
    """What a reader should be warned of (e2map_image_state)."""
    MOUNTED = 0x1            # mounted now: answers may be stale
    NEEDS_RECOVERY = 0x2     # journal not replayed: the ro,noload view
    UNMOUNTABLE = 0x4        # the kernel refuses it; opened past that


class StatFS(NamedTuple):
    """What statfs(2) on the mount tells."""
    type: int
    bsize: int
    blocks: int
    bfree: int
    bavail: int
    files: int
    ffree: int
    namelen: int


class Owner(NamedTuple):
    """A range of blocks and who owns it (e2map blockmap): LENGTH blocks
    from START."""
    start: int
    length: int
    kind: str
    ino: int
    lblk: int


class Unallocated(NamedTuple):
    """Space a carver looks through: bytes in the disk."""
    kind: str        # "free", "unowned", "past-eof", "tail"
    offset: int
    length: int
    ino: int


class Failure(NamedTuple):
    """An inode `check` could not walk, with the kernel's errno."""
    ino: int
    error: OSError


class CheckReport(NamedTuple):
    """What `e2map check` found: inodes walked, and those that failed."""
    inodes: int
    failures: List[Failure]


def _refused_as_expected(mode: int, err: int) -> bool:
    # As `e2map check`: a symlink does not open (ELOOP), nor does a
    # special file (ENXIO); neither has a mapping to walk.
    if S.S_ISLNK(mode):
        return err == -errno.ELOOP
    return (not S.S_ISREG(mode) and not S.S_ISDIR(mode)
            and err == -errno.ENXIO)


class Run(NamedTuple):
    """A mapping run as the kernel's block mapper reports it (blocks)."""
    lblk: int
    nblk: int
    pblk: int
    kind: str        # "hole", "data", "unwritten", "inline"


_RUN_KINDS = ("hole", "data", "unwritten", "inline")


class _Sink:
    """A callback's Python end: FN per call; an exception stops the C call
    (E2MAP_EUSER) and is raised in the caller once it returns."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.exc: Optional[BaseException] = None
        self.handle = ffi.new_handle(self)

    def call(self, *args) -> int:
        try:
            return self.fn(*args) or 0
        except BaseException as e:
            self.exc = e
            return lib.E2MAP_EUSER

    def done(self, err: int, m, filename=None) -> None:
        if self.exc:
            raise self.exc
        if err < 0:
            _lib.fail(err, m, filename)


@ffi.def_extern(error=-4096)
def e2map_py_on_xattr(x, payload):
    return ffi.from_handle(payload).call(x)


@ffi.def_extern(error=-4096)
def e2map_py_on_unalloc(u, payload):
    return ffi.from_handle(payload).call(u)


@ffi.def_extern(error=-4096)
def e2map_py_on_check(m, inode, err, detail, payload):
    return ffi.from_handle(payload).call(inode, err, detail)


@ffi.def_extern(error=-4096)
def e2map_py_on_run(run, payload):
    return ffi.from_handle(payload).call(run)


def _options(offset, partition, replay, cache, unmountable) -> bytes:
    opts = []
    if offset is not None:
        opts.append("offset=%d" % offset)
    if partition is not None:
        opts.append("partition=%d" % partition)
    if replay:
        opts.append("replay")
    if cache is not None:
        opts.append("cache=%s" % cache)
    if unmountable:
        opts.append("unmountable")
    return ",".join(opts).encode()


def open(path: PathArg, *, offset: Optional[int] = None,
         partition: Optional[int] = None, replay: bool = False,
         cache: Optional[str] = None, unmountable: bool = False) -> "Image":
    """Open an ext2/3/4 image (a raw filesystem, a partitioned disk, or an
    E01/VMDK/VHD/QCOW2 container) read-only, as `e2map` opens it.

    offset: the filesystem's first byte in the image; partition: its
    number on a disk (as /dev/sdaN); replay: the journal recovered in
    memory first; cache: "cold" (default) or "warm"; unmountable: answer
    past the kernel's refusal to mount.
    """
    return Image(_lib.encode(path),
                 _options(offset, partition, replay, cache, unmountable))


class DirEntry:
    """os.DirEntry for an entry of an image's directory."""
    __slots__ = ("_image", "name", "path", "_ino", "_type", "_lstat",
                 "_stat")

    def __init__(self, image: "Image", name: str, path: str, ino: int,
                 dtype: int) -> None:
        self._image, self.name, self.path = image, name, path
        self._ino, self._type = ino, dtype
        self._lstat: Optional[os.stat_result] = None
        self._stat: Optional[os.stat_result] = None

    def inode(self) -> int:
        return self._ino

    def is_symlink(self) -> bool:
        if self._type != DT_UNKNOWN:
            return self._type == DT_LNK
        return self._test(S.S_ISLNK, False)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._is(DT_DIR, S.S_ISDIR, follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return self._is(DT_REG, S.S_ISREG, follow_symlinks)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        if follow_symlinks and self.is_symlink():
            if self._stat is None:
                self._stat = self._image.stat(self.path)
            return self._stat
        if self._lstat is None:
            self._lstat = self._image.lstat(self.path)
        return self._lstat

    def _is(self, dtype: int, test, follow: bool) -> bool:
        if self._type == DT_UNKNOWN or (follow and self._type == DT_LNK):
            return self._test(test, follow)
        return self._type == dtype

    def _test(self, test, follow: bool) -> bool:
        # As os.DirEntry: a name that stat cannot reach is not a dir/file.
        try:
            return test(self.stat(follow_symlinks=follow).st_mode)
        except FileNotFoundError:
            return False

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return "<e2map.DirEntry %r>" % self.name


class Image:
    """An opened image; every path is the image's ("/etc/passwd"), or
    "<INO>" for an inode by number.  Use it in a with block or close()
    it; a closed image raises ValueError, as a closed file does.

    Calls on one Image are serialized by its lock, so threads may share
    it; for parallel work open one Image per thread or process (each has
    its own caches).  An Image pickles as its path and options and opens
    again where it is unpickled (a Dask worker, another process).
    """

    def __init__(self, path: bytes, options: bytes) -> None:
        self._path, self._options = path, options
        self._m = None
        self._lock = threading.RLock()
        self._files: "weakref.WeakSet[File]" = weakref.WeakSet()
        self._blockmap = None
        out = ffi.new("e2map_t **")
        err = lib.e2map_open(path, options or ffi.NULL, out)
        if err < 0:
            _lib.fail(err, ffi.NULL, _lib.decode(path))
        self._m = out[0]

    # -- life --------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._m is None:
                return
            for f in list(self._files):
                f.close()
            if self._blockmap is not None:
                lib.e2map_blockmap_free(self._blockmap)
                self._blockmap = None
            lib.e2map_close(self._m)
            self._m = None

    @property
    def closed(self) -> bool:
        return self._m is None

    def __enter__(self) -> "Image":
        self._checked()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __reduce__(self):
        return (Image, (self._path, self._options))

    def __repr__(self) -> str:
        return "<e2map.Image %r%s%s>" % (
            _lib.decode(self._path),
            " " + self._options.decode() if self._options else "",
            " closed" if self.closed else "")

    @property
    def path(self) -> str:
        return _lib.decode(self._path)

    # -- the image ---------------------------------------------------------

    @property
    def state(self) -> State:
        with self._lock:
            v = lib.e2map_image_state(self._checked())
        if v < 0:
            self._fail(v)
        return State(v)

    def statfs(self) -> StatFS:
        st = ffi.new("struct e2map_statfs *",
                     {"version": lib.E2MAP_STATFS_VERSION})
        with self._lock:
            err = lib.e2map_statfs(self._checked(), st)
        if err < 0:
            self._fail(err)
        return StatFS(st.type, st.bsize, st.blocks, st.bfree, st.bavail,
                      st.files, st.ffree, st.namelen)

    @property
    def disk_offset(self) -> int:
        """The disk's byte where the filesystem starts."""
        return lib.e2map_disk_offset(self._checked())

    # -- names -------------------------------------------------------------

    def stat(self, path: PathArg, *, follow_symlinks: bool = True
             ) -> os.stat_result:
        """os.stat (os.lstat with follow_symlinks=False) on the mount."""
        return stat_result(self._stat(path, follow_symlinks))

    def lstat(self, path: PathArg) -> os.stat_result:
        return self.stat(path, follow_symlinks=False)

    def birthtime(self, path: PathArg, *, follow_symlinks: bool = True
                  ) -> Optional[Timespec]:
        """statx's btime (None where the inode keeps none)."""
        return birthtime(self._stat(path, follow_symlinks))

    def listdir(self, path: PathArg = "/") -> List[str]:
        """os.listdir on the mount: getdents' order, no "." or ".."."""
        return [e.name for e in self.scandir(path)]

    def scandir(self, path: PathArg = "/") -> Iterator[DirEntry]:
        """os.scandir on the mount (the listing is read whole first, as
        getdents would fail it, then handed out)."""
        raw = _lib.encode(path)
        with self.open(raw) as f, self._lock:
            out = ffi.new("struct e2map_dirlist **")
            err = lib.e2map_dirlist_read(f._checked(), out)
            if err < 0:
                self._fail(err, path)
            lst = out[0]
            try:
                if lst.err < 0:
                    self._fail(lst.err, path)
                ents = [(ffi.unpack(e.name, e.len), e.ino, e.type)
                        for e in lst.entries[0:lst.count]]
            finally:
                lib.e2map_dirlist_free(lst)
        base = raw if raw.endswith(b"/") else raw + b"/"
        as_bytes = isinstance(path, bytes)
        for name, ino, dtype in ents:
            if name in (b".", b".."):
                continue
            if as_bytes:
                yield DirEntry(self, name, base + name, ino, dtype)  # type: ignore[arg-type]
            else:
                yield DirEntry(self, _lib.decode(name),
                               _lib.decode(base + name), ino, dtype)

    def walk(self, top: PathArg = "/", topdown: bool = True,
             onerror: Optional[Callable[[OSError], None]] = None,
             followlinks: bool = False
             ) -> Iterator[Tuple[Any, List[Any], List[Any]]]:
        """os.walk over the mount: (dirpath, dirnames, filenames)."""
        stack: List[Any] = [os.fspath(top)]
        while stack:
            item = stack.pop()
            if isinstance(item, tuple):      # bottom-up: a finished dir
                yield item[0], item[1], item[2]
                continue
            dirs: List[Any] = []
            files: List[Any] = []
            walk_into = []
            try:
                entries = list(self.scandir(item))
            except OSError as err:
                if onerror is not None:
                    onerror(err)
                continue
            for ent in entries:
                is_dir = _or_false(ent.is_dir)     # as os.walk: an entry
                (dirs if is_dir else files).append(ent.name)  # stat fails
                if not topdown and is_dir and (followlinks or  # on is a
                                               not _or_false(ent.is_symlink)):
                    walk_into.append(ent.path)             # file
            if topdown:
                yield item, dirs, files
                for d in reversed(dirs):
                    path = self._join(item, d)
                    if followlinks or not self._islink(path):
                        stack.append(path)
            else:
                stack.append((item, dirs, files))
                stack.extend(reversed(walk_into))

    def readlink(self, path: Union[PathArg, int]) -> Union[str, bytes]:
        """os.readlink: the target (bytes for a bytes path or an inode
        number)."""
        ino = path if isinstance(path, int) else self.lstat(path).st_ino
        out = ffi.new("char **")
        with self._lock:
            n = lib.e2map_inode_readlink_alloc(self._checked(), ino, out)
        if n < 0:
            self._fail(n, path)
        try:
            raw = ffi.unpack(out[0], n)
        finally:
            lib.e2map_free(out[0])
        return raw if isinstance(path, (bytes, int)) else _lib.decode(raw)

    def xattrs(self, path: PathArg) -> Dict[str, bytes]:
        """Every extended attribute of PATH (not followed, as llistxattr),
        root's view, in listxattr's order.  A name whose getxattr fails
        raises that error."""
        got: List[Tuple[bytes, Optional[bytes], int]] = []

        def one(x) -> None:
            name = ffi.unpack(x.name, x.name_len)
            value = (bytes(ffi.buffer(x.value, x.value_len))
                     if not x.err else None)
            got.append((name, value, x.err))
        sink = _Sink(one)
        raw = _lib.encode(path)
        with self._lock:
            err = lib.e2map_path_lxattrs(self._checked(), raw,
                                         lib.e2map_py_on_xattr, sink.handle)
            sink.done(err, self._m, path)
        out: Dict[str, bytes] = {}
        for name, value, err in got:
            if err:
                raise _lib.oserror(err, "", path)
            out[_lib.decode(name)] = value  # type: ignore[assignment]
        return out

    def getxattr(self, path: PathArg, name: str) -> bytes:
        """os.getxattr(path, name, follow_symlinks=False)."""
        raw, key = _lib.encode(path), _lib.encode(name)
        with self._lock:
            n = lib.e2map_path_lgetxattr(self._checked(), raw, key,
                                         ffi.NULL, 0)
            if n < 0:
                self._fail(n, path)
            buf = ffi.new("char[]", max(n, 1))
            n = lib.e2map_path_lgetxattr(self._m, raw, key, buf, n)
            if n < 0:
                self._fail(n, path)
        return ffi.unpack(buf, n)

    # -- files -------------------------------------------------------------

    def open(self, path: Union[PathArg, int], *,
             follow_symlinks: bool = True) -> File:
        """open(2) of PATH read-only (or of inode number PATH, an int, or
        "<INO>"), as a File: readable, seekable, SEEK_DATA/HOLE, FIEMAP."""
        out = ffi.new("e2map_file_t **")
        with self._lock:
            m = self._checked()
            if isinstance(path, int):
                err = lib.e2map_file_open_ino(m, path, out)
                name: Union[str, bytes] = "<%d>" % path
            else:
                flags = 0 if follow_symlinks else lib.E2MAP_O_NOFOLLOW
                err = lib.e2map_file_open_flags(m, _lib.encode(path), flags,
                                                out)
                name = os.fspath(path)
            if err < 0:
                self._fail(err, name)
            f = File(self, out[0], name)
            self._files.add(f)
        return f

    def runs(self, path: Union[PathArg, int]) -> List[Run]:
        """The mapping runs of the whole file, as the block mapper walks it."""
        got: List[Run] = []
        sink = _Sink(lambda r: got.append(
            Run(r.lblk, r.nblk, r.pblk, _RUN_KINDS[r.kind])))
        with self.open(path) as f, self._lock:
            err = lib.e2map_file_walk(f._checked(), 0, 2**64 - 1,
                                      lib.e2map_py_on_run, sink.handle)
            sink.done(err, self._m, path)
        return got

    # -- the whole image ---------------------------------------------------

    def scan(self, threads: int = 0) -> Iterator[records.Record]:
        """One record per inode in use, and per name only a failed lookup
        reaches, in inode order, with the fields of `e2map scan --format
        jsonl` (Record.asdict()).  Streamed: memory does not grow with the
        image.  Made on THREADS workers (0: one per CPU) through a handle
        of its own, so this Image stays usable meanwhile."""
        self._checked()
        return records.scan(self._path, self._options, threads)

    def blockmap(self) -> List[Owner]:
        """Every range of blocks with its owner, sorted by start."""
        b = self._built_blockmap()
        return [_owner(lib.e2map_blockmap_get(b, i))
                for i in range(lib.e2map_blockmap_count(b))]

    def owner(self, block: int) -> Optional[Owner]:
        """Who owns filesystem block BLOCK (None past the filesystem)."""
        o = lib.e2map_blockmap_find(self._built_blockmap(), block, ffi.NULL)
        return _owner(o) if o != ffi.NULL else None

    def unallocated(self) -> List[Unallocated]:
        """Free blocks, unowned in-use blocks and each file's slack."""
        got: List[Unallocated] = []
        sink = _Sink(lambda u: got.append(Unallocated(
            ffi.string(lib.e2map_unalloc_kind_name(u.kind)).decode(),
            u.offset, u.length, u.ino)))
        b = self._built_blockmap()
        with self._lock:
            err = lib.e2map_unallocated(self._m, b, lib.e2map_py_on_unalloc,
                                        sink.handle)
            sink.done(err, self._m)
        return got

    def check(self, threads: int = 0) -> CheckReport:
        """`e2map check`: every inode through the whole mapping walk; the
        inodes that fail, with the kernel's errno."""
        got: List[Failure] = []
        count = [0]

        def one(inode, err, detail) -> None:
            count[0] += 1
            if err and not _refused_as_expected(inode.mode, err):
                got.append(Failure(inode.ino, _lib.oserror(
                    err, ffi.string(detail).decode("utf-8", "replace"))))
        sink = _Sink(one)
        with self._lock:
            err = lib.e2map_check_all(self._checked(), threads,
                                      lib.e2map_py_on_check, sink.handle)
            sink.done(err, self._m)
        return CheckReport(count[0], got)

    # -- internals ---------------------------------------------------------

    def _checked(self):
        if self._m is None:
            raise ValueError("I/O operation on closed image.")
        return self._m

    def _fail(self, err: int, filename=None):
        _lib.fail(err, self._m, filename)

    def _stat(self, path: PathArg, follow: bool):
        st = ffi.new("struct e2map_stat *", {"version": lib.E2MAP_STAT_VERSION})
        call = lib.e2map_path_stat if follow else lib.e2map_path_lstat
        with self._lock:
            err = call(self._checked(), _lib.encode(path), st)
        if err < 0:
            self._fail(err, path)
        return st

    def _built_blockmap(self):
        with self._lock:
            if self._blockmap is None:
                out = ffi.new("e2map_blockmap_t **")
                err = lib.e2map_blockmap_build(self._checked(), out)
                if err < 0:
                    self._fail(err)
                self._blockmap = out[0]
            return self._blockmap

    @staticmethod
    def _join(top, name):
        sep = b"/" if isinstance(top, bytes) else "/"
        return top + name if top.endswith(sep) else top + sep + name

    def _islink(self, path) -> bool:
        try:
            return S.S_ISLNK(self.lstat(path).st_mode)
        except OSError:
            return False


def _or_false(test) -> bool:
    try:
        return test()
    except OSError:
        return False


def _owner(o) -> Owner:
    return Owner(o.start, o.count,
                 ffi.string(lib.e2map_owner_kind_name(o.kind)).decode(),
                 o.ino, o.lblk)

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Records as text: `e2map scan`'s JSON Lines, CSV and body formats (the
tests hold each to the CLI's bytes), and Timesketch's JSONL timeline."""
from __future__ import annotations

import datetime as _dt
import json
import re
import stat as S
from typing import Iterator, Optional

from . import _lib
from .records import Record

CSV_HEAD = ("ino,type,mode,nlink,uid,gid,rdev,size,blocks,atime,mtime,ctime,"
            "crtime,written,unwritten,holes,past_eof,meta_blocks,extents,"
            "fiemap_extents,inline,ea_inode,errno,error,paths\r\n")


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


# A name JSON takes as it is: printable ASCII but for " and \.
_NOT_PLAIN = re.compile(rb'[^\x20-\x7e]|["\\]')
_JSONL = ('{"ino":%s,"paths":[%s],"type":"%s","mode":%d,"nlink":%d,'
          '"uid":%d,"gid":%d,"rdev":%s,"size":%s,"blocks":%s,"atime":%s,'
          '"mtime":%s,"ctime":%s,"crtime":%s,"written":%s,"unwritten":%s,'
          '"holes":%s,"past_eof":%s,"meta_blocks":%s,"extents":%s,'
          '"fiemap_extents":%s,"inline":%s,"ea_inode":%s,"error":%s}\n')
_MAX_SAFE = 2**53 - 1


def _n(v: int) -> str:
    return str(v) if v <= _MAX_SAFE else '"%d"' % v


def _t(t) -> str:
    return "null" if t is None else '{"sec":%d,"nsec":%d}' % t


def _path(raw: bytes) -> str:
    if not _NOT_PLAIN.search(raw):
        return '{"path":"%s"}' % raw.decode("ascii")
    return _ENCODE(_lib.json_name("path", raw))


def jsonl(rec: Record) -> str:
    """One line of `scan --format jsonl` (Record.asdict() as JSON text,
    written straight: the fleet writes millions)."""
    e = rec.error
    return _JSONL % (
        _n(rec.ino), ",".join(map(_path, rec.paths_bytes)), rec.type,
        rec.mode, rec.nlink, rec.uid, rec.gid, _n(rec.rdev), _n(rec.size),
        _n(rec.blocks), _t(rec.atime), _t(rec.mtime), _t(rec.ctime),
        _t(rec.crtime), _n(rec.written), _n(rec.unwritten), _n(rec.holes),
        _n(rec.past_eof), _n(rec.meta_blocks), _n(rec.extents),
        _n(rec.fiemap_extents), "true" if rec.inline else "false",
        "true" if rec.ea_inode else "false",
        "null" if e is None else _ENCODE(rec.asdict()["error"]))


def timesketch_line(event: dict) -> str:
    """One line of `scan --format timesketch` for an event."""
    return _ENCODE(event) + "\n"


def _csv_time(t) -> str:
    return "" if t is None else "%d.%09d" % (t.sec, t.nsec)


def _csv_text(s: str) -> str:
    if not any(c in s for c in ',"\r\n'):
        return s
    return '"' + s.replace('"', '""') + '"'


def _csv_name(raw: bytes) -> str:
    # UTF-8 passes but for control bytes and DEL; those, bytes that are
    # not UTF-8, and the backslash are \xHH (the CLI's rule).
    out, i = [], 0
    while i < len(raw):
        n = _utf8_len(raw, i)
        c = raw[i]
        if n == 0 or (n == 1 and (c < 0x20 or c == 0x7F or c == 0x5C)):
            out.append("\\x%02x" % c)
            i += 1
            continue
        out.append(raw[i:i + n].decode().replace('"', '""'))
        i += n
    return "".join(out)


def _utf8_len(b: bytes, i: int) -> int:
    """Length of the well-formed UTF-8 sequence at B[i], 0 if none."""
    for n in (1, 2, 3, 4):
        try:
            b[i:i + n].decode("utf-8")
            return n
        except UnicodeDecodeError as e:
            if e.reason != "unexpected end of data" or i + n >= len(b):
                return 0
    return 0


def csv(rec: Record) -> str:
    """One row of `scan --format csv` (CSV_HEAD first)."""
    e = rec.error
    err = _csv_text(e.message) if e else ""
    return ("%d,%s,0%o,%d,%d,%d,%d,%d,%d,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,"
            "%d,%d,%s,%s,\"%s\"\r\n") % (
        rec.ino, rec.type, rec.mode, rec.nlink, rec.uid, rec.gid, rec.rdev,
        rec.size, rec.blocks, _csv_time(rec.atime), _csv_time(rec.mtime),
        _csv_time(rec.ctime), _csv_time(rec.crtime), rec.written,
        rec.unwritten, rec.holes, rec.past_eof, rec.meta_blocks, rec.extents,
        rec.fiemap_extents, rec.inline, rec.ea_inode,
        e.name if e else "", err,
        "\n".join(_csv_name(p) for p in rec.paths_bytes))


_BODY_TYPE = {S.S_IFREG: "r", S.S_IFDIR: "d", S.S_IFLNK: "l", S.S_IFIFO: "p",
              S.S_IFCHR: "c", S.S_IFBLK: "b", S.S_IFSOCK: "h"}


def _body_mode(mode: int) -> str:
    """TSK's "r/rrw-r--r--" (a socket's name letter is "s", its inode's "h")."""
    t = _BODY_TYPE.get(S.S_IFMT(mode), "-")
    bits = [("rwxrwxrwx"[i] if mode & (0o400 >> i) else "-") for i in range(9)]
    if mode & S.S_ISUID:
        bits[2] = "s" if mode & S.S_IXUSR else "S"
    if mode & S.S_ISGID:
        bits[5] = "s" if mode & S.S_IXGRP else "S"
    if mode & S.S_ISVTX:
        bits[8] = "t" if mode & S.S_IXOTH else "T"
    return ("s" if t == "h" else t) + "/" + t + "".join(bits)


def _body_name(raw: bytes) -> bytes:
    # tsk_print_sanitized: control bytes, DEL and the separator as ^.
    return bytes(0x5E if c < 0x20 or c == 0x7F or c == 0x7C else c
                 for c in raw)


def body(rec: Record, target: Optional[bytes] = None) -> bytes:
    """The lines of The Sleuth Kit's body format (`mactime -b`) for REC;
    TARGET is a symlink's (Image.readlink), added as fls adds it."""
    mode = _body_mode(rec.mode)
    a, m, c = rec.atime, rec.mtime, rec.ctime
    if a is not None and m is not None and c is not None:
        times = b"%d|%d|%d|%d" % (a.sec, m.sec, c.sec,
                                  rec.crtime.sec if rec.crtime else 0)
    else:                       # the stat failed: no times
        times = b"0|0|0|0"
    tail = b"|%d|%s|%d|%d|%d|%s\n" % (rec.ino, mode.encode(), rec.uid,
                                      rec.gid, rec.size, times)
    if not rec.paths_bytes:     # no name: "<INO>", no target
        return b"0|<%d>%s" % (rec.ino, tail)
    link = b" -> " + _body_name(target) if target is not None else b""
    return b"".join(b"0|" + _body_name(n) + link + tail
                    for n in rec.paths_bytes if n != b"/")  # fls: no root


# plaso's filestat descriptions, one event per time (MACB).
_TIMES = (("mtime", "Content Modification Time"),
          ("atime", "Last Access Time"),
          ("ctime", "Metadata Modification Time"),
          ("crtime", "Creation Time"))
_WORDS = {"regular": "file", "directory": "directory", "symlink": "link",
          "fifo": "pipe", "socket": "socket", "chardev": "device",
          "blockdev": "device"}
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def timesketch(rec: Record, **extra) -> Iterator[dict]:
    """Timesketch-ready events (message, datetime, timestamp_desc, and
    timestamp in microseconds, as plaso's fs:stat events carry them), one
    per name and per time the inode keeps, as `scan --format timesketch`
    writes them; EXTRA fields go on each."""
    if rec.atime is None:
        return
    word = _WORDS.get(rec.type, "unknown")
    for raw in rec.paths_bytes:
        names = _lib.json_name("filename", raw)
        text = names["filename"]
        for key, desc in _TIMES:
            t = getattr(rec, key)
            if t is None:
                continue
            us = t.sec * 1_000_000 + t.nsec // 1000
            when = _EPOCH + _dt.timedelta(microseconds=us)
            ev = {"message": "%s Type: %s" % (text, word),
                  "datetime": when.isoformat(timespec="microseconds"),
                  "timestamp": us, "timestamp_desc": desc,
                  "nanoseconds": t.nsec,
                  "data_type": "fs:stat", "parser": "e2map",
                  "display_name": text}
            ev.update(names)
            ev.update(inode=rec.ino, file_entry_type=word,
                      file_size=rec.size, mode=rec.mode, uid=rec.uid,
                      gid=rec.gid)
            ev.update(extra)
            yield ev

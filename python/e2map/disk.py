# SPDX-License-Identifier: LGPL-2.1-or-later
"""A whole disk or container: its partitions, as libblkid reads them."""
from __future__ import annotations

from typing import List, NamedTuple

from . import _lib
from ._lib import PathArg, ffi, lib


class Partition(NamedTuple):
    number: int          # as the kernel numbers /dev/sdaN
    extended: bool       # an MBR extended partition (no filesystem)
    start: int           # bytes in the disk
    size: int
    type: str            # MBR "0x83", or the GPT type GUID
    name: str            # the GPT name, or ""
    uuid: str
    fstype: str          # what libblkid finds: "ext4", ""
    label: str
    fsuuid: str
    is_ext: bool         # e2map opens it with partition=number


class Disk(NamedTuple):
    format: str          # "raw", "ewf", "vmdk", "vhd", "qcow"
    table: str           # "dos", "gpt", or "" for none
    table_id: str
    size: int
    partitions: List[Partition]


def _s(chars) -> str:
    return ffi.string(chars).decode("utf-8", "replace")


def _partition(p) -> Partition:
    return Partition(p.number, bool(p.extended), p.start, p.size,
                     _s(p.type), _s(p.name), _s(p.uuid), _s(p.fstype),
                     _s(p.label), _s(p.fsuuid),
                     bool(lib.e2map_partition_is_ext(p)))


def disk(path: PathArg) -> Disk:
    """The disk PATH holds (a bare filesystem: no table, no partitions)."""
    out = ffi.new("struct e2map_disk **")
    err = lib.e2map_disk_read(_lib.encode(path), out)
    if err < 0:
        _lib.fail(err, ffi.NULL, path)
    d = out[0]
    try:
        parts = [_partition(d.partitions + i) for i in range(d.count)]
        return Disk(_s(d.format), _s(d.table), _s(d.table_id), d.size, parts)
    finally:
        lib.e2map_disk_free(d)


def partitions(path: PathArg) -> List[Partition]:
    """The partitions of the disk PATH holds, in the table's order."""
    return disk(path).partitions

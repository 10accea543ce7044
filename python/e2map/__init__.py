# SPDX-License-Identifier: LGPL-2.1-or-later
"""e2map: an unmounted ext2/3/4 image read as the Linux kernel reads it.

    import e2map
    with e2map.open("disk.E01", partition=1) as img:
        for rec in img.scan():
            ...
        with img.open("/var/log/syslog") as f:
            f.seek(0, os.SEEK_DATA)

Every answer is what the kernel gives on a fresh read-only mount of the
image (stat, getdents' order, read, lseek SEEK_DATA/SEEK_HOLE, FIEMAP),
every error an OSError with the kernel's errno.  The image is never
written.  A binding of libe2map (cffi, API mode).
"""
from ._lib import version as _version
from .disk import Disk, Partition, disk, partitions
from .file import Extent, Fiemap, FiemapError, File
from .image import (CheckReport, DirEntry, Failure, Image, Owner, Run, State, StatFS,
                    Unallocated, open)
from .records import Record, RecordError, Summary
from .stat import Timespec

__version__ = _version()

__all__ = ["open", "disk", "partitions", "Image", "File", "DirEntry",
           "Record", "RecordError", "Summary", "Extent", "Fiemap", "FiemapError",
           "Owner", "Unallocated", "Failure", "CheckReport", "Run", "State", "StatFS",
           "Disk", "Partition", "Timespec", "__version__"]

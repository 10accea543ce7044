# SPDX-License-Identifier: LGPL-2.1-or-later
"""e2map's stat record as Python's: os.stat_result, and the times."""
from __future__ import annotations

import os
from typing import NamedTuple, Optional

from ._lib import lib


class Timespec(NamedTuple):
    """A time as statx gives it: seconds since the epoch (signed) and
    nanoseconds (0..999,999,999)."""
    sec: int
    nsec: int

    @property
    def ns(self) -> int:
        return self.sec * 1_000_000_000 + self.nsec

    @property
    def timestamp(self) -> float:
        return self.sec + self.nsec * 1e-9


def timespec(t) -> Timespec:
    return Timespec(t.sec, t.nsec)


def stat_result(st) -> os.stat_result:
    """What os.lstat on the mount returns (st_dev 0: no device here)."""
    a, m, c = st.atime, st.mtime, st.ctime
    an = a.sec * 1_000_000_000 + a.nsec
    mn = m.sec * 1_000_000_000 + m.nsec
    cn = c.sec * 1_000_000_000 + c.nsec
    return os.stat_result(
        (st.mode, st.ino, 0, st.nlink, st.uid, st.gid, st.size,
         a.sec, m.sec, c.sec),
        {"st_atime": an / 1e9, "st_mtime": mn / 1e9, "st_ctime": cn / 1e9,
         "st_atime_ns": an, "st_mtime_ns": mn, "st_ctime_ns": cn,
         "st_blksize": st.blksize, "st_blocks": st.blocks,
         "st_rdev": st.rdev})


def birthtime(st) -> Optional[Timespec]:
    """statx's btime, where the inode has one."""
    if not st.mask & lib.E2MAP_STAT_CRTIME:
        return None
    return timespec(st.crtime)

# SPDX-License-Identifier: GPL-2.0-or-later
"""dask-worker --preload for test_fleet: this worker process dies (as a
worker killed by the OOM killer or a crash dies) as it starts its third
scan task, so the scheduler must hand that task to another worker."""
import os

from distributed.diagnostics.plugin import WorkerPlugin


class DieOnThirdScan(WorkerPlugin):
    def __init__(self):
        self.started = 0

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("scan_task"):
            self.started += 1
            if self.started == 3:
                marker = os.environ.get("E2MAP_DIED_MARKER")
                if marker:
                    open(marker, "w").close()
                os._exit(1)


async def dask_setup(worker):
    await worker.plugin_add(DieOnThirdScan(), name="die-on-third-scan")

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress line of the whole-image commands, on stderr: only on a
 * terminal (a log or a pipe gets nothing), never with --quiet, redrawn
 * at most every PERIOD so that a fast walk does not spend its time on the
 * terminal, and wiped when the work ends so the output is left as if it
 * had never been there.  Counting is cheap: the clock is read every
 * 256th update only.
 */
#include "cmd.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 100000000LL	/* ten redraws a second */
#define CLOCK_EVERY 256

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void cmd_progress_start(struct cmd_progress *p, const char *cmd,
			const char *unit, uint64_t total, bool quiet,
			bool streams)
{
	memset(p, 0, sizeof(*p));
	/* Lines streamed to the same terminal would be torn by redraws. */
	p->on = !quiet && isatty(STDERR_FILENO) &&
		!(streams && isatty(STDOUT_FILENO));
	p->cmd = cmd;
	p->unit = unit;
	p->total = total;
	p->start = p->last = now_ns();
	if (p->on)
		cmd_progress_draw(p);
}

/* "1.5 GiB": binary units, one decimal below 10, as du -h rounds. */
static void human(char *buf, size_t size, double v)
{
	static const char units[] = "BKMGTPE";
	unsigned u = 0;

	while (v >= 1024 && u < sizeof(units) - 2) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", v);
	else
		snprintf(buf, size, v < 10 ? "%.1f %ciB" : "%.0f %ciB", v,
			 units[u]);
}

static void eta(char *buf, size_t size, double secs)
{
	unsigned long s = secs > 359999 ? 359999 : (unsigned long)(secs + 0.5);

	if (s >= 3600)
		snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60,
			 s % 60);
	else
		snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
}

/*
 * "e2map scan: 1200/5000 inodes (24%), 3.1 MiB, 8123/s, ETA 0:01"; with
 * no total (a subtree: its size is not known before the walk), "e2map
 * extract: 1200 files, 3.1 MiB, 8123/s".
 */
int cmd_progress_format(char *buf, size_t size, const struct cmd_progress *p,
			int64_t elapsed_ns)
{
	double secs = elapsed_ns > 0 ? elapsed_ns / 1e9 : 0, rate;
	char bytes[32] = "", left[32] = "?";
	uint64_t done = p->done > p->total && p->total ? p->total : p->done;
	unsigned pct = p->total ? (unsigned)(done * 100 / p->total) : 100;

	rate = secs > 0 ? done / secs : 0;
	if (rate > 0 && p->total)
		eta(left, sizeof(left), (p->total - done) / rate);
	if (p->bytes) {
		bytes[0] = ',';
		bytes[1] = ' ';
		human(bytes + 2, sizeof(bytes) - 2, (double)p->bytes);
	}
	if (!p->total)
		return snprintf(buf, size, "e2map %s: %llu %s%s, %.0f/s",
				p->cmd, (unsigned long long)done, p->unit,
				bytes, rate);
	return snprintf(buf, size, "e2map %s: %llu/%llu %s (%u%%)%s, %.0f/s, "
			"ETA %s", p->cmd, (unsigned long long)done,
			(unsigned long long)p->total, p->unit, pct, bytes,
			rate, left);
}

void cmd_progress_draw(struct cmd_progress *p)
{
	char line[160];

	cmd_progress_format(line, sizeof(line), p, now_ns() - p->start);
	/* \r and erase-to-end: the line is redrawn in place. */
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	p->drawn = true;
}

void cmd_progress_add(struct cmd_progress *p, uint64_t n, uint64_t bytes)
{
	int64_t t;

	p->done += n;
	p->bytes += bytes;
	if (!p->on || ++p->ticks % CLOCK_EVERY)
		return;
	t = now_ns();
	if (t - p->last < PERIOD_NS)
		return;
	p->last = t;
	cmd_progress_draw(p);
}

void cmd_progress_end(struct cmd_progress *p)
{
	if (!p->on || !p->drawn)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->on = false;
}

void cmd_progress_inodes(struct cmd_progress *p, e2map_t *m, const char *cmd,
			 const char *unit, const char *path, bool quiet,
			 bool streams)
{
	struct e2map_statfs sf = E2MAP_STATFS_INIT;
	bool whole = !path || !path[strspn(path, "/")];

	if (!whole)
		cmd_progress_start(p, cmd, unit, 0, quiet, streams);
	else if (e2map_statfs(m, &sf) == 0)
		cmd_progress_start(p, cmd, unit, sf.files - sf.ffree, quiet,
				   streams);
}

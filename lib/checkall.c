/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every inode checked on several cores.  Each worker takes whole groups
 * and checks them through a handle of its own on the same image: its own
 * block, inode and directory caches, so the hot path shares nothing and
 * takes no lock.  The answers cannot depend on which handle gave them:
 * every check opens its inode anew, with a cold extent-status cache and
 * its own set of verified tree blocks, as a file on a fresh mount.  The
 * caller's thread hands the results on in inode order.  Workers run ahead
 * of it (while it builds a path table, say) by at most MAX_SLOTS groups
 * and MAX_PENDING results, so what waits is bounded whatever the inode
 * count.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16
#define MAX_SLOTS 4096U
#define MAX_PENDING (256U << 10)	/* results: 12 MiB */
#define KEEP_RESULTS 4096U	/* a slot keeps this much memory for reuse */

struct result {
	struct e2map_inode in;
	int err;
	uint32_t detail;	/* where its detail starts in the slot's text */
};

/* One group's results, filled by one worker, emptied by the caller. */
struct slot {
	bool done;
	int err;		/* the group's scan itself failed (-ENOMEM) */
	struct result *v;
	size_t n, cap;
	char *text;		/* the failed inodes' details, NUL-separated */
	size_t len, tcap;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* a slot was filled or emptied, or stop */
	struct slot *slots;
	unsigned nslots;
	dgrp_t next;		/* the next group a worker takes */
	dgrp_t consumed;	/* groups handed on so far */
	dgrp_t ngroups;
	size_t pending;		/* results of done groups not handed on */
	bool stop;
};

struct worker {
	struct pool *p;
	e2map_t *h;
	pthread_t tid;
	bool started;
};

static int keep_detail(struct slot *s, const char *msg, uint32_t *off)
{
	size_t len = strlen(msg) + 1;

	if (e2map__grow((void **)&s->text, &s->tcap, s->len + len, 1) < 0)
		return -ENOMEM;
	memcpy(s->text + s->len, msg, len);
	*off = (uint32_t)s->len;
	s->len += len;
	return 0;
}

/* e2map_scan's callback in a worker: check the inode, keep the answer. */
static int record(e2map_t *h, const struct e2map_inode *in, void *payload)
{
	struct slot *s = payload;
	struct e2map_check_stats st;
	struct result *r;
	int err = in->err ? in->err : e2map_inode_check(h, in->ino, &st);

	if (e2map__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	r = &s->v[s->n];
	r->in = *in;
	r->err = err;
	r->detail = 0;
	if (err && keep_detail(s, e2map_errmsg(h), &r->detail) < 0)
		return -ENOMEM;
	s->n++;
	return 0;
}

/* The next group this worker may take, or false when there is none. */
static bool take(struct pool *p, dgrp_t *g)
{
	bool ok;

	pthread_mutex_lock(&p->lock);
	/* When the next group to hand on is not taken yet, nothing is
	 * pending: a worker never waits on a caller that waits on it. */
	while (!p->stop && p->next < p->ngroups &&
	       (p->next >= p->consumed + p->nslots ||
		p->pending >= MAX_PENDING))
		pthread_cond_wait(&p->cond, &p->lock);
	ok = !p->stop && p->next < p->ngroups;
	if (ok)
		*g = p->next++;
	pthread_mutex_unlock(&p->lock);
	return ok;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->p;
	unsigned char *buf = malloc(w->h->bs);
	struct slot *s;
	dgrp_t g;

	while (take(p, &g)) {
		s = &p->slots[g % p->nslots];
		s->n = s->len = 0;
		s->err = buf ? e2map__scan_group(w->h, g, buf, record, s)
			     : -ENOMEM;
		pthread_mutex_lock(&p->lock);
		s->done = true;
		p->pending += s->n;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	free(buf);
	return NULL;
}

/* Hand group G's results to CB, in order, then free its slot. */
static int hand_on(struct pool *p, e2map_t *m, dgrp_t g, e2map_check_cb cb,
		   void *payload)
{
	struct slot *s = &p->slots[g % p->nslots];
	int err = 0;
	size_t i;

	pthread_mutex_lock(&p->lock);
	while (!s->done)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < s->n && !err; i++) {
		const struct result *r = &s->v[i];

		err = cb(m, &r->in, r->err, r->err ? s->text + r->detail : "",
			 payload);
	}
	if (!err)
		err = s->err;
	/* Before the slot is freed: a worker may take it at once. */
	if (s->cap > KEEP_RESULTS) {
		free(s->v);
		s->v = NULL;
		s->cap = 0;
	}
	pthread_mutex_lock(&p->lock);
	p->pending -= s->n;
	s->done = false;
	p->consumed++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return err;
}

static void stop_all(struct pool *p, struct worker *w, unsigned n)
{
	unsigned i;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < n; i++) {
		if (w[i].started)
			pthread_join(w[i].tid, NULL);
		e2map_close(w[i].h);
	}
}

static int start_all(struct pool *p, e2map_t *m, struct worker *w,
		     unsigned n)
{
	unsigned i;
	int err;

	for (i = 0; i < n; i++) {
		w[i].p = p;
		if ((err = e2map_open(m->image, m->options, &w[i].h)) < 0)
			return e2map__fail(m, err, "a worker's handle on the "
					   "image: %s", e2map_errmsg(NULL));
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&w[i].tid, NULL, work, &w[i]))
			return e2map__fail(m, -EAGAIN, "cannot start a worker "
					   "thread");
		w[i].started = true;
	}
	return 0;
}

static void free_slots(struct pool *p)
{
	unsigned i;

	for (i = 0; i < p->nslots; i++) {
		free(p->slots[i].v);
		free(p->slots[i].text);
	}
	free(p->slots);
}

static int check_parallel(e2map_t *m, unsigned n, e2map_check_cb cb,
			  void *payload)
{
	struct pool p = { .ngroups = m->fs->group_desc_count };
	struct worker w[MAX_THREADS] = { { 0 } };
	dgrp_t g;
	int err;

	p.nslots = p.ngroups < MAX_SLOTS ? p.ngroups : MAX_SLOTS;
	if (!(p.slots = calloc(p.nslots, sizeof(*p.slots))))
		return -ENOMEM;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	err = start_all(&p, m, w, n);
	for (g = 0; g < p.ngroups && !err; g++)
		err = hand_on(&p, m, g, cb, payload);
	stop_all(&p, w, n);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	free_slots(&p);
	return err;
}

struct serial {
	e2map_check_cb cb;
	void *payload;
};

static int check_one(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	const struct serial *s = payload;
	struct e2map_check_stats st;
	int err = in->err ? in->err : e2map_inode_check(m, in->ino, &st);

	return s->cb(m, in, err, err ? e2map_errmsg(m) : "", s->payload);
}

static unsigned workers(const e2map_t *m, unsigned threads)
{
	long cpus;

	if (!threads) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	/* A worker per group at most: each takes a whole one. */
	if (threads > m->fs->group_desc_count)
		threads = m->fs->group_desc_count;
	return threads ? threads : 1;
}

int e2map_check_all(e2map_t *m, unsigned threads, e2map_check_cb cb,
		    void *payload)
{
	struct serial s = { cb, payload };
	unsigned n;

	if (!m || !cb)
		return -EINVAL;
	n = workers(m, threads);
	if (n == 1)
		return e2map_scan(m, check_one, &s);
	return check_parallel(m, n, cb, payload);
}

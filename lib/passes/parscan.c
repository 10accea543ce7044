/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A whole-image pass on several cores: e2map_scan's inodes, each worked
 * on (checked, or its record made) in a worker thread, the results handed
 * on in inode order in the caller's thread.  Each worker takes whole
 * groups through a handle of its own on the same image: its own block,
 * inode and directory caches, so the hot path shares nothing and takes no
 * lock.  The answers cannot depend on which handle gave them: every inode
 * is opened anew, with a cold extent-status cache and its own set of
 * verified tree blocks, as a file on a fresh mount.  Workers run ahead of
 * the caller (while it builds a path table, say) by at most MAX_SLOTS
 * groups and MAX_PENDING bytes of results, so what waits is bounded
 * whatever the inode count.
 */
#include "passes.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16
#define MAX_SLOTS 4096U
#define MAX_PENDING (16U << 20)	/* bytes of results */
#define KEEP_BYTES (1U << 20)	/* a buffer up to this size is kept for reuse */

/* Each result: this header, then the work's OPS->size bytes. */
struct result {
	struct e2map_inode in;
	uint32_t detail;	/* where its detail starts in the slot's text */
	bool has_detail;
};

/* One group's results, filled by one worker, emptied by the caller. */
struct slot {
	bool done;
	int err;		/* the group's scan itself failed (-ENOMEM) */
	unsigned char *v;	/* N results of the pool's STRIDE bytes */
	size_t n, cap;		/* cap: in bytes */
	char *text;		/* details, NUL-separated */
	size_t len, tcap;
};

/* A results buffer handed back, for the next group taken. */
struct spare {
	unsigned char *v;
	size_t cap;
};

struct pool {
	const struct e2map__par *ops;
	size_t stride;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* a slot was filled or emptied, or stop */
	struct slot *slots;
	unsigned nslots;
	/* Memory already touched: a fresh buffer per group cost a page
	 * fault per 4 KiB of results.  At most NSLOTS buffers exist. */
	struct spare *spares;
	unsigned nspares;
	dgrp_t next;		/* the next group a worker takes */
	dgrp_t consumed;	/* groups handed on so far */
	dgrp_t ngroups;
	size_t pending;		/* bytes of done groups' results not handed on */
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

struct fill {
	struct pool *p;
	struct slot *s;
};

/* e2map_scan's callback in a worker: the work on the inode, kept. */
static int record(e2map_t *h, const struct e2map_inode *in, void *payload)
{
	const struct fill *fl = payload;
	struct slot *s = fl->s;
	size_t at = s->n * fl->p->stride;
	const char *detail = NULL;
	struct result *r;
	int err;

	if (e2map__grow((void **)&s->v, &s->cap, at + fl->p->stride, 1) < 0)
		return -ENOMEM;
	r = (struct result *)(s->v + at);
	r->in = *in;
	r->has_detail = false;
	if ((err = fl->p->ops->work(h, in, r + 1, &detail)) < 0)
		return err;
	if (detail && keep_detail(s, detail, &r->detail) < 0)
		return -ENOMEM;
	r->has_detail = detail != NULL;
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
	if (ok) {
		struct slot *s = &p->slots[p->next % p->nslots];

		if (!s->v && p->nspares) {
			p->nspares--;
			s->v = p->spares[p->nspares].v;
			s->cap = p->spares[p->nspares].cap;
		}
		*g = p->next++;
	}
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
		struct fill fl = { p, &p->slots[g % p->nslots] };

		s = fl.s;
		s->n = s->len = 0;
		s->err = buf ? e2map__scan_group(w->h, g, buf, record, &fl)
			     : -ENOMEM;
		pthread_mutex_lock(&p->lock);
		s->done = true;
		p->pending += s->n * p->stride;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	free(buf);
	return NULL;
}

/* Hand group G's results on, in order, then free its slot. */
static int hand_on(struct pool *p, e2map_t *m, dgrp_t g, void *payload)
{
	struct slot *s = &p->slots[g % p->nslots];
	int err = 0;
	size_t i;

	pthread_mutex_lock(&p->lock);
	while (!s->done)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < s->n && !err; i++) {
		struct result *r = (struct result *)(s->v + i * p->stride);

		err = p->ops->hand(m, &r->in, r + 1, r->has_detail ?
				   s->text + r->detail : NULL, payload);
	}
	if (!err)
		err = s->err;
	/* Before the slot is freed: a worker may take it at once. */
	if (s->cap > KEEP_BYTES) {
		free(s->v);
		s->v = NULL;
		s->cap = 0;
	}
	pthread_mutex_lock(&p->lock);
	if (s->v) {
		p->spares[p->nspares++] = (struct spare){ s->v, s->cap };
		s->v = NULL;
		s->cap = 0;
	}
	p->pending -= s->n * p->stride;
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
		w[i].h->one_pass = true;
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

	for (i = 0; p->slots && i < p->nslots; i++) {
		free(p->slots[i].v);
		free(p->slots[i].text);
	}
	for (i = 0; i < p->nspares; i++)
		free(p->spares[i].v);
	free(p->spares);
	free(p->slots);
}

static int par_threads(e2map_t *m, unsigned n, const struct e2map__par *ops,
		       void *payload)
{
	struct pool p = { .ops = ops, .ngroups = m->fs->group_desc_count };
	struct worker w[MAX_THREADS] = { { 0 } };
	dgrp_t g;
	int err;

	/* Whole results, each aligned for the work's result struct. */
	p.stride = (sizeof(struct result) + ops->size + 15) & ~(size_t)15;
	p.nslots = p.ngroups < MAX_SLOTS ? p.ngroups : MAX_SLOTS;
	p.slots = calloc(p.nslots, sizeof(*p.slots));
	p.spares = calloc(p.nslots, sizeof(*p.spares));
	if (!p.slots || !p.spares) {
		free_slots(&p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	err = start_all(&p, m, w, n);
	for (g = 0; g < p.ngroups && !err; g++)
		err = hand_on(&p, m, g, payload);
	stop_all(&p, w, n);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	free_slots(&p);
	return err;
}

/* One thread: the work and the hand-on in turn, through M itself. */
struct serial {
	const struct e2map__par *ops;
	void *result;
	void *payload;
};

static int serial_one(e2map_t *m, const struct e2map_inode *in,
		      void *payload)
{
	const struct serial *s = payload;
	const char *detail = NULL;
	bool was = m->one_pass;
	int err;

	/* The work only: what the caller does with M meanwhile keeps its
	 * inode cache. */
	m->one_pass = true;
	err = s->ops->work(m, in, s->result, &detail);
	m->one_pass = was;
	if (err < 0)
		return err;
	return s->ops->hand(m, in, s->result, detail, s->payload);
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

int e2map__par_scan(e2map_t *m, unsigned threads, const struct e2map__par *ops,
		    void *payload)
{
	struct serial s = { ops, NULL, payload };
	unsigned n = workers(m, threads);
	int err;

	if (n > 1)
		return par_threads(m, n, ops, payload);
	/* Aligned for any result struct. */
	if (!(s.result = calloc(1, ops->size ? ops->size : 1)))
		return -ENOMEM;
	err = e2map_scan(m, serial_one, &s);
	free(s.result);
	return err;
}

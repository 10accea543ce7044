/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map scan --format jsonl: a record a line, the members written
 * straight with their keys as constants (cmd/json.c's rules for names
 * and large integers); jansson writes each name that is not printable
 * ASCII and each error object.
 */
#include "cmd.h"
#include "scan_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

static struct outbuf jbuf;

/* For every format (here, where the lines that name it most are made). */
const char *scan_type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR: return "chardev";
	case S_IFBLK: return "blockdev";
	default: return "unknown";
	}
}


static char *put_time(char *p, bool has, const struct e2map_timespec *t)
{
	if (!has)
		return PUT(p, "null");
	p = PUT(p, "{\"sec\":");
	p = put_i64(p, t->sec);
	p = PUT(p, ",\"nsec\":");
	p = put_dec(p, t->nsec);
	*p++ = '}';
	return p;
}

/* The members after "paths": at most JL_FIXED bytes. */
#define JL_FIXED 1024

static char *put_stat(char *p, const struct e2map_record *r)
{
	const struct e2map_stat *st = &r->st;
	bool full = r->flags & E2MAP_REC_STAT;
	const char *type = scan_type_name(st->mode);
	size_t tlen = strlen(type);

	p = PUT(p, ",\"type\":\"");
	memcpy(p, type, tlen);
	p += tlen;
	p = PUT(p, "\",\"mode\":");
	p = put_dec(p, st->mode);
	p = PUT(p, ",\"nlink\":");
	p = put_dec(p, st->nlink);
	p = PUT(p, ",\"uid\":");
	p = put_dec(p, st->uid);
	p = PUT(p, ",\"gid\":");
	p = put_dec(p, st->gid);
	p = PUT(p, ",\"rdev\":");
	p = put_u64(p, st->rdev);
	p = PUT(p, ",\"size\":");
	p = put_u64(p, st->size);
	p = PUT(p, ",\"blocks\":");
	p = put_u64(p, st->blocks);
	p = PUT(p, ",\"atime\":");
	p = put_time(p, full, &st->atime);
	p = PUT(p, ",\"mtime\":");
	p = put_time(p, full, &st->mtime);
	p = PUT(p, ",\"ctime\":");
	p = put_time(p, full, &st->ctime);
	p = PUT(p, ",\"crtime\":");
	return put_time(p, full && (st->mask & E2MAP_STAT_CRTIME),
			&st->crtime);
}

static char *put_map(char *p, const struct e2map_record *r)
{
	p = PUT(p, ",\"written\":");
	p = put_u64(p, r->written);
	p = PUT(p, ",\"unwritten\":");
	p = put_u64(p, r->unwritten);
	p = PUT(p, ",\"holes\":");
	p = put_u64(p, r->holes);
	p = PUT(p, ",\"past_eof\":");
	p = put_u64(p, r->past_eof);
	p = PUT(p, ",\"meta_blocks\":");
	p = put_u64(p, r->meta_blocks);
	p = PUT(p, ",\"extents\":");
	p = put_u64(p, r->extents);
	p = PUT(p, ",\"fiemap_extents\":");
	p = put_u64(p, r->fiemap_extents);
	p = r->flags & E2MAP_REC_INLINE ? PUT(p, ",\"inline\":true") :
	    PUT(p, ",\"inline\":false");
	return r->flags & E2MAP_REC_EA_INODE ? PUT(p, ",\"ea_inode\":true") :
	       PUT(p, ",\"ea_inode\":false");
}

/* A name jansson would write as it is: printable ASCII, no " or \. */
static bool plain_name(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ||
		    s[i] == '"' || s[i] == '\\')
			return false;
	return true;
}

/* {"path":NAME}, with path_hex as cmd_json_set_name writes it. */
static int jl_path(struct outbuf *b, const char *name, size_t len)
{
	json_t *o;
	char *p;

	if (plain_name(name, len)) {
		if (!(p = jb_room(b, len + 12)))
			return -ENOMEM;
		p = PUT(p, "{\"path\":\"");
		memcpy(p, name, len);
		p = PUT(p + len, "\"}");
		b->len = (size_t)(p - b->s);
		return 0;
	}
	o = json_object();
	cmd_json_set_name(o, "path", name, len);
	return cmd_json_dump_to(b, o);
}

static int jl_paths(struct outbuf *b, const struct scan_item *it)
{
	char *p;
	int err;

	for (size_t i = 0; i < it->n; i++) {
		if (i) {
			if (!(p = jb_room(b, 1)))
				return -ENOMEM;
			b->s[b->len++] = ',';
		}
		if ((err = jl_path(b, it->path[i], it->len[i])) < 0)
			return err;
	}
	return 0;
}

/* ,"KEY":V with V jansson's text. */
static int jl_json(struct outbuf *b, const char *key, json_t *v)
{
	size_t klen = strlen(key);
	char *p = jb_room(b, klen + 4);

	if (!p) {
		json_decref(v);
		return -ENOMEM;
	}
	*p++ = ',';
	*p++ = '"';
	memcpy(p, key, klen);
	p += klen;
	*p++ = '"';
	*p++ = ':';
	b->len = (size_t)(p - b->s);
	return cmd_json_dump_to(b, v);
}

/* --hash: "md5":"hex"..., or "hash_error" where the read failed; only
 * for what was hashed (regular files). */
static int jl_digests(struct outbuf *b, const struct scan_extra *x)
{
	char hex[65], *p;
	const char *name;

	if (!x)
		return 0;
	for (unsigned bit = 1; bit <= E2MAP_DIGEST_SHA256; bit <<= 1) {
		if (!x->hashed || e2map_digest_hex(&x->d, bit, hex) <= 0)
			continue;
		name = e2map_digest_name(bit);
		if (!(p = jb_room(b, strlen(name) + strlen(hex) + 8)))
			return -ENOMEM;
		b->len += (size_t)sprintf(p, ",\"%s\":\"%s\"", name, hex);
	}
	if (x->hash_err)
		return jl_json(b, "hash_error", cmd_json_error(x->hash_err,
							       x->hash_why));
	return 0;
}

int scan_jsonl_item(const struct scan_item *it)
{
	const struct e2map_record *r = it->r;
	struct outbuf *b = &jbuf;
	char *p;
	int err;

	b->len = 0;
	if (!(p = jb_room(b, 40)))
		return -ENOMEM;
	p = PUT(p, "{\"ino\":");
	p = put_u64(p, r->ino);
	p = PUT(p, ",\"paths\":[");
	b->len = (size_t)(p - b->s);
	if ((err = jl_paths(b, it)) < 0)
		return err;
	if (!(p = jb_room(b, JL_FIXED)))
		return -ENOMEM;
	*p++ = ']';
	p = put_stat(p, r);
	p = put_map(p, r);
	b->len = (size_t)(p - b->s);
	if ((err = jl_digests(b, it->x)) < 0)
		return err;
	if (r->err)
		err = jl_json(b, "error", cmd_json_error(r->err, it->detail));
	else if ((p = jb_room(b, 16)))
		b->len = (size_t)(PUT(p, ",\"error\":null") - b->s);
	else
		err = -ENOMEM;
	if (err < 0 || !(p = jb_room(b, 2)))
		return err < 0 ? err : -ENOMEM;
	b->s[b->len++] = '}';
	b->s[b->len++] = '\n';
	return fwrite_unlocked(b->s, 1, b->len, stdout) == b->len ? 0 : -EIO;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whole disks and containers (scripts/gen/mkdisks.sh, in $E2MAP_DISKS, made
 * by `make check`): every answer (check, du, scan, filefrag, fiemap,
 * seek) through a partition of a raw disk, an
 * E01 set, a VMDK, VHD, VHDX or QCOW2 equals the answer on that
 * partition's filesystem cut out as a bare image (which the recorded
 * kernel tests hold e2map to); `e2map partitions` lists what sfdisk -d
 * and blkid -p saw; bad tables and damaged containers fail with one line.
 */
#include <criterion/criterion.h>

#include "cli_run.h"
#include "media.h"

#include <e2map.h>

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ext2fs/ext2_err.h>

static char path_buf[8][4096];

/* $E2MAP_DISKS/NAME, or the test skips when that was not made. */
static const char *disk(const char *name)
{
	static unsigned next;
	const char *dir = getenv("E2MAP_DISKS");
	char *p = path_buf[next++ % 8];
	struct stat st;

	if (!dir)
		cr_skip_test("E2MAP_DISKS is not set (run through make check)");
	snprintf(p, sizeof(path_buf[0]), "%s/%s", dir, name);
	if (stat(p, &st) < 0)
		cr_skip_test("%s was not made (a tool missing?)", p);
	return p;
}

static void run(const char *const *args, struct cli_out *r)
{
	if (cli_run(args, r) < 0)
		cr_skip_test("E2MAP is not set (run through make check)");
}

static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 16);

	cr_assert(f && s, "%s", path);
	s[fread(s, 1, (1 << 16) - 1, f)] = '\0';
	fclose(f);
	return s;
}

static bool sfdisk_entry(const char *dump, unsigned nr, unsigned long long *s,
			 unsigned long long *z, char *type, size_t tsize);

/*
 * unallocated's byte offsets are the disk's: through the container and
 * partition, each range is the bare image's moved by the partition's
 * start as sfdisk -d recorded it when mkdisks.sh made the disk.
 */
static void unallocated_moves(const char *name, const char *part,
			      const char *bare, const char *table)
{
	const char *img = disk(name), *b = disk(bare);
	char *dump = slurp_file(disk(table)), type[40];
	unsigned long long start, size, x_off, x_len, y_off, y_len;
	char xk[16], yk[16];
	struct cli_out x, y;
	const char *p, *q;
	int lines = 0;

	cr_assert(sfdisk_entry(dump, (unsigned)atoi(part), &start, &size, type,
			       sizeof(type)));
	run((const char *[]){ "unallocated", "--format", "csv", "--partition",
			      part, img, NULL }, &x);
	run((const char *[]){ "unallocated", "--format", "csv", b, NULL }, &y);
	cr_assert_eq(x.status, 0, "%s", x.err);
	for (p = strchr(x.out, '\n'), q = strchr(y.out, '\n');
	     p && q && sscanf(p + 1, "%15[^,],%llu,%llu", xk, &x_off, &x_len) == 3
	     && sscanf(q + 1, "%15[^,],%llu,%llu", yk, &y_off, &y_len) == 3;
	     p = strchr(p + 1, '\n'), q = strchr(q + 1, '\n')) {
		cr_expect_str_eq(xk, yk);
		cr_expect_eq(x_off, y_off + start * 512, "%s", p + 1);
		cr_expect_eq(x_len, y_len);
		lines++;
	}
	cr_expect_gt(lines, 0);
	cr_expect_eq(strlen(x.out) > 0, strlen(y.out) > 0);
	free(dump);
	cli_out_free(&x);
	cli_out_free(&y);
}

/* The same command on a disk's partition and on the bare image. */
static void same_answer(const char *const *cmd, const char *img,
			const char *part, const char *bare)
{
	const char *a[16], *b[16];
	struct cli_out x, y;
	int n = 0, i;

	a[n] = b[n] = cmd[0];
	n++;
	a[n] = "--partition";
	b[n] = "--offset";
	n++;
	a[n] = part;
	b[n] = "0";
	n++;
	a[n] = img;
	b[n] = bare;
	n++;
	for (i = 1; cmd[i] && n < 15; i++, n++)
		a[n] = b[n] = cmd[i];
	a[n] = b[n] = NULL;
	run(a, &x);
	run(b, &y);
	cr_assert_eq(x.status, y.status, "%s %s --partition %s: exit %d, the "
		     "bare image's %d\n%s", cmd[0], img, part, x.status,
		     y.status, x.err);
	cr_assert_str_eq(x.out, y.out, "%s %s --partition %s", cmd[0], img,
			 part);
	cr_assert_str_eq(x.err, y.err, "%s %s --partition %s", cmd[0], img,
			 part);
	cli_out_free(&x);
	cli_out_free(&y);
}

/* Every command, on every file of mkdisks.sh's tree. */
static void all_answers(const char *name, const char *part, const char *bare)
{
	const char *img = disk(name), *b = disk(bare);
	static const char *const files[] = {
		"/small", "/sparse", "/dir/numbers", "/dir/sub/hole-at-start",
		"/link", "/dir", NULL
	};

	same_answer((const char *[]){ "check", NULL }, img, part, b);
	same_answer((const char *[]){ "check", "-j", "3", NULL }, img, part, b);
	same_answer((const char *[]){ "du", "-a", "-q", NULL }, img, part, b);
	same_answer((const char *[]){ "scan", "-q", NULL }, img, part, b);
	same_answer((const char *[]){ "scan", "-q", "--format", "jsonl", NULL },
		    img, part, b);
	same_answer((const char *[]){ "blockmap", NULL }, img, part, b);
	same_answer((const char *[]){ "filefrag", "-v", "/small", "/sparse",
		"/dir/numbers", "/dir/sub/hole-at-start", "/link", "/dir",
		"/nothing", NULL }, img, part, b);
	for (int i = 0; files[i]; i++) {
		same_answer((const char *[]){ "fiemap", "-v", files[i], NULL },
			    img, part, b);
		same_answer((const char *[]){ "seek", "-a", "-r", files[i], "0",
			    NULL }, img, part, b);
		same_answer((const char *[]){ "fiemap", "--json", files[i],
			    NULL }, img, part, b);
	}
}

TestSuite(disks, .timeout = 120);

Test(disks, mbr_primary_and_logical_partitions_answer_as_bare)
{
	all_answers("mbr.img", "1", "mbr-p1.img");
	all_answers("mbr.img", "2", "mbr-p2.img");
	all_answers("mbr.img", "5", "mbr-p5.img");
}

Test(disks, unallocated_offsets_are_the_disks)
{
	unallocated_moves("mbr.img", "5", "mbr-p5.img", "mbr.sfdisk");
	unallocated_moves("gpt.img", "2", "gpt-p2.img", "gpt.sfdisk");
	unallocated_moves("gpt.E01", "3", "gpt-p3.img", "gpt.sfdisk");
	unallocated_moves("mbr.qcow2", "1", "mbr-p1.img", "mbr.sfdisk");
}

Test(disks, gpt_partitions_answer_as_bare)
{
	all_answers("gpt.img", "2", "gpt-p2.img");
	all_answers("gpt.img", "3", "gpt-p3.img");
}

Test(disks, e01_sets_answer_as_bare)
{
	all_answers("mbr.E01", "5", "mbr-p5.img");
	all_answers("mbr.E01", "1", "mbr-p1.img");
	all_answers("gpt.E01", "2", "gpt-p2.img");
	all_answers("one.E01", "1", "one-p1.img");
}

Test(disks, e01_segments_renamed_out_of_order_read_by_their_numbers)
{
	all_answers("e01-renamed/one.E01", "1", "one-p1.img");
}

Test(disks, vmdk_answers_as_bare)
{
	all_answers("gpt.vmdk", "2", "gpt-p2.img");
	all_answers("gpt.vmdk", "3", "gpt-p3.img");
}

/* Its descriptor names the extent by the file's old name. */
Test(disks, a_renamed_sparse_vmdk_answers_as_bare)
{
	all_answers("renamed.vmdk", "2", "gpt-p2.img");
}

Test(disks, vhd_and_vhdx_answer_as_bare)
{
	all_answers("gpt.vhd", "2", "gpt-p2.img");
	all_answers("gpt.vhdx", "3", "gpt-p3.img");
}

Test(disks, qcow2_answers_as_bare)
{
	all_answers("gpt.qcow2", "2", "gpt-p2.img");
	all_answers("mbr.qcow2", "5", "mbr-p5.img");
}

/* A container holding a bare filesystem: the whole media is the device. */
Test(disks, a_bare_filesystem_in_a_container_is_the_whole_media)
{
	const char *img = disk("bare.vmdk"), *bare = disk("mbr-p5.img");
	struct cli_out x, y;

	run((const char *[]){ "filefrag", "-v", img, "/sparse", "/dir/numbers",
			      NULL }, &x);
	run((const char *[]){ "filefrag", "-v", bare, "/sparse", "/dir/numbers",
			      NULL }, &y);
	cr_assert_eq(x.status, 0, "%s", x.err);
	cr_assert_str_eq(x.out, y.out);
	cli_out_free(&x);
	cli_out_free(&y);
	run((const char *[]){ "check", "--offset", "0", img, NULL }, &x);
	cr_assert_eq(x.status, 0, "%s", x.err);
	cli_out_free(&x);
}

/* With no --partition, the only ext partition is the one read. */
Test(disks, the_only_ext_partition_is_chosen)
{
	const char *one = disk("one.img"), *bare = disk("one-p1.img");
	struct cli_out x, y;

	run((const char *[]){ "check", one, NULL }, &x);
	run((const char *[]){ "check", bare, NULL }, &y);
	cr_assert_eq(x.status, 0, "%s", x.err);
	cr_assert_str_eq(x.out, y.out);
	cli_out_free(&x);
	run((const char *[]){ "check", disk("one.E01"), NULL }, &x);
	cr_assert_str_eq(x.out, y.out);
	cli_out_free(&x);
	cli_out_free(&y);
}

static void assert_one_error(const struct cli_out *r, const char *want)
{
	const char *nl = strchr(r->err, '\n');

	cr_assert_eq(r->status, 1, "exit %d: %s", r->status, r->err);
	cr_assert(!strncmp(r->err, "e2map: ", 7), "%s", r->err);
	cr_assert(nl && !nl[1], "not one line: %s", r->err);
	cr_assert(strstr(r->err, want), "no '%s' in: %s", want, r->err);
}

static void fails(const char *cmd, const char *img, const char *part,
		  const char *want)
{
	struct cli_out r;

	if (part)
		run((const char *[]){ cmd, "--partition", part, img, NULL }, &r);
	else
		run((const char *[]){ cmd, img, NULL }, &r);
	assert_one_error(&r, want);
	cli_out_free(&r);
}

Test(disks, several_ext_partitions_are_listed_in_the_error)
{
	fails("check", disk("mbr.img"), NULL,
	      "3 ext2/3/4 partitions (1 ext4, 2 ext3, 5 ext2): choose one "
	      "with --partition N");
	fails("check", disk("gpt.E01"), NULL, "(2 ext4, 3 ext2)");
}

/*
 * owner --byte on a disk of several filesystems: each byte is answered in
 * the partition holding it, the line that --partition N gives; a byte in
 * no ext partition is an error line, the others still answered.
 */
Test(disks, owner_bytes_find_their_partition)
{
	static const struct { const char *byte, *part; } asked[] = {
		{ "1049600", "1" }, { "17826816", "2" }, { "0x1a00800", "5" },
		{ "17825792", "2" },
	};
	const char *img = disk("mbr.img");
	char want[4096] = "";
	struct cli_out r;
	size_t i;

	for (i = 0; i < sizeof(asked) / sizeof(*asked); i++) {
		run((const char *[]){ "owner", "--byte", "--partition",
				      asked[i].part, img, asked[i].byte, NULL },
		    &r);
		cr_assert_eq(r.status, 0, "%s: %s", asked[i].byte, r.err);
		strncat(want, r.out, sizeof(want) - strlen(want) - 1);
		cli_out_free(&r);
	}
	run((const char *[]){ "owner", "--byte", img, asked[0].byte, "100",
			      asked[1].byte, asked[2].byte, asked[3].byte,
			      NULL }, &r);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.out, want);
	cr_expect_str_eq(r.err, "e2map: owner: 100: no ext2/3/4 partition "
			 "holds that byte\n");
	cli_out_free(&r);
}

/*
 * e2map_disk_partition_at, behind owner --byte: each ext partition holds
 * its first and last byte and not the next; the table's sector, the
 * extended partition's EBRs and a partition without ext2/3/4 (6) are in
 * no filesystem.
 */
Test(disks, a_disk_byte_names_the_ext_partition_holding_it)
{
	struct e2map_disk *d;
	size_t ext = 0;

	cr_assert_eq(e2map_disk_read(disk("mbr.img"), &d), 0, "%s",
		     e2map_errmsg(NULL));
	for (size_t i = 0; i < d->count; i++) {
		const struct e2map_partition *p = &d->partitions[i];

		if (!e2map_partition_is_ext(p)) {
			cr_expect_null(e2map_disk_partition_at(d, p->start),
				       "%u: %s", p->number, p->fstype);
			continue;
		}
		ext++;
		cr_expect_eq(e2map_disk_partition_at(d, p->start), p);
		cr_expect_eq(e2map_disk_partition_at(d, p->start + p->size - 1), p);
		cr_expect_neq(e2map_disk_partition_at(d, p->start + p->size), p);
	}
	cr_expect_eq(ext, 3);
	cr_expect_null(e2map_disk_partition_at(d, 100));
	cr_expect_null(e2map_disk_partition_at(d, d->size));
	e2map_disk_free(d);
}

Test(disks, partition_numbers_that_name_no_filesystem_fail)
{
	fails("check", disk("mbr.img"), "4", "no partition 4 on this dos disk");
	fails("check", disk("mbr.img"), "3", "no partition 3");
	fails("check", disk("mbr.img"), "6", "not an ext2/3/4 filesystem");
	fails("check", disk("gpt.img"), "1", "not an ext2/3/4 filesystem");
	fails("check", disk("mbr-p1.img"), "1", "no partition 1 on this "
	      "unpartitioned disk");
}

Test(disks, bad_tables_fail_with_one_line)
{
	fails("partitions", disk("bad-past-end.img"), NULL,
	      "partition 3 (sectors 51200-92159) ends past the end of the "
	      "image (73728 sectors)");
	fails("check", disk("bad-past-end.img"), "1", "ends past the end");
	fails("partitions", disk("bad-overlap.img"), NULL,
	      "partitions 1 and 2 overlap");
	fails("check", disk("bad-overlap.img"), NULL, "overlap");
	fails("partitions", disk("bad-gpt-primary.img"), NULL,
	      "the primary GPT header is corrupt");
	fails("check", disk("bad-gpt-primary.img"), "2",
	      "the kernel reads no partitions from this disk");
	fails("partitions", disk("bad-gpt-both.img"), NULL,
	      "a protective MBR without a valid GPT");
}

Test(disks, damaged_e01_sets_fail_naming_the_segment)
{
	fails("partitions", disk("bad-e01-missing/one.E01"), NULL,
	      "one.E02 is the last segment found");
	fails("check", disk("bad-e01-missing/one.E01"), NULL,
	      "a segment missing or truncated");
	fails("du", disk("bad-e01-truncated/one.E01"), NULL,
	      "EWF: the segment set ends early");
	fails("check", disk("bad-e01-chunk/one.E01"), "1",
	      "a chunk's checksum does not match");
	fails("partitions", disk("bad-truncated.qcow2"), NULL,
	      "(the container is damaged or cut short)");
}

/* "nn : start= S, size= Z, type=T" of sfdisk -d, by partition number. */
static bool sfdisk_entry(const char *dump, unsigned nr, unsigned long long *s,
			 unsigned long long *z, char *type, size_t tsize)
{
	const char *p;

	for (p = dump; (p = strstr(p, " : start=")); p++) {
		const char *q = p;
		unsigned n = 0, mul = 1;

		while (q > dump && q[-1] >= '0' && q[-1] <= '9') {
			n += (unsigned)(q[-1] - '0') * mul;
			mul *= 10;
			q--;
		}
		if (n != nr)
			continue;
		if (sscanf(p, " : start= %llu, size= %llu, type=%39[^,\n]",
			   s, z, type) != 3)
			return false;
		(void)tsize;
		return true;
	}
	return false;
}


/* blkid's KEY for partition NR from NAME.blkid ("" when none). */
static const char *blkid_value(const char *rec, unsigned nr, const char *key)
{
	static char v[128];
	char head[32], k[32];
	const char *p = rec, *end;

	v[0] = '\0';
	snprintf(head, sizeof(head), "PARTITION=%u\n", nr);
	if (!(p = strstr(rec, head)))
		return v;
	p += strlen(head);
	end = strstr(p, "PARTITION=");
	snprintf(k, sizeof(k), "%s=", key);
	for (; *p && (!end || p < end); p = strchr(p, '\n') + 1) {
		if (!strncmp(p, k, strlen(k))) {
			sscanf(p + strlen(k), "%127[^\n]", v);
			break;
		}
		if (!strchr(p, '\n'))
			break;
	}
	return v;
}

/* e2map partitions --json IMG against BASE.sfdisk and BASE.blkid. */
static void listing_matches_at(const char *img, const char *base)
{
	const char *name = base;
	char rec[4200];
	struct cli_out r;
	json_error_t jerr;
	json_t *doc, *parts, *p;
	char *dump, *blk;
	size_t i;

	snprintf(rec, sizeof(rec), "%s.sfdisk", base);
	dump = slurp_file(rec);
	snprintf(rec, sizeof(rec), "%s.blkid", base);
	blk = slurp_file(rec);
	run((const char *[]){ "partitions", "--json", img, NULL }, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_loads(r.out, 0, &jerr);
	cr_assert(doc, "%s", r.out);
	parts = json_object_get(doc, "partitions");
	cr_assert_gt(json_array_size(parts), 0);
	json_array_foreach(parts, i, p) {
		unsigned nr = (unsigned)json_integer_value(json_object_get(p,
								"number"));
		unsigned long long s, z;
		char type[40];
		const char *t = json_string_value(json_object_get(p, "type"));
		json_t *fs = json_object_get(p, "filesystem");
		const char *fst = json_is_object(fs) ? json_string_value(
			json_object_get(fs, "type")) : "";
		const char *fsu = json_is_object(fs) ? json_string_value(
			json_object_get(fs, "uuid")) : "";

		cr_assert(sfdisk_entry(dump, nr, &s, &z, type, sizeof(type)),
			  "partition %u not in sfdisk -d of %s", nr, name);
		cr_assert_eq(json_integer_value(json_object_get(p,
			     "start_sector")), (json_int_t)s, "%s %u", img, nr);
		cr_assert_eq(json_integer_value(json_object_get(p, "sectors")),
			     (json_int_t)z, "%s %u", img, nr);
		/* sfdisk: "83", GPT GUIDs in capitals; e2map: "0x83". */
		if (t[1] == 'x')
			cr_assert_eq(strtoul(t, NULL, 16),
				     strtoul(type, NULL, 16), "%s %u: type %s, "
				     "sfdisk %s", img, nr, t, type);
		else
			cr_assert(!strcasecmp(t, type), "%s %u: type %s, "
				  "sfdisk %s", img, nr, t, type);
		cr_assert_str_eq(fst, blkid_value(blk, nr, "TYPE"), "%s %u", img,
				 nr);
		cr_assert_str_eq(fsu, blkid_value(blk, nr, "UUID"), "%s %u", img,
				 nr);
	}
	/* Every sfdisk entry is listed. */
	i = 0;
	for (const char *q = dump; (q = strstr(q, " : start=")); q++)
		i++;
	cr_assert_eq(i, json_array_size(parts), "%s: sfdisk lists %zu", img,
		     i);
	json_decref(doc);
	cli_out_free(&r);
	free(dump);
	free(blk);
}

static void listing_matches(const char *img, const char *name)
{
	char rec[64];

	snprintf(rec, sizeof(rec), "%s.sfdisk", name);
	listing_matches_at(img, strndup(disk(rec), strlen(disk(rec)) - 7));
}

Test(disks, partitions_lists_what_sfdisk_and_blkid_see)
{
	listing_matches(disk("mbr.img"), "mbr");
	listing_matches(disk("gpt.img"), "gpt");
	listing_matches(disk("one.img"), "one");
	/* The kernel's numbers: the slot or entry, not the rank. */
	listing_matches(disk("gap-mbr.img"), "gap-mbr");
	listing_matches(disk("gap-gpt.img"), "gap-gpt");
}

Test(disks, partitions_through_containers_list_the_same)
{
	listing_matches(disk("mbr.E01"), "mbr");
	listing_matches(disk("mbr.qcow2"), "mbr");
	/* an EBR 10 MiB from any partition: the chain is followed */
	listing_matches(disk("far-mbr.qcow2"), "far-mbr");
	listing_matches(disk("gpt.E01"), "gpt");
	listing_matches(disk("gpt.vmdk"), "gpt");
	listing_matches(disk("gpt.vhd"), "gpt");
	listing_matches(disk("gpt.vhdx"), "gpt");
	listing_matches(disk("gpt.qcow2"), "gpt");
	listing_matches(disk("e01-renamed/one.E01"), "one");
}

Test(disks, partitions_names_the_container_format)
{
	static const char *const want[][2] = {
		{ "gpt.img", "raw" }, { "gpt.E01", "ewf" },
		{ "gpt.vmdk", "vmdk" }, { "gpt.vhd", "vhd" },
		{ "gpt.vhdx", "vhd" }, { "gpt.qcow2", "qcow" },
	};
	struct e2map_disk *d;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_eq(e2map_disk_read(disk(want[i][0]), &d), 0, "%s: %s",
			     want[i][0], e2map_errmsg(NULL));
		cr_assert_str_eq(d->format, want[i][1]);
		cr_assert_str_eq(d->table, "gpt");
		cr_assert_eq(d->count, 3);
		cr_assert_str_eq(d->partitions[1].name, "data");
		cr_assert_str_eq(d->partitions[1].label, "data");
		e2map_disk_free(d);
	}
	cr_assert_eq(e2map_disk_read(disk("gpt-p2.img"), &d), 0);
	cr_assert_str_eq(d->table, "");
	cr_assert_eq(d->count, 0);
	e2map_disk_free(d);
	e2map_disk_free(NULL);
}

Test(disks, library_options_partition)
{
	e2map_t *m;

	cr_assert_eq(e2map_open(disk("mbr.img"), "partition=5", &m), 0, "%s",
		     e2map_errmsg(NULL));
	e2map_close(m);
	cr_assert_eq(e2map_open(disk("mbr.img"), NULL, &m), -EINVAL);
	cr_assert_null(m);
	cr_assert_eq(e2map_open(disk("mbr.img"), "partition=9", &m), -ENXIO);
	cr_assert_eq(e2map_open(disk("mbr.img"), "partition=0", &m), -EINVAL);
	cr_assert_eq(e2map_open(disk("mbr.img"), "partition=x", &m), -EINVAL);
	cr_assert_eq(e2map_open(disk("mbr.img"), "partition=1,offset=512", &m),
		     -EINVAL);
	cr_assert_eq(e2map_open(disk("bad-gpt-both.img"), "partition=2", &m),
		     -EUCLEAN);
	cr_assert_eq(e2map_open(disk("bad-e01-missing/one.E01"), NULL, &m),
		     -EIO);
	/* A bare filesystem image is one, as before. */
	cr_assert_eq(e2map_open(disk("mbr-p5.img"), NULL, &m), 0);
	e2map_close(m);
}

/* The io manager: read-only, bounded, whatever libext2fs asks. */
Test(disks, io_manager_is_read_only_and_bounded)
{
	io_channel ch;
	char buf[2048];

	cr_assert_eq(e2map__io_manager->open(disk("gpt.qcow2"), IO_FLAG_RW,
					     &ch), EROFS);
	cr_assert_eq(e2map__io_manager->open(disk("gpt.qcow2"), 0, &ch), 0);
	cr_assert_eq(io_channel_set_options(ch, "offset=3145728&size=4096"),
		     0);
	cr_assert_eq(io_channel_write_blk64(ch, 0, 1, buf), EROFS);
	cr_assert_eq(io_channel_write_byte(ch, 0, 1, buf), EROFS);
	cr_assert_eq(io_channel_discard(ch, 0, 1), EROFS);
	cr_assert_eq(io_channel_zeroout(ch, 0, 1), EROFS);
	cr_assert_eq(io_channel_set_blksize(ch, 2048), 0);
	cr_assert_eq(io_channel_read_blk64(ch, 1, 1, buf), 0);
	memset(buf, 0x55, sizeof(buf));
	cr_assert_eq(io_channel_read_blk64(ch, 2, 1, buf), EXT2_ET_SHORT_READ);
	cr_assert_eq(buf[0], 0, "past the window reads as zeroes");
	cr_assert_eq(io_channel_read_blk64(ch, 1ULL << 40, 1, buf),
		     EXT2_ET_SHORT_READ);
	cr_assert_eq(io_channel_read_blk64(ch, ~0ULL >> 4, 1, buf),
		     EXT2_ET_LLSEEK_FAILED, "an offset past 2^64 bytes");
	cr_assert_eq(io_channel_set_options(ch, "size=99999999999"),
		     EXT2_ET_INVALID_ARGUMENT);
	cr_assert_eq(io_channel_set_options(ch, "frob=1"),
		     EXT2_ET_INVALID_ARGUMENT);
	io_channel_close(ch);
}

/*
 * Debian's forensics-samples (real evidence-like whole disks nobody here
 * made; .ci/run installs them): each decompressed into a scratch
 * directory, its table recorded with sfdisk and blkid there.
 */
#define SAMPLES "/usr/share/forensics-samples"

static char sample_dir[] = "/tmp/e2map-samples-XXXXXX";

static const char *sample(const char *name)
{
	static char img[128];
	char cmd[512], xz[128];

	snprintf(xz, sizeof(xz), SAMPLES "/fs.%s.xz", name);
	if (access(xz, R_OK) < 0)
		cr_skip_test("%s is not installed (Debian's forensics-samples-"
			     "ext2, -ext4, -multiple; .ci/run installs them)", xz);
	cr_assert(mkdtemp(sample_dir));
	snprintf(img, sizeof(img), "%s/%s.img", sample_dir, name);
	snprintf(cmd, sizeof(cmd), "xz -dc %s > %s && scripts/record/disk.sh "
		 "%s %s/%s", xz, img, img, sample_dir, name);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return img;
}

static void sample_done(void)
{
	char cmd[128];

	if (strcmp(sample_dir, "/tmp/e2map-samples-XXXXXX")) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", sample_dir);
		if (system(cmd) != 0)
			cr_log_warn("could not remove %s", sample_dir);
	}
}

static void sample_listing(const char *name)
{
	const char *img = sample(name);
	char base[128];

	snprintf(base, sizeof(base), "%s/%s", sample_dir, name);
	listing_matches_at(img, base);
}

Test(samples, ext2_partitions_as_sfdisk_and_blkid_see, .fini = sample_done,
     .timeout = 120)
{
	sample_listing("ext2");
}

Test(samples, ext4_partitions_as_sfdisk_and_blkid_see, .fini = sample_done,
     .timeout = 120)
{
	sample_listing("ext4");
}

Test(samples, multiple_partitions_as_sfdisk_and_blkid_see,
     .fini = sample_done, .timeout = 120)
{
	sample_listing("multiple");
}

/*
 * fs.multiple's partition 2 holds 40,960 1 KiB blocks and its ext4
 * claims 142,336: the kernel refuses to mount it ("bad geometry: block
 * count 142336 exceeds size of device (40960 blocks)"), and so does e2map.
 * Being the only ext partition, it is the one chosen without --partition.
 */
Test(samples, a_filesystem_larger_than_its_partition_is_refused,
     .fini = sample_done, .timeout = 120)
{
	const char *img = sample("multiple");
	const char *want = "partition 2: bad geometry: block count 142336 "
			   "exceeds size of device (40960 blocks): the kernel "
			   "refuses to mount it";

	fails("check", img, "2", want);
	fails("check", img, NULL, want);
	fails("check", img, "3", "not an ext2/3/4 filesystem");
}

/* mkdisks.sh's disks against the kernel, each partition on a loop mount. */
Test(disks, every_file_answers_as_the_kernel_on_a_loop_mount,
     .timeout = 600)
{
	char cmd[4096 * 2 + 64];
	int rc;

	snprintf(cmd, sizeof(cmd), "scripts/check/samples.sh %s %s >&2",
		 disk("mbr.img"), disk("gpt.img"));
	rc = system(cmd);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		cr_skip_test("scripts/check/samples.sh: cannot mount here (not "
			     "root, or loop mounts refused)");
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
		  "scripts/check/samples.sh found differences (its output "
		  "above)");
}

/* The live comparison: every file against the kernel on a loop mount. */
Test(samples, every_file_answers_as_the_kernel_on_a_loop_mount,
     .timeout = 600)
{
	int rc;

	if (access(SAMPLES "/fs.ext2.xz", R_OK) < 0)
		cr_skip_test("the forensics samples are not installed");
	rc = system("scripts/check/samples.sh " SAMPLES "/fs.*.xz >&2");
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		cr_skip_test("scripts/check/samples.sh: cannot mount here (not "
			     "root, or loop mounts refused)");
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
		  "scripts/check/samples.sh found differences (its output "
		  "above)");
}

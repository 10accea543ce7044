/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2map partitions: the disk an image holds (its container format, its
 * partition table as libblkid reads it) and, per partition, the number
 * the kernel gives it, where it lies in bytes and sectors, its type and
 * the filesystem libblkid finds in it: the numbers --partition takes.
 */
#include "cmd.h"

#include <string.h>

static const struct cmd_option partitions_options[] = {
	CMD_OPT_JSON("{\"image\",\"format\",\"size\",\"sectors\",\"table\","
		     "\"table_id\",\n\"partitions\":[{\"number\",\"start\","
		     "\"size\",\"start_sector\",\"sectors\",\n\"extended\","
		     "\"type\",\"name\",\"uuid\",\"filesystem\":{\"type\","
		     "\"label\",\"uuid\"}}]}"),
	CMD_OPT_END,
};

const struct cmd_spec partitions_spec = {
	.options = partitions_options,
	.operands = "IMAGE",
	.min_operands = 1,
	.max_operands = 1,
	.about =
"Lists the partitions of the disk IMAGE holds, a raw disk image or a\n"
"container (EnCase E01/Ex01, VMDK, VHD/VHDX, QCOW2), as libblkid reads its\n"
"MBR (logical partitions included) or GPT: a line per partition with the\n"
"number the kernel gives it (sda1...; logical ones from 5), its start and\n"
"size in 512-byte sectors and in bytes, its type (MBR code or GPT type\n"
"GUID), and the filesystem libblkid finds in it with its label and UUID\n"
"(- for none).  A table past the end of the image, overlapping partitions\n"
"or a corrupt GPT header is an error, exit 1.\n"
"\n"
"Examples:\n"
"  e2map partitions disk.E01\n"
"  e2map check --partition 5 disk.img\n",
};

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void print_text(const char *image, const struct e2map_disk *d)
{
	printf("%s: %s, %llu bytes, %llu sectors, %s%s%s\n", cmd_esc(image),
	       d->format, (unsigned long long)d->size,
	       (unsigned long long)(d->size / 512),
	       d->table[0] ? d->table : "no partition table",
	       d->table_id[0] ? " " : "", d->table_id);
	if (!d->count)
		return;
	printf("%3s %12s %12s %14s %14s %-36s %-8s %s %s\n", "NR",
	       "START-SECTOR", "SECTORS", "START", "SIZE", "TYPE", "FS",
	       "LABEL", "UUID");
	for (size_t i = 0; i < d->count; i++) {
		const struct e2map_partition *p = &d->partitions[i];

		printf("%3u %12llu %12llu %14llu %14llu %-36s %-8s %s %s\n",
		       p->number, (unsigned long long)p->start_sector,
		       (unsigned long long)p->sectors,
		       (unsigned long long)p->start,
		       (unsigned long long)p->size, p->type,
		       p->extended ? "extended" : or_dash(p->fstype),
		       cmd_esc(or_dash(p->label)), or_dash(p->fsuuid));
	}
}

static json_t *json_filesystem(const struct e2map_partition *p)
{
	json_t *o;

	if (!p->fstype[0])
		return json_null();
	o = json_object();
	cmd_json_set(o, "type", json_string(p->fstype));
	cmd_json_set_name(o, "label", p->label, strlen(p->label));
	cmd_json_set(o, "uuid", json_string(p->fsuuid));
	return o;
}

static json_t *json_partition(const struct e2map_partition *p)
{
	json_t *o = json_object();

	cmd_json_set(o, "number", cmd_json_u64(p->number));
	cmd_json_set(o, "start", cmd_json_u64(p->start));
	cmd_json_set(o, "size", cmd_json_u64(p->size));
	cmd_json_set(o, "start_sector", cmd_json_u64(p->start_sector));
	cmd_json_set(o, "sectors", cmd_json_u64(p->sectors));
	cmd_json_set(o, "extended", json_boolean(p->extended));
	cmd_json_set(o, "type", json_string(p->type));
	cmd_json_set_name(o, "name", p->name, strlen(p->name));
	cmd_json_set(o, "uuid", json_string(p->uuid));
	cmd_json_set(o, "filesystem", json_filesystem(p));
	return o;
}

static int print_json(const char *image, const struct e2map_disk *d)
{
	json_t *doc = json_object(), *list = json_array();

	cmd_json_set_name(doc, "image", image, strlen(image));
	cmd_json_set(doc, "format", json_string(d->format));
	cmd_json_set(doc, "size", cmd_json_u64(d->size));
	cmd_json_set(doc, "sectors", cmd_json_u64(d->size / 512));
	cmd_json_set(doc, "table", d->table[0] ? json_string(d->table)
					       : json_null());
	cmd_json_set(doc, "table_id", json_string(d->table_id));
	for (size_t i = 0; i < d->count; i++)
		cmd_json_append(list, json_partition(&d->partitions[i]));
	cmd_json_set(doc, "partitions", list);
	return cmd_json_print(doc) < 0 ? CMD_EXIT_FAIL : 0;
}

/* IMAGE is a disk, not a filesystem: the dispatcher opens nothing. */
int cmd_partitions(struct cmd_ctx *ctx)
{
	const char *disk = ctx->ops.v[0], *why;
	struct e2map_disk *d;
	int status = 0, err;

	if ((err = e2map_disk_read(disk, &d)) < 0) {
		why = e2map_errmsg(NULL);
		cmd_errorf("partitions: %s: %s", cmd_esc(disk),
			   *why ? why : e2map_strerror(err));
		return CMD_EXIT_FAIL;
	}
	if (ctx->co.json)
		status = print_json(disk, d);
	else
		print_text(disk, d);
	e2map_disk_free(d);
	return status;
}

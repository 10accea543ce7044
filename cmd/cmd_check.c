/*
 * e2map check: every inode in use through the whole mapping walk (seek
 * walk, FIEMAP listing, FIEMAP_FLAG_XATTR), one line per inode and a
 * summary.  An image that opens exits 0 whatever its inodes say.
 */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

struct check_run {
	bool quiet;
	uint64_t inodes, errors;
};

void check_help(void)
{
	fputs(
"Opens IMAGE and runs, for every inode in use, the whole SEEK_DATA/\n"
"SEEK_HOLE walk, the whole FIEMAP listing and a FIEMAP_FLAG_XATTR call,\n"
"printing `<INO> KIND ok` or the error the kernel would give, then\n"
"`N inodes, M errors`.  Exit 0 when the image opened, 1 when it did not.\n"
"\n"
"Example:\n"
"  e2map check evidence.img\n"
"\n"
"  -q              print only the inodes that failed, and the summary\n"
"  --offset BYTES  the filesystem starts at that byte of IMAGE\n", stdout);
}

/* An inode holding a large xattr value for its parent (ea_inode). */
#define EA_INODE_FL 0x00200000

static const char *kind_name(uint32_t mode, uint32_t flags)
{
	if (flags & EA_INODE_FL)
		return "ea_inode";
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	default: return "special";
	}
}

/* Symlinks and special files cannot be mapped: opening them says so. */
static bool expected_refusal(uint32_t mode, int err)
{
	return (S_ISLNK(mode) && err == -ELOOP) ||
	       (!S_ISLNK(mode) && !S_ISREG(mode) && !S_ISDIR(mode) &&
		err == -ENXIO);
}

static int check_inode(e2map_t *m, uint64_t ino, uint32_t mode)
{
	struct e2map_check_stats st;
	int err = e2map_inode_check(m, ino, &st);

	return expected_refusal(mode, err) ? 0 : err;
}

static int visit(e2map_t *m, const struct e2map_inode *in, void *payload)
{
	struct check_run *run = payload;
	int err = in->err ? in->err : check_inode(m, in->ino, in->mode);

	run->inodes++;
	if (err)
		run->errors++;
	if (err)
		printf("<%llu> %s %s (%s)\n", (unsigned long long)in->ino,
		       in->err ? "group" : kind_name(in->mode, in->flags),
		       e2map_strerror(err), e2map_errmsg(m));
	else if (!run->quiet)
		printf("<%llu> %s ok\n", (unsigned long long)in->ino,
		       kind_name(in->mode, in->flags));
	return 0;
}

static int parse_opts(int argc, char **argv, struct check_run *run,
		      struct cmd_common *co)
{
	static const struct option longopts[] = {
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+q", longopts, NULL)) != -1) {
		if (c == 'q')
			run->quiet = true;
		else if (c == OPT_OFFSET)
			co->offset = optarg;
		else if (c == OPT_HELP)
			return check_help(), 0;
		else
			return cmd_bad_option("check", argv);
	}
	return argc - optind == 1 ? -1 : cmd_usage("check");
}

int cmd_check(int argc, char **argv)
{
	struct check_run run = { 0 };
	struct cmd_common co = { 0 };
	e2map_t *m;
	int status = parse_opts(argc, argv, &run, &co), err;

	if (status >= 0)
		return status;
	if ((status = cmd_open_image("check", &co, argv[optind], &m)))
		return status;
	err = e2map_scan(m, visit, &run);
	printf("%llu inodes, %llu errors\n", (unsigned long long)run.inodes,
	       (unsigned long long)run.errors);
	if (err)
		cmd_fail("check: scan", err, e2map_errmsg(m));
	e2map_close(m);
	return 0;
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Prove the README's two commands on a fresh Debian 12: debootstrap a
# minbase bookworm root, install only make there (what a bare system lacks
# for them), put a clean clone of this repository's HEAD in /root/e2map and
# run `make run`, then `make test`, each once: each must pass the first time.
#
#   scripts/check/fresh.sh          (root; make check-fresh)
#
# Environment:
#   CHECK_FRESH_DIR=DIR     where the root is made (default /var/tmp; ~2 GB)
#   CHECK_FRESH_CACHE=DIR   .debs kept between runs (default
#                           /var/cache/e2map-check-fresh; empty: no cache)
#   CHECK_FRESH_LOGS=DIR    the logs (default build/check-fresh in the tree)
#   CHECK_FRESH_SUITE=S     the release (default bookworm)
#   KEEP=1                  keep the root afterwards (its mounts are undone)
#
# make test runs with CRITERION_OUTPUTS=json:... (a report file, no other
# change): the summary counts the skipped tests and lists why they skipped.
#
# The mirrors, suites and components are this machine's apt sources' (deb822
# and one-line, *.disabled* files ignored) for SUITE, SUITE-updates and
# SUITE-security.  /proc, /sys and /dev are bound into the root, /dev/pts is
# not (a bare chroot has none); every mount is undone on every way out.
set -euo pipefail
{ # read whole before it runs: an edit or checkout meanwhile cannot derail it

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
suite=${CHECK_FRESH_SUITE:-bookworm}
base=${CHECK_FRESH_DIR:-/var/tmp}
cache=${CHECK_FRESH_CACHE-/var/cache/e2map-check-fresh}
logs=${CHECK_FRESH_LOGS:-$top/build/check-fresh}
t_start=$(date +%s)

say() { printf 'check-fresh: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }
skip() { say "SKIPPED: $*"; exit 0; }

[ "$(id -u)" = 0 ] ||
	die "must run as root (debootstrap, chroot and bind mounts need it): sudo make check-fresh"
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	die "$top is not a git checkout (the root gets a clone of its HEAD)"
if ! command -v debootstrap >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
	say "installing debootstrap (scripts/deps.sh fresh)"
	"$top/scripts/deps.sh" fresh
fi
for t in debootstrap git chroot mount umount findmnt flock ps; do
	command -v "$t" >/dev/null 2>&1 || die "no $t here"
done

# --- This machine's apt sources: "URI SUITE COMPONENT..." per line. ---
sources_oneline() { # FILE: deb [options] URI SUITE COMPONENT...
	awk '$1 == "deb" {
		i = 2
		if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
		if (i + 1 > NF) next
		line = $i " " $(i + 1)
		for (j = i + 2; j <= NF && $j !~ /^#/; j++) line = line " " $j
		print line
	}' "$1"
}
sources_deb822() { # FILE: paragraphs of Types/URIs/Suites/Components/Enabled
	awk '
	function flush(   nu, ns, u, s, i, j, ok) {
		if (f["types"] != "") {
			ok = 0
			n = split(f["types"], ty, " ")
			for (i = 1; i <= n; i++) if (ty[i] == "deb") ok = 1
			if (tolower(f["enabled"]) == "no") ok = 0
			if (ok) {
				nu = split(f["uris"], u, " ")
				ns = split(f["suites"], s, " ")
				for (i = 1; i <= nu; i++)
					for (j = 1; j <= ns; j++)
						print u[i], s[j], f["components"]
			}
		}
		delete f; key = ""
	}
	/^[ \t]*$/ { flush(); next }
	/^#/ { next }
	/^[ \t]/ { if (key != "") f[key] = f[key] " " $0; next }
	{
		k = tolower(substr($0, 1, index($0, ":") - 1))
		v = substr($0, index($0, ":") + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", v)
		key = (k == "types" || k == "uris" || k == "suites" || \
		       k == "components" || k == "enabled") ? k : ""
		if (key != "") f[key] = v
	}
	END { flush() }' "$1" | awk '{ $1 = $1; print }'
}
apt_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		case $f in *.disabled*) continue ;; esac
		[ -f "$f" ] && sources_oneline "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		case $f in *.disabled*) continue ;; esac
		[ -f "$f" ] && sources_deb822 "$f"
	done
	return 0
}
# The root's sources: this machine's entries for SUITE, SUITE-updates and
# SUITE-security; Debian's own mirrors for any of them the machine lacks.
mine=$(apt_sources | awk -v s="$suite" \
	'$2 == s || $2 == s "-updates" || $2 == s "-security"' | sort -u)
pick() { # SUITE: this machine's lines for that suite
	printf '%s\n' "$mine" | awk -v s="$1" '$2 == s'
}
main_src=$(pick "$suite")
: "${main_src:=http://deb.debian.org/debian $suite main}"
updates_src=$(pick "$suite-updates")
: "${updates_src:=$(printf '%s\n' "$main_src" | awk -v s="$suite-updates" '{ $2 = s; print }')}"
security_src=$(pick "$suite-security")
: "${security_src:=http://deb.debian.org/debian-security $suite-security main}"
root_sources=$(printf '%s\n' "$main_src" "$updates_src" "$security_src")
mirror=$(printf '%s\n' "$main_src" | awk 'NR == 1 { print $1 }')
components=$(printf '%s\n' "$main_src" | awk 'NR == 1 {
	for (i = 3; i <= NF; i++) c = c (c == "" ? "" : ",") $i; print c }')
say "sources for the root:"
printf '%s\n' "$root_sources" | sed 's/^/  deb /'

# The mirror must answer, or there is nothing to prove here.
release=$mirror/dists/$suite/Release
if command -v curl >/dev/null 2>&1; then
	curl -fsS -o /dev/null --max-time 30 "$release" 2>/dev/null ||
		skip "the mirror does not answer ($release)"
elif command -v wget >/dev/null 2>&1; then
	wget -q -O /dev/null --timeout=30 "$release" ||
		skip "the mirror does not answer ($release)"
fi

mkdir -p "$base" "$logs"
avail=$(df -Pk "$base" | awk 'NR == 2 { print $4 }')
[ "$avail" -ge 2500000 ] ||
	die "$base has $((avail / 1024)) MiB free; the root needs about 2.5 GB (CHECK_FRESH_DIR=DIR)"
root=$(mktemp -d "$base/e2map-fresh.XXXXXX")
chmod 755 "$root" # mktemp's 0700 would shut every other user (apt's _apt) out of /
rm -f "$logs"/*.log

# --- Every way out: end what still runs in the root, undo its mounts,
# keep the .debs, remove the root (unless KEEP=1). ---
mounts_under() { # the mount points in the root, deepest first
	findmnt -rn -o TARGET | awk -v r="$root" 'index($0, r "/") == 1 || $0 == r' |
		sort -r
}
in_root_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
	return 0
}
save_debs() {
	local a=$root/var/cache/apt/archives
	[ -n "$cache" ] && compgen -G "$a/*.deb" >/dev/null || return 0
	(
		flock 9
		rm -rf "$cache/apt.new" && mkdir -p "$cache/apt.new" || exit
		for f in "$a"/*.deb; do
			ln "$f" "$cache/apt.new/" 2>/dev/null || cp "$f" "$cache/apt.new/" || exit
		done
		rm -rf "$cache/apt" && mv "$cache/apt.new" "$cache/apt"
	) 9>"$cache/.lock"
}
# The long steps run in the background and are waited for, so that a
# signal is handled at once (bash runs no trap while a foreground child
# runs); cleanup ends the step's processes, deepest first.
child=
bg() { # LOG CMD...: CMD, its output in LOG
	local log=$1
	shift
	"$@" </dev/null >"$log" 2>&1 &
	child=$!
	wait "$child"
}
kids() { # PID: its descendants, deepest first
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		kids "$c"
		echo "$c"
	done
}
cleanup() {
	local rc=$? pids m pass
	set +e
	trap - EXIT INT TERM HUP
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		pids="$(kids "$child") $child"
		say "interrupted: ending" $pids
		kill -TERM $pids 2>/dev/null
		sleep 3
		kill -KILL $pids 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	pids=$(in_root_pids)
	if [ -n "$pids" ]; then
		say "ending what still runs in the root:" $pids
		kill -TERM $pids 2>/dev/null
		sleep 2
		pids=$(in_root_pids)
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
		sleep 1
	fi
	for pass in 1 2 3; do
		m=$(mounts_under)
		[ -n "$m" ] || break
		for m in $m; do
			m=$(printf '%b' "$m") # findmnt -r writes a space as \x20
			umount "$m" 2>/dev/null || { [ "$pass" -lt 3 ] || umount -l "$m"; }
		done
	done
	m=$(mounts_under)
	if [ -n "$m" ]; then
		say "ERROR: still mounted in $root (not removed):" $m >&2
		exit 1
	fi
	save_debs
	if [ "${KEEP:-0}" = 1 ]; then
		say "kept the root: $root (nothing is mounted in it)"
	else
		rm -rf --one-file-system "$root"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- 1. debootstrap ---
dbs_opts=(--variant=minbase "--components=$components")
case $mirror in https:*) dbs_opts+=(--include=ca-certificates) ;; esac
if [ -n "$cache" ]; then
	mkdir -p "$cache/debootstrap"
	dbs_opts+=("--cache-dir=$cache/debootstrap")
fi
say "debootstrap $suite ($mirror) into $root ..."
t0=$(date +%s)
dbs() {
	if [ -n "$cache" ]; then
		# One debootstrap at a time fills the cache.
		( flock 9 && debootstrap "${dbs_opts[@]}" "$suite" "$root" "$mirror" ) \
			9>"$cache/.lock"
	else
		debootstrap "${dbs_opts[@]}" "$suite" "$root" "$mirror"
	fi
}
if ! bg "$logs/debootstrap.log" dbs; then
	tail -n 30 "$logs/debootstrap.log" >&2
	die "debootstrap failed (log: $logs/debootstrap.log)"
fi
t_dbs=$(($(date +%s) - t0))
say "debootstrap ok (${t_dbs}s)"

# Its apt sources: this machine's (one deb822 file, as Debian 12 writes).
rm -f "$root/etc/apt/sources.list"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
printf '%s\n' "$root_sources" | awk -v k="$keyring" -v havek="$([ -f "$root$keyring" ] && echo 1)" '{
	if (NR > 1) print ""
	print "Types: deb"; print "URIs: " $1; print "Suites: " $2
	c = $3; for (i = 4; i <= NF; i++) c = c " " $i
	print "Components: " c
	if (havek) print "Signed-By: " k
}' >"$root/etc/apt/sources.list.d/debian.sources"
[ -s "$root/etc/resolv.conf" ] || cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# /proc, /sys, /dev (not /dev/pts, nor /dev/shm: not recursive).
for d in proc sys dev; do
	mount --bind "/$d" "$root/$d"
done

# A root login's environment, nothing of ours.
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
		SHELL=/bin/bash PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		"$@"
}

# --- 2. What the README has a bare system install first: make. ---
# The last run's .debs spare the downloads (apt still installs each one).
if [ -n "$cache" ] && compgen -G "$cache/apt/*.deb" >/dev/null; then
	for f in "$cache"/apt/*.deb; do
		d=$root/var/cache/apt/archives/${f##*/}
		[ -e "$d" ] || ln "$f" "$d" 2>/dev/null || cp "$f" "$d"
	done
fi
say "apt-get update; apt-get install make ..."
t0=$(date +%s)
if ! bg "$logs/apt.log" in_root sh -c \
	'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y make'; then
	tail -n 30 "$logs/apt.log" >&2
	die "installing make in the root failed (log: $logs/apt.log)"
fi

# A clean clone of HEAD: what a user gets, without this tree's builds.
head=$(git -C "$top" rev-parse HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	say "note: uncommitted changes in $top are not in the clone (HEAD $head)"
git clone -q --no-hardlinks --no-checkout "$top" "$root/root/e2map"
git -C "$root/root/e2map" checkout -q -B check-fresh "$head"
t_make=$(($(date +%s) - t0))
say "make installed, clone of $(git -C "$top" log -1 --format='%h %s' | cut -c1-60) (${t_make}s)"

# --- 3. The README's two commands, once each. ---
run_phase() { # NAME [VAR=VALUE...]: make NAME in the clone; its seconds in $secs
	local t0 rc=0 name=$1
	shift
	say "make $name ..."
	t0=$(date +%s)
	bg "$logs/make-$name.log" in_root "$@" sh -c "cd /root/e2map && make $name" || rc=$?
	secs=$(($(date +%s) - t0))
	if [ "$rc" != 0 ]; then
		echo "----- failures in $logs/make-$name.log -----" >&2
		grep -a -E '^\[(FAIL|----)\]|Synthesis:' "$logs/make-$name.log" | tail -n 40 >&2
		echo "----- tail of $logs/make-$name.log -----" >&2
		tail -n 60 "$logs/make-$name.log" >&2
		die "make $name FAILED on its first run in a fresh root (exit $rc, ${secs}s; log: $logs/make-$name.log)"
	fi
	say "make $name ok (${secs}s)"
}
run_phase run
t_run=$secs
# Criterion's JSON report too (an output, nothing more): the skipped
# tests, which its "Synthesis:" line leaves out, and why they skipped.
report=/root/criterion-report.json
run_phase test "CRITERION_OUTPUTS=json:$report"
t_test=$secs

synth=$(sed 's/\x1b\[[0-9;]*m//g' "$logs/make-test.log" | grep -a 'Synthesis:' | tail -n 1)
num() { printf '%s\n' "$synth" | sed -n "s/.*$1: *\([0-9]*\).*/\1/p"; }
passing=$(num Passing) failing=$(num Failing) crashing=$(num Crashing)
failed=$((${failing:-0} + ${crashing:-0}))
skipped=?
if [ -s "$root$report" ]; then
	cp "$root$report" "$logs/criterion-report.json"
	# Its count, and "suite::test: message" per skipped test.  Criterion
	# 2.4 writes messages unescaped (no JSON parser takes them), so the
	# lines of its fixed layout are read as lines.
	skipped=$(sed -n 's/^  "skipped": *\([0-9]*\).*/\1/p' "$root$report" | head -n 1)
	awk '
	function val(l) { sub(/^[^:]*: *"/, "", l); sub(/",? *$/, "", l); return l }
	/^      "name": /     { suite = val($0) }
	/^          "name": / { test = val($0); status = ""; msg = ""; inmsg = 0 }
	/^          "status": / { status = val($0) }
	inmsg && /^          \]/ { inmsg = 0; next }
	inmsg { m = $0; sub(/^ *"/, "", m); sub(/",? *$/, "", m); msg = msg (msg == "" ? "" : " ") m; next }
	/^          "messages": \[ *$/ { inmsg = 1; next }
	/^          "messages": \[/ { m = $0; sub(/^[^[]*\[ *"/, "", m); sub(/" *\] *,? *$/, "", m); msg = m }
	/^        }/ { if (status == "SKIPPED") print suite "::" test ": " msg; status = "" }
	' "$root$report" >"$logs/skipped.txt"
	: "${skipped:=?}"
	if [ "$skipped" != "?" ] && [ "$skipped" -gt 0 ]; then
		say "skipped (why, how many; all in $logs/skipped.txt):"
		sed 's/^[^:]*::[^:]*: //' "$logs/skipped.txt" | sort | uniq -c | sort -rn | sed 's/^/  /'
	fi
fi
say "timings: debootstrap ${t_dbs}s, apt-get install make + clone ${t_make}s, make run ${t_run}s, make test ${t_test}s, total $(($(date +%s) - t_start))s"
say "make run ok (${t_run}s), make test ok (${t_test}s): ${passing:-?} passed, $failed failed, $skipped skipped"
exit
}

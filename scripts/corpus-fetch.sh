#!/bin/bash
# Brings the corpus of published limiters onto this machine: each script
# profiles/corpus/sources.tsv names is taken, exactly as its project
# publishes it, from the package its project ships through a package
# registry (a Go module, an npm package, a Debian package), checked against
# the SHA-256 recorded there, and written with the package's licence beside
# the profiles that declare it; then each buggy variant is made from its
# script by the one-line change in <script>.bug-<kind>.diff. None of these
# scripts is part of rlbench's sources: they are fetched, never committed.
#
#   scripts/corpus-fetch.sh            into profiles/corpus (git ignores them)
#   scripts/corpus-fetch.sh DIR        into DIR/<project>/, profiles copied too
#
# Downloads are kept in $RLBENCH_CORPUS_CACHE (default ~/.cache/rlbench/corpus;
# Go modules in Go's module cache), so a second run needs no network.
# Needs go, npm, apt-get and dpkg-deb for the three kinds of package.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/profiles/corpus"
out="${1:-$corpus}"
cache="${RLBENCH_CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rlbench/corpus}"
mkdir -p "$out" "$cache"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

die() { echo "corpus-fetch: $*" >&2; exit 1; }

# unpacked PACKAGE_KIND NAME VERSION prints the directory the package is
# unpacked in, downloading it first when the cache lacks it.
unpacked() {
	local kind=$1 name=$2 version=$3 dir
	case "$kind" in
	go)
		dir=$(cd "$cache" && GOFLAGS=-mod=mod timeout 300 go mod download -json "$name@$version" |
			sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		[ -n "$dir" ] && [ -d "$dir" ] || die "go mod download $name@$version found no module directory"
		;;
	npm)
		dir="$cache/npm/$(echo "$name" | tr '/@' '__')-$version"
		if [ ! -d "$dir/package" ]; then
			mkdir -p "$dir"
			local tgz
			tgz=$(cd "$dir" && timeout 300 npm pack --silent "$name@$version" | tail -1) || die "npm pack $name@$version failed"
			tar -xzf "$dir/$tgz" -C "$dir"
		fi
		dir="$dir/package"
		;;
	deb)
		dir="$cache/deb/$name-$version"
		if [ ! -d "$dir/root" ]; then
			mkdir -p "$dir"
			if ! (cd "$dir" && timeout 300 apt-get download "$name=$version" >/dev/null 2>&1); then
				# The package lists may be missing or stale.
				timeout 300 apt-get update >/dev/null 2>&1 || true
				(cd "$dir" && timeout 300 apt-get download "$name=$version" >/dev/null) || die "apt-get download $name=$version failed"
			fi
			dpkg-deb -x "$dir"/*.deb "$dir/root"
		fi
		dir="$dir/root"
		;;
	*) die "unknown kind of package: $kind" ;;
	esac
	echo "$dir"
}

# extract FILE BEGIN END TRANSFORM prints the script: the whole file, or
# the text of the literal between BEGIN and END (from just after BEGIN on
# its line to just before END on a later one), then as its application
# reads it: TRANSFORM heredoc drops the newline after the opening marker
# and the one before the closing marker (PHP's heredoc); strip-indent
# removes the blanks at the start of every line and the empty lines, and
# the blanks at either end (JavaScript's .replace(/^\s+/gm, '').trim());
# join-continued joins the lines a backslash ends, dropping both (a
# JavaScript template literal's line continuation); - leaves it as
# written.
extract() {
	local file=$1 begin=$2 end=$3 transform=$4
	if [ "$begin" = - ]; then
		cat "$file"
		return
	fi
	awk -v begin="$begin" -v end="$end" '
		!on && (i = index($0, begin)) { on = 1; print substr($0, i + length(begin)); next }
		on && (j = index($0, end)) { printf "%s", substr($0, 1, j - 1); done = 1; exit }
		on { print }
		END { if (!done) exit 1 }' "$file" >"$tmp/literal" || die "$file: no script between \"$begin\" and \"$end\""
	case "$transform" in
	-) cat "$tmp/literal" ;;
	heredoc) tail -n +2 "$tmp/literal" | head -c -1 ;;
	strip-indent)
		sed 's/^[[:space:]]*//' "$tmp/literal" | awk 'NF { if (n++) printf "\n"; printf "%s", $0 }'
		;;
	join-continued) sed -z 's/\\\n//g' "$tmp/literal" ;;
	*) die "unknown transform $transform" ;;
	esac
}

# apply DIFF SCRIPT writes the script with the diff's one-line changes:
# hunks "@@ -N +N @@" of one line each, whose "-" line must be line N.
apply() {
	local diff=$1 script=$2
	awk -v diff="$diff" '
		BEGIN {
			while ((getline l < diff) > 0) {
				if (l ~ /^@@ -[0-9]+ \+[0-9]+ @@/) { split(l, f, /[ ,+-]+/); n = f[2] + 0; continue }
				if (l ~ /^---|^\+\+\+/) continue
				if (l ~ /^-/) { old[n] = substr(l, 2) }
				else if (l ~ /^\+/) { new[n] = substr(l, 2); count++ }
			}
			if (count == 0) { print diff ": no change" > "/dev/stderr"; exit 1 }
		}
		(NR in new) {
			if ($0 != old[NR]) { print diff ": line " NR " is not the line the diff changes" > "/dev/stderr"; bad = 1; exit 1 }
			print new[NR]; applied++; next
		}
		{ print }
		END { if (!bad && applied != count) { print diff ": " count - applied " changes past the end of the script" > "/dev/stderr"; exit 1 } }' "$script"
}

n=0
while IFS=$'\t' read -r project script kind name version path begin end transform licence sum; do
	case "$project" in '' | '#'*) continue ;; esac
	dir=$(unpacked "$kind" "$name" "$version")
	[ -f "$dir/$path" ] || die "$name@$version has no $path"
	mkdir -p "$out/$project"
	dst="$out/$project/$script.lua"
	extract "$dir/$path" "$begin" "$end" "$transform" >"$dst.tmp"
	got=$(sha256sum "$dst.tmp" | cut -d' ' -f1)
	if [ "$got" != "$sum" ]; then
		rm -f "$dst.tmp"
		die "$project/$script.lua from $name@$version:$path has SHA-256 $got, not the $sum sources.tsv records"
	fi
	mv "$dst.tmp" "$dst"
	if [ "$licence" != - ]; then
		[ -f "$dir/$licence" ] || die "$name@$version has no licence file $licence"
		cp "$dir/$licence" "$out/$project/LICENSE.$script"
	fi
	for diff in "$corpus/$project/$script".bug-*.diff; do
		[ -e "$diff" ] || continue
		bug="$out/$project/$(basename "$diff" .diff).lua"
		apply "$diff" "$dst" >"$bug.tmp" || { rm -f "$bug.tmp"; die "cannot apply $diff"; }
		# awk ends every line; keep the script's last line as it was.
		[ -z "$(tail -c 1 "$dst")" ] || truncate -s -1 "$bug.tmp"
		mv "$bug.tmp" "$bug"
	done
	if [ "$out" != "$corpus" ]; then
		cp "$corpus/$project"/*.yaml "$out/$project/" 2>/dev/null || true
	fi
	n=$((n + 1))
done <"$corpus/sources.tsv"
echo "corpus-fetch: $n scripts in $out" >&2

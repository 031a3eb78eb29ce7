#!/usr/bin/env bash
# Benchmark `skilldex grep` against `rg`: the three pattern classes side by
# side in one hyperfine run on the 10k-skill corpus, then peak RSS and the
# time to the first line on a skill holding one 50 MB file.
#
# Usage: benches/grep.sh            (from any directory)
#
# Environment:
#   BENCH_DIR=target/bench   where the corpora and results go
#   SKILLDEX=target/release/skilldex   binary under test
#   BEFORE=PATH              an earlier binary to time in the same runs
#   GEN_CORPUS=target/release/examples/gen_corpus   corpus generator
#   BUILD=0                  skip `cargo build`
#   RUNS=15 WARMUP=3         hyperfine settings
#   STRICT=1                 exit 1 when a bar (<= 1.2x rg) fails
#
# Results: $BENCH_DIR/grep.md and grep.json (hyperfine), grep-big.tsv (peak
# RSS and time to first line), grep-summary.txt. See benches/README.md.
set -euo pipefail

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'grep.sh: %s\n' "$*" >&2; exit 2; }

caller_dir=$(pwd)
from_caller() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$caller_dir" "$1" ;; esac; }
for var in BENCH_DIR GEN_CORPUS SKILLDEX BEFORE; do
    if [[ -n ${!var:-} ]]; then printf -v "$var" '%s' "$(from_caller "${!var}")"; fi
done

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd -- "$script_dir/.."

target_dir=${CARGO_TARGET_DIR:-target}
BENCH_DIR=${BENCH_DIR:-target/bench}
SKILLDEX=${SKILLDEX:-$target_dir/release/skilldex}
GEN_CORPUS=${GEN_CORPUS:-$target_dir/release/examples/gen_corpus}
BEFORE=${BEFORE:-}
BUILD=${BUILD:-1}
RUNS=${RUNS:-15}
WARMUP=${WARMUP:-3}
STRICT=${STRICT:-0}

for tool in rg hyperfine python3; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (benches/render.sh installs it)"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time (GNU time) is missing"

if [[ $BUILD != 0 ]]; then
    log "cargo build --release --bin skilldex --example gen_corpus"
    cargo build --release --bin skilldex --example gen_corpus
fi
[[ -x $SKILLDEX ]] || die "$SKILLDEX not found"

# --- corpora -------------------------------------------------------------------
# c10k exactly as benches/render.sh makes it (same stamp), and `big`: one
# skill whose reference file is 50 MB of short lines that all match `the`
# (about 3 million matches, 140 MB of answer).
mkdir -p "$BENCH_DIR"
corpus=$BENCH_DIR/c10k stamp=$BENCH_DIR/.c10k.stamp
want="count=10000 generator=$(sha256sum examples/gen_corpus.rs | cut -c1-16)"
if [[ ! -d $corpus || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    [[ -x $GEN_CORPUS ]] || die "$GEN_CORPUS not found"
    log "generating $corpus"
    rm -f "$stamp"
    "$GEN_CORPUS" "$corpus" 10000 --force
    printf '%s\n' "$want" >"$stamp"
fi
big=$BENCH_DIR/grep-big
if [[ ! -f $big/docs/huge/references/big.md ]]; then
    log "generating $big (one 50 MB file)"
    mkdir -p "$big/docs/huge/references"
    printf -- '---\nname: huge\ndescription: A skill with one very large reference file. Use when measuring grep on big files.\n---\n\n# Huge\n\nSee references/big.md.\n' \
        >"$big/docs/huge/SKILL.md"
    python3 - "$big/docs/huge/references/big.md" <<'PY'
import random, sys
random.seed(7)
words = "alpha beta gamma delta deploy migrate refactor quick brown fox".split()
size, i, out = 0, 0, []
while size < 50 * 1024 * 1024:
    line = "%d the %s\n" % (i, random.choice(words))
    out.append(line); size += len(line); i += 1
open(sys.argv[1], "w").write("".join(out))
PY
fi

# --- timing ----------------------------------------------------------------------
# The same flags for both: rg searches the same files (the corpus has no
# ignore files or hidden folders), skilldex answers by skill.
patterns=("-F zebra-unicorn-rare" "-F the" "deploy|migrate|refactor")
commands=()
for pattern in "${patterns[@]}"; do
    commands+=("rg $pattern $corpus" "$SKILLDEX grep $pattern --root $corpus")
    if [[ -n $BEFORE ]]; then commands+=("$BEFORE grep $pattern --root $corpus"); fi
done
log "hyperfine: ${#commands[@]} commands, $RUNS runs each"
hyperfine -N -i --style basic --warmup "$WARMUP" --runs "$RUNS" \
    --export-json "$BENCH_DIR/grep.json" --export-markdown "$BENCH_DIR/grep.md" \
    "${commands[@]}" >&2

# --- the 50 MB file ----------------------------------------------------------------
# Peak RSS (GNU time) and the time until the first byte of the answer
# reaches a pipe (the rest is read and thrown away).
first_byte_ms() {
    python3 - "$@" <<'PY'
import subprocess, sys, time
start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
child.stdout.read(1)
first = time.monotonic()
while child.stdout.read(1 << 20):
    pass
child.wait()
print("%.0f %.0f" % ((first - start) * 1000, (time.monotonic() - start) * 1000))
PY
}
binaries=("$SKILLDEX")
if [[ -n $BEFORE ]]; then binaries+=("$BEFORE"); fi
printf 'binary\tpattern\tpeak_rss_kb\tfirst_line_ms\ttotal_ms\n' >"$BENCH_DIR/grep-big.tsv"
for binary in "${binaries[@]}" rg; do
    for pattern in "-F the" "-F zebra-unicorn-rare"; do
        if [[ $binary == rg ]]; then args=(rg $pattern "$big"); else args=("$binary" grep $pattern --root "$big"); fi
        /usr/bin/time -o "$BENCH_DIR/grep-big.time" -f '%M' "${args[@]}" >/dev/null 2>&1 || true
        rss=$(tail -1 "$BENCH_DIR/grep-big.time")
        read -r first total < <(first_byte_ms "${args[@]}")
        printf '%s\t%s\t%s\t%s\t%s\n' "$binary" "$pattern" "$rss" "$first" "$total" >>"$BENCH_DIR/grep-big.tsv"
    done
done

# --- summary -----------------------------------------------------------------------
python3 - "$BENCH_DIR" "$STRICT" <<'PY' | tee "$BENCH_DIR/grep-summary.txt"
import json, sys
bench, strict = sys.argv[1], sys.argv[2] == "1"
results = json.load(open(f"{bench}/grep.json"))["results"]
rg = {}
failed = False
print("c10k (one hyperfine run)")
print("  %-58s %9s %8s %7s" % ("command", "mean ms", "+/- ms", "x rg"))
for r in results:
    command = r["command"]
    words = command.split()
    pattern = " ".join(words[1:-1]) if words[0] == "rg" else " ".join(words[2:-2])
    if words[0] == "rg":
        rg[pattern] = r["mean"]
        ratio = ""
    else:
        ratio = "%.2fx" % (r["mean"] / rg[pattern])
    shown = " ".join([words[0].rsplit("/", 1)[-1]] + words[1:]).replace(bench + "/", "")
    print("  %-58s %9.1f %8.1f %7s" % (shown[:58], r["mean"] * 1000, r["stddev"] * 1000, ratio))
print("bars (the first skilldex command of each pattern)")
seen = set()
for r in results:
    words = r["command"].split()
    if words[0] == "rg":
        continue
    pattern = " ".join(words[2:-2])
    if pattern in seen:
        continue
    seen.add(pattern)
    ratio = r["mean"] / rg[pattern]
    ok = ratio <= 1.2
    failed |= not ok
    print("  grep %-30s <= 1.2x rg   %.2fx  %s" % (pattern, ratio, "PASS" if ok else "FAIL"))
print("50 MB file (grep-big.tsv)")
for line in open(f"{bench}/grep-big.tsv").read().splitlines()[1:]:
    binary, pattern, rss, first, total = line.split("\t")
    print("  %-24s %-24s peak %6.1f MB  first line %6s ms  total %6s ms" % (binary.rsplit("/", 1)[-1], pattern, int(rss) / 1024, first, total))
sys.exit(1 if strict and failed else 0)
PY

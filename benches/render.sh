#!/usr/bin/env bash
# Benchmark `skilldex render` against `rg` on synthetic 1k and 10k skill corpora.
#
# Usage: benches/render.sh            (from any directory)
#
# Environment:
#   BENCH_DIR=target/bench   where corpora and results go
#   SKILLDEX=target/release/skilldex   binary under test (a path or a command name)
#   GEN_CORPUS=target/release/examples/gen_corpus   corpus generator
#   REGEN=1                  regenerate the corpora even if present
#   BUILD=0                  skip `cargo build` (use the binaries already built)
#   RUNS=10 WARMUP=3         hyperfine settings (RUNS is the minimum run count)
#   RSS_RUNS=3               runs per command for peak RSS (the maximum is kept)
#   CORPORA="c1k:1000 c10k:10000"   which corpora to bench (name:count)
#   STRICT=1                 exit 1 when a bar fails (default: report only)
#
# Defaults are relative to the repository root; paths you set are relative to
# your current directory.
#
# Results: $BENCH_DIR/<corpus>.md and .json (hyperfine), $BENCH_DIR/rss.tsv,
# $BENCH_DIR/summary.txt, and each render's output in $BENCH_DIR/<corpus>.*.out.
# See benches/README.md.
set -euo pipefail

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'render.sh: %s\n' "$*" >&2; exit 2; }

# Paths given in the environment are relative to the caller's directory; the
# defaults are relative to the repository root, where the script works.
caller_dir=$(pwd)
from_caller() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$caller_dir" "$1" ;; esac; }
if [[ -n ${BENCH_DIR:-} ]]; then BENCH_DIR=$(from_caller "$BENCH_DIR"); fi
if [[ -n ${GEN_CORPUS:-} ]]; then GEN_CORPUS=$(from_caller "$GEN_CORPUS"); fi
if [[ -n ${SKILLDEX:-} ]]; then
    if [[ $SKILLDEX == */* ]]; then
        SKILLDEX=$(from_caller "$SKILLDEX")
    else
        SKILLDEX=$(command -v "$SKILLDEX") || die "SKILLDEX: no such command"
    fi
fi

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd -- "$script_dir/.."
repo_root=$(pwd)

target_dir=${CARGO_TARGET_DIR:-target}
BENCH_DIR=${BENCH_DIR:-target/bench}
SKILLDEX=${SKILLDEX:-$target_dir/release/skilldex}
GEN_CORPUS=${GEN_CORPUS:-$target_dir/release/examples/gen_corpus}
REGEN=${REGEN:-0}
BUILD=${BUILD:-1}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-3}
RSS_RUNS=${RSS_RUNS:-3}
CORPORA=${CORPORA:-c1k:1000 c10k:10000}
STRICT=${STRICT:-0}
# The corpus whose peak RSS is measured (the largest one by default).
RSS_CORPUS=${RSS_CORPUS:-${CORPORA##* }}
RSS_CORPUS=${RSS_CORPUS%%:*}

# --- tools -------------------------------------------------------------------
missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
[[ -x /usr/bin/time ]] || missing+=(time)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
fi

# --- build -------------------------------------------------------------------
if [[ $BUILD != 0 ]]; then
    log "cargo build --release --bin skilldex --example gen_corpus"
    cargo build --release --bin skilldex --example gen_corpus
fi
[[ -x $GEN_CORPUS ]] || die "$GEN_CORPUS not found; build it with: cargo build --release --example gen_corpus"
[[ -x $SKILLDEX ]] || die "$SKILLDEX not found; build it with: cargo build --release --bin skilldex"

# --- corpora -----------------------------------------------------------------
# A stamp beside each corpus records the count and the generator's hash, so an
# interrupted generation or a changed generator leads to a fresh corpus.
mkdir -p "$BENCH_DIR"
generator_hash=$(sha256sum examples/gen_corpus.rs | cut -c1-16)
for spec in $CORPORA; do
    name=${spec%%:*} count=${spec##*:}
    dir=$BENCH_DIR/$name stamp=$BENCH_DIR/.$name.stamp
    want="count=$count generator=$generator_hash"
    if [[ $REGEN == 1 || ! -d $dir || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
        log "generating $dir ($count skills)"
        rm -f "$stamp"
        start=$(date +%s.%N)
        "$GEN_CORPUS" "$dir" "$count" --force
        end=$(date +%s.%N)
        printf '%s\n' "$want" >"$stamp"
        log "generated in $(python3 -c "print(f'{$end - $start:.2f}')") s; $(du -sh "$dir" | cut -f1) on disk, $(find "$dir" -type f | wc -l) files"
    else
        log "using existing $dir ($count skills; REGEN=1 to rebuild)"
    fi
done

# --- sanity checks -------------------------------------------------------------
# Each command must succeed once before it is timed, and rg must see every skill
# (a .gitignore above the corpus would make the comparison meaningless).
for spec in $CORPORA; do
    name=${spec%%:*} count=${spec##*:} dir=$BENCH_DIR/$name
    seen=$( (rg -c '^name:' "$dir" || true) | wc -l)
    [[ $seen == "$count" ]] || die "rg saw $seen SKILL.md files in $dir, expected $count (ignore rules?)"
    for variant in render render-budget; do
        args=()
        if [[ $variant == render-budget ]]; then args=(--budget-tokens 8000); fi
        out=$BENCH_DIR/$name.$variant.out err=$BENCH_DIR/$name.$variant.err
        if ! "$SKILLDEX" render --root "$dir" "${args[@]}" >"$out" 2>"$err"; then
            cat "$err" >&2
            die "'$SKILLDEX render --root $dir ${args[*]}' failed (output in $out)"
        fi
        log "$name: skilldex render ${args[*]:-(no budget)} -> $(wc -c <"$out") bytes, $(wc -l <"$out") lines on stdout, $(wc -l <"$err") on stderr"
    done
done

# --- timing ------------------------------------------------------------------
output_flag=()
if hyperfine --help 2>&1 | grep -q -- '--output'; then output_flag=(--output=null); fi
q() { printf '%q' "$1"; }
for spec in $CORPORA; do
    name=${spec%%:*} dir=$BENCH_DIR/$name
    log "hyperfine on $name"
    hyperfine --warmup "$WARMUP" --min-runs "$RUNS" "${output_flag[@]}" \
        --export-markdown "$BENCH_DIR/$name.md" --export-json "$BENCH_DIR/$name.json" \
        -n "rg -c '^name:'" "rg -c '^name:' $(q "$dir")" \
        -n "skilldex render" "$(q "$SKILLDEX") render --root $(q "$dir")" \
        -n "skilldex render --budget-tokens 8000" "$(q "$SKILLDEX") render --root $(q "$dir") --budget-tokens 8000"
done

# --- peak RSS ----------------------------------------------------------------
dir=$BENCH_DIR/$RSS_CORPUS
rss_file=$BENCH_DIR/rss.tsv
: >"$rss_file"
log "peak RSS on $RSS_CORPUS (max of $RSS_RUNS runs each)"
measure_rss() {
    local label=$1 max=0 kb i
    shift
    for ((i = 0; i < RSS_RUNS; i++)); do
        /usr/bin/time -f '%M' -o "$BENCH_DIR/.rss" "$@" >/dev/null
        kb=$(tail -n1 "$BENCH_DIR/.rss")
        if ((kb > max)); then max=$kb; fi
    done
    rm -f "$BENCH_DIR/.rss"
    printf '%s\t%s\n' "$label" "$max" >>"$rss_file"
}
measure_rss "rg -c '^name:'" rg -c '^name:' "$dir"
measure_rss "skilldex render" "$SKILLDEX" render --root "$dir"
measure_rss "skilldex render --budget-tokens 8000" "$SKILLDEX" render --root "$dir" --budget-tokens 8000

# --- summary -----------------------------------------------------------------
names=()
for spec in $CORPORA; do names+=("${spec%%:*}"); done
set +e
python3 - "$BENCH_DIR" "$RSS_CORPUS" "$rss_file" "${names[@]}" <<'PY' | tee "$BENCH_DIR/summary.txt"
import json, sys

bench_dir, rss_corpus, rss_file, *corpora = sys.argv[1:]
RG, RENDER, BUDGET = "rg -c '^name:'", "skilldex render", "skilldex render --budget-tokens 8000"
RENDER_MAX, BUDGET_MAX, RSS_MAX_MB = 0.8, 1.5, 64.0

rss = {}
for line in open(rss_file):
    label, kb = line.rstrip("\n").split("\t")
    rss[label] = int(kb) / 1024.0

failed = False
rows = []
def verdict(ok):
    global failed
    failed |= not ok
    return "PASS" if ok else "FAIL"

for corpus in corpora:
    results = {r["command"]: r for r in json.load(open(f"{bench_dir}/{corpus}.json"))["results"]}
    rg_mean = results[RG]["mean"]
    print(f"\n{corpus}")
    print(f"  {'command':<38} {'mean ms':>9} {'+/- ms':>7} {'x rg':>6} {'peak RSS MB':>12}")
    for label in (RG, RENDER, BUDGET):
        r = results[label]
        mem = f"{rss[label]:.1f}" if corpus == rss_corpus and label in rss else "-"
        print(f"  {label:<38} {r['mean'] * 1e3:>9.1f} {(r['stddev'] or 0) * 1e3:>7.1f} "
              f"{r['mean'] / rg_mean:>6.2f} {mem:>12}")
    # The issue's bars are on the 10k corpus: RSS_CORPUS, the last one in
    # CORPORA unless set; the others are shown for reference.
    if corpus != rss_corpus:
        continue
    for label, limit in ((RENDER, RENDER_MAX), (BUDGET, BUDGET_MAX)):
        ratio = results[label]["mean"] / rg_mean
        rows.append((f"{corpus}: {label} <= {limit}x rg", f"{ratio:.2f}x", verdict(ratio <= limit)))
    if corpus == rss_corpus:
        for label in (RENDER, BUDGET):
            rows.append((f"{corpus}: {label} peak RSS <= {RSS_MAX_MB:.0f} MB",
                         f"{rss[label]:.1f} MB", verdict(rss[label] <= RSS_MAX_MB)))

print("\nbars")
for bar, value, result in rows:
    print(f"  {bar:<60} {value:>9}  {result}")
print(f"\n{'all bars pass' if not failed else 'some bars FAIL'}")
sys.exit(1 if failed else 0)
PY
status=${PIPESTATUS[0]}
set -e
log "results in $BENCH_DIR (repo root $repo_root): <corpus>.md, <corpus>.json, rss.tsv, summary.txt"
if ((status == 1)) && [[ $STRICT == 1 ]]; then exit 1; fi
if ((status > 1)); then exit "$status"; fi
exit 0

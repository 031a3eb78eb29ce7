#!/usr/bin/env bash
# Benchmark `skilldex grep` against `rg` (same pattern, same tree, side by
# side in one hyperfine run) and time `skilldex read --section` (by name
# and by path), on the bundled catalog and on the 10k-skill corpus made by
# benches/render.sh.
#
# Usage: benches/disclosure.sh      (run benches/render.sh once first, or set
#                                     CORPUS to a folder of skills)
# Environment: SKILLDEX (binary), CORPUS (default target/bench/c10k),
#              RUNS (default 15), BUILD=0 to skip `cargo build`.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd -- "$script_dir/.."

SKILLDEX=${SKILLDEX:-target/release/skilldex}
CORPUS=${CORPUS:-target/bench/c10k}
RUNS=${RUNS:-15}
BUILD=${BUILD:-1}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need rg || ! need hyperfine; then
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get install -y ripgrep hyperfine >/dev/null
fi
if [[ $BUILD == 1 ]]; then
    cargo build --release --bin skilldex >&2
fi
[[ -d $CORPUS ]] || { echo "disclosure.sh: no corpus at $CORPUS — run benches/render.sh first" >&2; exit 2; }

mkdir -p target/bench
for tree in ${TREES:-skills $CORPUS}; do
    name=$(basename "$tree")
    echo "==> grep on $tree" >&2
    hyperfine --warmup 3 --runs "$RUNS" -N -i \
        --export-markdown "target/bench/grep-$name.md" \
        "rg -F zebra-unicorn-rare $tree" "$SKILLDEX grep -F zebra-unicorn-rare --root $tree" \
        "rg deploy $tree" "$SKILLDEX grep deploy --root $tree" \
        "rg 'retry|backoff' $tree" "$SKILLDEX grep 'retry|backoff' --root $tree"
done

# Section reads by name. Which paths a read by name must check depends on
# where its skill stands in precedence order (shallower first, then path
# order): the first skill checks a few hundred, the last nearly all. So
# three skills are read: the first, the middle and the last in that order,
# each at its first `##` heading.
mapfile -t ordered < <(find "$CORPUS" -name SKILL.md | awk -F/ '{print NF "\t" $0}' \
    | LC_ALL=C sort -t$'\t' -k1,1n -k2 | cut -f2-)
(( ${#ordered[@]} )) || { echo "disclosure.sh: no SKILL.md under $CORPUS" >&2; exit 2; }
# The skill at a place in that order: its folder's name (the corpus names
# each skill after its folder), its first `##` heading, its file.
name_at() { basename "$(dirname "${ordered[$1]}")"; }
section_at() { sed -n 's/^## //p' "${ordered[$1]}" | sed -n 1p; }
middle_at=$(( ${#ordered[@]} / 2 )); last_at=$(( ${#ordered[@]} - 1 ))
first=$(name_at 0); first_section=$(section_at 0); skill_file=${ordered[0]}
middle=$(name_at "$middle_at"); middle_section=$(section_at "$middle_at")
last=$(name_at "$last_at"); last_section=$(section_at "$last_at")
for section in "$first_section" "$middle_section" "$last_section"; do
    [[ -n $section && $section != *"'"* ]] \
        || { echo "disclosure.sh: a picked skill has no usable ## heading" >&2; exit 2; }
done
echo "==> read by name: first $first, middle $middle, last $last (of ${#ordered[@]})" >&2
# By name (the whole catalog is scanned to resolve the name) and by the path
# the directory prints (only the folders leading to the skill are walked).
hyperfine --warmup 3 --runs "$RUNS" -N \
    --export-markdown target/bench/read.md \
    "$SKILLDEX read pdf-extract --section steps --root skills" \
    "$SKILLDEX read ./skills/docs/pdf-extract/SKILL.md --section steps --root skills" \
    "$SKILLDEX read $first --section '$first_section' --root $CORPUS" \
    "$SKILLDEX read $middle --section '$middle_section' --root $CORPUS" \
    "$SKILLDEX read $last --section '$last_section' --root $CORPUS" \
    "$SKILLDEX read $(realpath "$skill_file") --section '$first_section' --root $CORPUS"


#!/usr/bin/env bash
# Check the budgeted directory on real catalogs: sweep `render --budget-tokens`
# from 500 to 50,000 tokens over each root and check the promises of the
# directory (docs: render's budget):
#   - whenever something is cut, at least 90 % of the budget is used (unless
#     even the shortest form is larger: reported as "does not fit");
#   - more budget never names fewer skills;
#   - at least min(skills, budget / 16) skills are named one by one;
#   - the text never costs more than the budget.
#
# Usage: benches/budget.sh ROOT...          (e.g. /tmp/real/* skills)
#
# Environment:
#   SKILLDEX=target/release/skilldex   binary under test (a path)
#   BUDGETS="500 750 …"                budgets to sweep (default: 500..50,000,
#                                      about 40 steps, geometric plus offsets)
#   STRICT=1                           exit 1 when a promise is broken
#
# Prints one line per root and budget that breaks a promise, then a summary
# per root: skills, budgets swept, and skills named / tokens used at a few
# budgets (the figures of issue 18's table).
set -euo pipefail

die() { printf 'budget.sh: %s\n' "$*" >&2; exit 2; }
(($# > 0)) || die "usage: benches/budget.sh ROOT..."
command -v python3 >/dev/null 2>&1 || die "python3 is needed"

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
SKILLDEX=${SKILLDEX:-$script_dir/../target/release/skilldex}
[[ -x $SKILLDEX ]] || die "$SKILLDEX not found; build it with: cargo build --release --bin skilldex"

python3 - "$SKILLDEX" "${BUDGETS:-}" "${STRICT:-0}" "$@" <<'PY'
import json, subprocess, sys

exe, budgets_text, strict, *roots = sys.argv[1:]
if budgets_text.strip():
    budgets = sorted(int(b) for b in budgets_text.split())
else:
    budgets, b = set(), 500.0
    while b <= 50000:
        budgets.add(int(b))
        budgets.add(int(b * 1.13) + 7)
        b *= 1.27
    budgets |= {1000, 2000, 4000, 8000, 16000, 50000}
    budgets = sorted(x for x in budgets if 500 <= x <= 50000)

def render(root, budget=None):
    args = [exe, "render", "--root", root, "--json"]
    if budget is not None:
        args += ["--budget-tokens", str(budget)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"budget.sh: {' '.join(args)} failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout)

broken = 0
for root in roots:
    full = render(root)
    skills = len(full["skills"]) + len(full["collapsed"])
    capped = full["shortened"]  # descriptions over 1,024 bytes, cut anyway
    previous, rows, failures = 0, {}, []
    for budget in budgets:
        j = render(root, budget)
        named, tokens = len(j["skills"]), j["tokens"]
        rows[budget] = (tokens, named)
        if not j["fits"]:
            failures.append(f"@{budget}: does not fit (shortest form {tokens} tokens)")
            continue
        cut = j["shortened"] > capped or j.get("name_only", 0) > 0 or j["collapsed"]
        if tokens > budget:
            failures.append(f"@{budget}: {tokens} tokens")
        if cut and tokens < 0.9 * budget:
            failures.append(f"@{budget}: cut, but {tokens} tokens used ({tokens / budget:.0%})")
        if named < previous:
            failures.append(f"@{budget}: {named} named, a smaller budget named {previous}")
        if named < min(skills, budget // 16):
            failures.append(f"@{budget}: {named} named < min({skills}, {budget // 16})")
        previous = named
    broken += len(failures)
    print(f"\n{root}: {skills} skills, {len(budgets)} budgets from {budgets[0]} to {budgets[-1]}")
    for f in failures:
        print(f"  BROKEN {f}")
    shown = [b for b in (500, 1000, 2000, 4000, 8000, 16000, 50000) if b in rows]
    print("  budget  tokens used  skills named")
    for b in shown:
        tokens, named = rows[b]
        print(f"  {b:>6}  {tokens:>11}  {named:>12}")
    print(f"  {'all promises hold' if not failures else f'{len(failures)} broken'}")
print(f"\n{'every promise holds' if not broken else f'{broken} broken promises'}")
sys.exit(1 if broken and strict == "1" else 0)
PY

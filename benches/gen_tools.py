#!/usr/bin/env python3
"""Write a generated tool catalog for benchmarks: SERVERS folders, each with
an mcp-tools.json of TOOLS tools (names, descriptions and parameter schemas
built from word lists with a fixed seed, so the same arguments give the
same bytes).

    python3 benches/gen_tools.py target/bench/t10k 100 100
"""
import json
import os
import random
import sys

VERBS = "create get list update delete search find export import sync archive restore merge split move copy rename tag label assign schedule cancel approve reject publish notify resolve escalate scan validate convert summarize translate compare backup rotate deploy rollback scale restart inspect watch".split()
OBJECTS = "issue ticket page document file folder record row table index invoice payment customer order shipment product price subscription message thread channel user team project sprint epic milestone release build pipeline job artifact image container pod node cluster bucket object secret key certificate domain alert incident report dashboard metric log trace event calendar meeting contact lead deal campaign email template form survey note task comment review branch commit tag".split()
QUALIFIERS = "by id,in bulk,with filters,for a date range,as csv,as json,for the current user,across projects,in a workspace,by name,with pagination,from a template,and its history,with attachments,by status,for an account".split(",")
DOMAINS = "crm billing storage compute network identity analytics monitoring chat mail docs wiki tracker forge ci registry dns cdn search queue cache database warehouse notebook design support hr finance legal travel maps weather calendar".split()
TYPES = ["string", "integer", "boolean", "number"]


def tool(rng, server, used):
    while True:
        verb, obj = rng.choice(VERBS), rng.choice(OBJECTS)
        qualifier = rng.choice(QUALIFIERS)
        name = f"{verb}_{obj}"
        if rng.random() < 0.3:
            name += "_" + qualifier.split()[-1]
        if name not in used:
            used.add(name)
            break
    description = f"{verb.capitalize()} a {obj} {qualifier} in {server}. Returns the {obj} {rng.choice(['fields', 'summary', 'identifier', 'status'])}."
    properties = {}
    for i in range(rng.randint(1, 6)):
        pname = rng.choice([f"{obj}_id", "query", "limit", "cursor", "status", "owner", f"{rng.choice(OBJECTS)}_name", "since", "until", "dry_run", "format"])
        properties[pname] = {"type": rng.choice(TYPES), "description": f"The {pname.replace('_', ' ')} of the {obj}."}
    schema = {"type": "object", "properties": properties, "required": sorted(properties)[:1]}
    return {"name": name, "description": description, "inputSchema": schema}


def main():
    out, servers, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(19)
    for s in range(servers):
        domain = DOMAINS[s % len(DOMAINS)]
        name = f"{domain}-{s:03d}"
        used = set()
        tools = [tool(rng, domain, used) for _ in range(per)]
        tools.sort(key=lambda t: t["name"])
        snapshot = {
            "server": {"name": name, "description": f"{domain.capitalize()} tools: {', '.join(sorted({t['name'].split('_')[1] for t in tools})[:6])} and more."},
            "tools": tools,
        }
        os.makedirs(os.path.join(out, name), exist_ok=True)
        with open(os.path.join(out, name, "mcp-tools.json"), "w") as f:
            f.write(json.dumps(snapshot, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

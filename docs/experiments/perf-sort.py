#!/usr/bin/env python3
# Sorts `perf script -F ip,sym` stacks of a placement bench (paper or trading) into the
# product's commits, store work outside them and own work, against bare's commits and the
# rest (docs/performance.md, "Round three, fourth stop"):
#   perf script -i perf.data -F ip,sym | python3 docs/experiments/perf-sort.py
import sys, collections
# reads `perf script -F ip,sym` output; stacks separated by blank lines, leaf first
cats = collections.Counter(); own = collections.Counter(); store = collections.Counter()
def flush(stack):
    if not stack: return
    syms = [s for s in stack]
    joined = "\n".join(syms)
    if "paper::main" not in joined and "trading::main" not in joined:
        cats["other"] += 1; return
    product = any("runtime::" in s for s in syms)
    commit = any("WriteTransaction::commit" in s for s in syms)
    fsync = any("fdatasync" in s for s in syms)
    side = "product" if product else "bare"
    if commit:
        cats[side + " commit" + (" fsync" if fsync else "")] += 1
    elif any("state::store::save" in s or "trading::store" in s for s in syms):
        cats[side + " store"] += 1
        # first runtime or redb or serde frame from leaf
        for s in syms:
            if "redb::" in s or "serde_json" in s or "runtime::" in s:
                store[s.split("<")[0][:90]] += 1; break
    else:
        cats[side + " own"] += 1
        if product:
            for s in syms:
                if "runtime::" in s:
                    own[s[:110]] += 1; break
stack = []
for line in sys.stdin:
    line = line.strip()
    if not line:
        flush(stack); stack = []; continue
    parts = line.split(None, 1)
    stack.append(parts[1] if len(parts) > 1 else parts[0])
flush(stack)
tot = sum(cats.values())
for k, v in sorted(cats.items()): print(f"{k:28s} {v:6d} {100*v/tot:5.1f}%")
print("-- own (first runtime frame)")
for k, v in own.most_common(30): print(f"{v:5d} {k}")
print("-- store")
for k, v in store.most_common(15): print(f"{v:5d} {k}")

#!/usr/bin/env python3
# Sorts `perf script -F ip,sym` stacks of benches/trading.rs by store call (claim_preview,
# record_outcome, journal_page, insert_preview, bare) and part (fsync, commit CPU, JSON
# encode/decode, other redb), then counts the samples under redb's commit by call: the
# per-commit figures of docs/performance.md, "Round three, sixth stop" (divide by the commits):
#   BENCH_ITERS=800 perf record -F 2999 --call-graph dwarf,16384 -o tr.perf target/release/deps/trading-HASH --bench
#   perf script -i tr.perf -F ip,sym | python3 docs/experiments/perf-sort-journal.py
import sys, collections
c = collections.Counter(); leaf = collections.defaultdict(collections.Counter)
def flush(st):
    if not st: return
    j = "\n".join(st)
    if "trading::main" not in j: c["other"]+=1; return
    api = None
    for name in ["claim_preview","record_outcome","journal_page","insert_preview","TradingStore::open"]:
        if name in j: api = name; break
    if api is None:
        api = "bare-page" if ("ReadTransaction" in j or "from_slice" in j or "de::" in j) else "bare-write"
    if "fdatasync" in j or "fsync" in j: sub = "fsync"
    elif "WriteTransaction::commit" in j: sub = "commit-cpu"
    elif "ser::" in j and "serde_json" in j: sub = "encode"
    elif "serde_json" in j or "Deserialize" in j: sub = "decode"
    elif "begin_write" in j: sub = "begin_write"
    elif "store_lease" in j and "redb" not in j: sub = "lease"
    elif "redb::" in j: sub = "redb-other"
    else: sub = "own"
    c[(api,sub)] += 1
    if sub in ("own","redb-other","lease"):
        for s in st:
            if "runtime::" in s or "redb::" in s:
                leaf[(api,sub)][s[:100]] += 1; break
lines_in = sys.stdin.read().split('\n')
st=[]
for line in lines_in:
    line=line.strip()
    if not line: flush(st); st=[]; continue
    p=line.split(None,1); st.append(p[1] if len(p)>1 else p[0])
flush(st)
for k,v in sorted(c.items(), key=lambda kv: str(kv[0])): print(f"{str(k):45s} {v}")
for k,cc in leaf.items():
    print("--",k)
    for s,v in cc.most_common(8): print(f"   {v:5d} {s}")

# Samples inside redb's commit, by call, by the frame just inside the commit.
leaf = collections.defaultdict(collections.Counter)
def flush(st):
    if not st: return
    j = "\n".join(st)
    if "trading::main" not in j: return
    if "WriteTransaction::commit" not in j: return
    api = "claim" if "claim_preview" in j else "outcome" if "record_outcome" in j else "seed" if "insert_preview" in j else "bare"
    # first frame below commit (callee chain): find the frame just inside commit
    idx = max(i for i,s in enumerate(st) if "WriteTransaction::commit" in s)
    inner = st[idx-1] if idx>0 else st[0]
    inner2 = st[idx-2] if idx>1 else ""
    leaf[api][(inner[:70]+" | "+inner2[:60])] += 1
st=[]
for line in lines_in:
    line=line.strip()
    if not line: flush(st); st=[]; continue
    p=line.split(None,1); st.append(p[1] if len(p)>1 else p[0])
flush(st)
for api in ("bare","claim","outcome"):
    print("==", api, sum(leaf[api].values()))
    for s,v in leaf[api].most_common(14): print(f"   {v:5d} {s}")

#!/usr/bin/env python3
# Gives each sample of a server's `perf script -F ip,sym` output to its innermost frame of ours
# (runtime:: or etrade_mcp::) when no rmcp, hyper or axum frame lies below that frame, and
# prints the counts: the HTTP attribution of docs/performance.md, "Round three, sixth stop".
#   perf record -F 999 --call-graph dwarf,16384 -p SERVER_PID -o s.perf -- sleep 3
#   perf script -i s.perf -F ip,sym | python3 docs/experiments/perf-own-frames.py
import collections, sys
own = collections.Counter(); n = 0; total = 0
for st in sys.stdin.read().split('\n\n'):
    lines = [l.strip().split(None, 1)[-1] for l in st.strip().split('\n') if l.strip()]
    if not lines:
        continue
    n += 1
    for l in lines:
        if ('runtime::' in l and 'tokio::runtime' not in l) or 'etrade_mcp' in l:
            own[l[:100]] += 1; total += 1; break
        if 'rmcp::' in l or 'hyper::' in l or 'hyper_util' in l or 'axum::' in l:
            break
print(f'samples {n}, given to a frame of ours {total} ({100 * total / max(n, 1):.1f}%)')
for k, v in own.most_common(25):
    print(f'{v:5d} {100 * v / max(n, 1):5.1f}% {k}')

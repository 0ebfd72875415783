"""list_order_journal against list_accounts over stdio, for a profiler (not a bench row).

    python3 benches/support/journal_reads.py target/release/etrade serve
    perf record -g -- python3 benches/support/journal_reads.py target/release/etrade serve

A fresh paper home; 20 preview_order calls fill the journal; then 300 calls of each tool,
and the mean milliseconds per call and the answer's bytes.
"""
import json, os, subprocess, sys, tempfile, time
home=tempfile.mkdtemp()
env=dict(os.environ,ETRADE_MCP_HOME=home,ETRADE_MCP_CREDENTIAL_STORE="memory")
cmd=sys.argv[1:]
p=subprocess.Popen(cmd,stdin=subprocess.PIPE,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL,env=env)
n=[0]
def call(method,params):
    n[0]+=1
    p.stdin.write((json.dumps({"jsonrpc":"2.0","id":n[0],"method":method,"params":params})+"\n").encode()); p.stdin.flush()
    return json.loads(p.stdout.readline())
call("initialize",{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); p.stdin.flush()
r=call("tools/call",{"name":"list_accounts","arguments":{}})
key=r["result"]["structuredContent"]["data"]["accounts"][0]["accountIdKey"]
for i in range(20):
    call("tools/call",{"name":"preview_order","arguments":{"account_id_key":key,"request":{"order_type":"EQ","symbol":"AAPL","order_action":"BUY","quantity":"1","price_type":"LIMIT","limit_price":"100.00"}}})
t={}
for tool,args in [("list_order_journal",{"limit":20}),("list_accounts",{})]:
    s=time.perf_counter()
    for i in range(300): r=call("tools/call",{"name":tool,"arguments":args})
    t[tool]=(time.perf_counter()-s)/300*1000
    print(tool, f"{t[tool]:.3f} ms", len(json.dumps(r)))
p.stdin.close(); p.wait()

"""CPython's floor for a big tool result: parse the broker's page once, write the JSON twice.

Usage: python3 cpython_json.py PAGE_FILE RUNS

An MCP server in Python that answers get_portfolio at the least cost reads E*TRADE's body
with json.loads and writes the result with json.dumps twice: the text block and the
structuredContent copy inside the JSON-RPC message. This times exactly that, with the C
accelerated stdlib json (it says so on stderr when the accelerator is missing), compact
separators as on the wire, and prints the median in milliseconds on stdout.
"""

import json
import json.decoder
import json.encoder
import sys
import time


def main() -> None:
    path, runs = sys.argv[1], int(sys.argv[2])
    if json.decoder.c_scanstring is None or json.encoder.c_make_encoder is None:
        print("cpython_json: the C accelerator of json is missing", file=sys.stderr)
    with open(path, "rb") as f:
        raw = f.read()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        page = json.loads(raw)
        text = json.dumps(page, separators=(",", ":"))
        structured = json.dumps(page, separators=(",", ":"))
        times.append(time.perf_counter() - t)
        assert len(text) == len(structured) > len(raw) // 2
    times.sort()
    print(f"{times[len(times) // 2] * 1000:.3f}")


if __name__ == "__main__":
    main()

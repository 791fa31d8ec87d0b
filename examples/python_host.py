#!/usr/bin/env python3
"""A termhelper host in Python: asyncio and the standard library only, one
JSON-RPC message per line (NDJSON). It starts termhelper, runs one command,
answers the approval request for it, prints the result and closes.
Usage: python3 python_host.py [ROOT] [COMMAND]   (TERMHELPER_BIN: the binary)"""
import asyncio, itertools, json, os, sys

async def main(root=".", command="touch hello.txt && ls"):
    proc = await asyncio.create_subprocess_exec(
        os.environ.get("TERMHELPER_BIN", "termhelper"), "--root", root,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24)
    ids, pending = itertools.count(1), {}

    def send(msg):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **msg}) + "\n").encode())

    async def call(method, params=None):
        n = next(ids)
        pending[n] = asyncio.get_running_loop().create_future()
        send({"id": n, "method": method, **({"params": params} if params else {})})
        return await pending[n]

    async def read_loop():
        while line := await proc.stdout.readline():
            msg = json.loads(line)
            if "method" in msg and "id" in msg:  # approval/request: ask the person here
                p = msg["params"]
                print(f"approve? {p['command']} ({'; '.join(p['reasons'])}): allow")
                send({"id": msg["id"], "result": {"decision": "allow"}})
            elif "method" in msg:  # session/exited, session/waiting
                print("event:", msg["method"], json.dumps(msg["params"]))
            elif "error" in msg:
                pending.pop(msg["id"]).set_exception(RuntimeError(msg["error"]["message"]))
            else:
                pending.pop(msg["id"]).set_result(msg["result"])
        for fut in pending.values():  # the helper is gone: nothing more will answer
            fut.set_exception(EOFError("termhelper exited"))

    reader = asyncio.create_task(read_loop())
    info = await call("initialize", {"clientInfo": {"name": "python-host"}, "capabilities": {"approval": True}})
    print("connected to termhelper", info["serverInfo"]["version"], "at", info["root"])
    result = await call("exec/run", {"command": command})
    print(result["output"].rstrip())
    print(result.get("summary") or f"session {result['sessionId']}: {result['state']}")
    await call("shutdown")
    send({"method": "exit"})
    proc.stdin.close()
    await proc.wait()
    reader.cancel()

asyncio.run(main(*sys.argv[1:]))

#!/usr/bin/env python3
"""A TCP proxy for the network tests: adds latency, and can stop forwarding (a partition).

    delay-proxy.py TARGET_HOST TARGET_PORT [--delay-ms D] [--max-seconds S]

Listens on 127.0.0.1 on a free port, which it prints as the first line of stdout, and
forwards every connection to the target. Bytes from the client reach the server D ms after
they arrived (so each round trip takes D ms more); bytes back are not delayed. SIGUSR1 cuts
the network: nothing is forwarded and new connections are accepted but not passed on (as if
the packets were lost); SIGUSR2 heals it. The kernel still acknowledges what the proxy's
sockets receive, so TCP keepalives do not notice such a partition: only the client's own
timeouts do. The proxy exits by itself after S seconds (default 120).
"""
import argparse
import asyncio
import signal
import sys
import time


class Proxy:
    def __init__(self, host, port, delay_s):
        self.host, self.port, self.delay_s = host, port, delay_s
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.tasks = set()

    async def pump(self, reader, writer, delay_s):
        """Copy reader to writer, each chunk delay_s after it arrived, in order."""
        queue = asyncio.Queue()

        async def send():
            try:
                while True:
                    due, data = await queue.get()
                    if data is None:
                        break
                    wait = due - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    await self.flowing.wait()
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            writer.close()

        sender = asyncio.create_task(send())
        try:
            while True:
                data = await reader.read(65536)
                queue.put_nowait((time.monotonic() + delay_s, data or None))
                if not data:
                    break
            await sender
        except (ConnectionError, OSError):
            sender.cancel()
            writer.close()

    async def serve(self, creader, cwriter):
        await self.flowing.wait()
        try:
            sreader, swriter = await asyncio.open_connection(self.host, self.port)
        except OSError:
            cwriter.close()
            return
        await asyncio.gather(self.pump(creader, swriter, self.delay_s),
                             self.pump(sreader, cwriter, 0.0), return_exceptions=True)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--delay-ms", type=float, default=0.0)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    a = ap.parse_args()
    proxy = Proxy(a.host, a.port, a.delay_ms / 1000.0)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, proxy.flowing.clear)
    loop.add_signal_handler(signal.SIGUSR2, proxy.flowing.set)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    try:
        await asyncio.wait_for(stop.wait(), a.max_seconds)
    except asyncio.TimeoutError:
        pass
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

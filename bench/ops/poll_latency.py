"""What polling the operations endpoints costs: starts `skade serve` on an empty
warehouse in a temporary directory and times N sequential GETs of /health/live,
/health/ready and /metrics on one keep-alive connection (the client's own
overhead included). Prints a Markdown table.

    .venv/bin/python bench/ops/poll_latency.py [--skade build/bin/skade] [--requests 5000]
"""
import argparse
import http.client
import subprocess
import tempfile
import time

PATHS = ("/health/live", "/health/ready", "/metrics")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skade", default="build/bin/skade")
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as warehouse:
        server = subprocess.Popen([args.skade, "--warehouse", warehouse, "serve", "--port", "0",
                                   "--quiet"], stdout=subprocess.PIPE, text=True)
        try:
            line = server.stdout.readline()
            if not line.startswith("listening "):
                raise SystemExit(f"skade serve did not start: {line!r}")
            host, port = line.split()[1].removeprefix("http://").rsplit(":", 1)
            connection = http.client.HTTPConnection(host, int(port))
            print(f"| endpoint | requests | p50 µs | p99 µs | max µs | body bytes |")
            print("|---|---|---|---|---|---|")
            for path in PATHS:
                micros, size = [], 0
                for _ in range(args.requests):
                    start = time.perf_counter()
                    connection.request("GET", path)
                    response = connection.getresponse()
                    body = response.read()
                    micros.append((time.perf_counter() - start) * 1e6)
                    if response.status != 200:
                        raise SystemExit(f"{path} answered {response.status}: {body[:200]!r}")
                    size = len(body)
                micros.sort()
                n = len(micros)
                print(f"| `{path}` | {n} | {micros[n // 2]:.0f} | {micros[int(n * 0.99)]:.0f} | "
                      f"{micros[-1]:.0f} | {size} |")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()

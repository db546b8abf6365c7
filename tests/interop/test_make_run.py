"""`make run`'s script (scripts/run.sh): it tells where health, metrics and the
change feed are, and they answer there."""
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

from conftest import ROOT


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, deadline_s=60):
    """The first successful answer to GET url, retrying while the server starts."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.status, response.headers, response.read().decode()
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_run_prints_where_health_metrics_and_changes_are(bin_dir, tmp_path):
    port = free_port()
    uri = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "run.sh"), str(bin_dir / "skade"),
         str(tmp_path / "warehouse"), "127.0.0.1", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = []
        for line in proc.stdout:
            banner.append(line)
            if line.startswith("Ctrl-C"):
                break
        text = "".join(banner)
        urls = set(re.findall(r"http://127\.0\.0\.1:\d+/\S*", text))
        for path in ("/health/live", "/health/ready", "/metrics", "/v1/skade/changes?since=0"):
            assert f"{uri}{path}" in {u.rstrip(",)") for u in urls}, text

        status, _, _ = wait_for(f"{uri}/health/ready")
        assert status == 200
        status, headers, body = wait_for(f"{uri}/metrics")
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        assert "skade_" in body
        status, _, body = wait_for(f"{uri}/v1/skade/changes?since=0")
        assert status == 200 and '"events":[]' in body
    finally:
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr

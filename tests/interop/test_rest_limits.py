"""`skade serve` resource bounds seen from outside: shutdown is not held up
by clients that never finish a request, and connections beyond
--max-connections are turned away with 503 instead of exhausting descriptors."""
import socket
import subprocess
import time
from urllib.parse import urlparse

import pytest
import requests

from conftest import SkadeServer

# Generous: the bounds under test are seconds; this only catches a hang.
EXIT_BOUND_SECONDS = 60


def address(server):
    uri = urlparse(server.uri)
    return uri.hostname, uri.port


def connect(server):
    return socket.create_connection(address(server), timeout=30)


def half_requests(server):
    """One connection stopped inside its header, one inside its body."""
    in_header = connect(server)
    in_header.sendall(b"GET /v1/config HTTP/1.1\r\nHost: x\r\n")
    in_body = connect(server)
    in_body.sendall(b"POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                    b"Content-Type: application/json\r\n\r\n{\"namespace\":")
    time.sleep(0.5)  # both are being read by the server
    return [in_header, in_body]


def stop_and_wait(server):
    server.proc.terminate()
    try:
        return server.proc.wait(timeout=EXIT_BOUND_SECONDS)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
        pytest.fail(f"skade serve did not exit within {EXIT_BOUND_SECONDS} s of SIGTERM:\n"
                    f"{server.log_path.read_text()}")


def test_half_sent_requests_do_not_stop_sigterm_exit(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse")
    sockets = half_requests(server)
    try:
        assert stop_and_wait(server) == 0, server.log_path.read_text()
    finally:
        for s in sockets:
            s.close()
        server.stop()


def test_shutdown_timeout_bounds_the_drain_whatever_the_request_timeout(bin_dir, tmp_path):
    # Each half request alone could hold a drain without bound for 600 s.
    server = SkadeServer(bin_dir, tmp_path / "warehouse",
                         ["--request-timeout", "600", "--shutdown-timeout", "1"])
    sockets = half_requests(server)
    try:
        assert stop_and_wait(server) == 0, server.log_path.read_text()
        assert "still open" in server.log_path.read_text()
    finally:
        for s in sockets:
            s.close()
        server.stop()


def read_until_close(sock):
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def test_connections_beyond_the_limit_get_503(bin_dir, tmp_path):
    server = SkadeServer(bin_dir, tmp_path / "warehouse", ["--max-connections", "3"])
    try:
        held = []
        for _ in range(3):
            sock = connect(server)
            sock.sendall(b"GET /v1/config HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
            held.append(sock)
        extra = connect(server)
        answer = read_until_close(extra)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 503 "), answer
        assert b"ServiceUnavailableException" in answer
        # A freed slot serves again.
        held.pop().close()
        deadline = time.monotonic() + 30
        while True:
            response = requests.get(f"{server.uri}/v1/config", timeout=30)
            if response.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert response.status_code == 200
        for sock in held:
            sock.close()
    finally:
        assert server.stop() == 0, server.log_path.read_text()


@pytest.mark.parametrize("flag", ["--max-connections", "--request-timeout", "--idle-timeout",
                                  "--shutdown-timeout", "--token-max-lifetime",
                                  "--commit-threads"])
def test_limits_must_be_positive(run_tool, tmp_path, flag):
    proc = run_tool("skade", "--warehouse", tmp_path / "w", "serve", "--port", "0", flag, "0",
                    check=False)
    assert proc.returncode != 0
    assert flag in proc.stderr


def test_commit_queue_must_not_be_negative(run_tool, tmp_path):
    proc = run_tool("skade", "--warehouse", tmp_path / "w", "serve", "--port", "0",
                    "--commit-queue", "-1", check=False)
    assert proc.returncode != 0
    assert "--commit-queue" in proc.stderr


def test_the_largest_shutdown_timeout_still_drains_and_exits_cleanly(bin_dir, tmp_path):
    # The watchdog's wait (timeout + grace) once overflowed an int: SIGTERM
    # then exited at once with 3.
    server = SkadeServer(bin_dir, tmp_path / "warehouse", ["--shutdown-timeout", "2147483647"])
    assert requests.get(f"{server.uri}/v1/config", timeout=30).status_code == 200
    assert server.stop() == 0, server.log_path.read_text()

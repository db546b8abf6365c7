"""`skade --config FILE` and SKADE_* environment variables (docs/operations/configuration.md):
the real binary, configured by a file, the environment and the command line, in every order of
precedence; the errors for a bad file or value; and the shipped example file."""
import os
import socket
import subprocess

import pytest
import requests

from conftest import ROOT, SkadeServer, skade_bin_dir

EXAMPLE = ROOT / "docs" / "operations" / "skade.example.toml"


def clean_env(**variables):
    """This process's environment without any SKADE_* variable, plus `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKADE_")}
    env.update({k: str(v) for k, v in variables.items()})
    return env


def write_config(path, text, mode=0o600):
    path.write_text(text)
    path.chmod(mode)
    return path


class HeldPort:
    """A loopback port this test holds bound, so a server told to use it cannot start."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.port = self.socket.getsockname()[1]

    def close(self):
        self.socket.close()


@pytest.fixture
def held_ports():
    ports = [HeldPort() for _ in range(2)]
    yield [p.port for p in ports]
    for p in ports:
        p.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(bin_dir, tmp_path, args, env):
    return SkadeServer(bin_dir, tmp_path / "server", args=args, env=env)


def stop(server):
    assert server.stop() == 0, server.log_path.read_text()
    return server.log_path.read_text()


def serving_warehouse(log):
    """The warehouse the server's start line names."""
    line = next(l for l in log.splitlines() if "Iceberg REST catalog on" in l)
    return line.split("(warehouse ", 1)[1].split(",", 1)[0]


def run_skade(*args, env):
    return subprocess.run([str(skade_bin_dir() / "skade"), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=120)


def test_the_file_sets_port_and_warehouse(bin_dir, tmp_path):
    port = free_port()
    warehouse = tmp_path / "from-file"
    config = write_config(tmp_path / "skade.toml", f"""
# global options first
warehouse = "{warehouse}"
durability = 'eventual'

[serve]
port = {port}
quiet = true
""")
    server = start(bin_dir, tmp_path, ["--config", config, "serve"], clean_env())
    try:
        assert server.uri == f"http://127.0.0.1:{port}"
        assert requests.post(f"{server.uri}/v1/namespaces", json={"namespace": ["from_file"]},
                             timeout=30).status_code == 200
    finally:
        log = stop(server)
    assert serving_warehouse(log).rstrip("/").endswith("from-file")
    assert "durability eventual" in log
    assert "/v1/namespaces" not in log  # quiet = true
    listed = run_skade("--warehouse", warehouse, "ns", "list", env=clean_env())
    assert listed.returncode == 0 and "from_file" in listed.stdout


def test_skade_config_or_serve_config_names_the_file(bin_dir, tmp_path):
    config = write_config(tmp_path / "skade.toml",
                          f'warehouse = "{tmp_path / "wh"}"\nserve.port = 0\n')
    server = start(bin_dir, tmp_path, ["serve"], clean_env(SKADE_CONFIG=config))
    assert serving_warehouse(stop(server)).rstrip("/").endswith("wh")
    # --config may also follow the subcommand, as the issue writes it.
    server = start(bin_dir, tmp_path, ["serve", "--config", config], clean_env())
    assert serving_warehouse(stop(server)).rstrip("/").endswith("wh")


def test_environment_overrides_the_file(bin_dir, tmp_path, held_ports):
    config = write_config(tmp_path / "skade.toml", f"""
warehouse = "{tmp_path / 'file-wh'}"
[serve]
port = {held_ports[0]}
quiet = true
""")
    # The file's port is taken, so the server starts only if SKADE_PORT wins; SKADE_QUIET=false
    # beats the file's quiet = true.
    server = start(bin_dir, tmp_path, ["--config", config, "serve"],
                   clean_env(SKADE_PORT=0, SKADE_WAREHOUSE=tmp_path / "env-wh", SKADE_QUIET="false"))
    requests.get(f"{server.uri}/v1/config", timeout=30)
    log = stop(server)
    assert serving_warehouse(log).rstrip("/").endswith("env-wh")
    assert "/v1/config" in log
    assert not (tmp_path / "file-wh").exists()


def test_command_line_overrides_the_environment_and_the_file(bin_dir, tmp_path, held_ports):
    config = write_config(tmp_path / "skade.toml", f"""
warehouse = "{tmp_path / 'file-wh'}"
[serve]
port = {held_ports[0]}
""")
    env = clean_env(SKADE_PORT=held_ports[1], SKADE_WAREHOUSE=tmp_path / "env-wh",
                    SKADE_QUIET="true")
    server = start(bin_dir, tmp_path, ["--config", config, "--warehouse", tmp_path / "cli-wh",
                                       "serve", "--port", "0"], env)
    log = stop(server)
    assert serving_warehouse(log).rstrip("/").endswith("cli-wh")
    assert not (tmp_path / "env-wh").exists() and not (tmp_path / "file-wh").exists()


def test_lists_from_the_file_and_the_environment(bin_dir, tmp_path):
    config = write_config(tmp_path / "skade.toml", """
[serve]
port = 0
quiet = true
auth = "token"
oauth-client = [
  "writer:w#1'secret",   # a '#' and a quote inside a string are part of it
  "reader:r3ad:ro",
]
""")

    def token_status(server, client_id, secret):
        return requests.post(f"{server.uri}/v1/oauth/tokens", data={
            "grant_type": "client_credentials", "client_id": client_id, "client_secret": secret,
            "scope": "catalog"}, timeout=30).status_code

    server = start(bin_dir, tmp_path, ["--config", config, "--warehouse", tmp_path / "wh", "serve"],
                   clean_env())
    try:
        assert token_status(server, "writer", "w#1'secret") == 200
        assert token_status(server, "reader", "r3ad") == 200
        assert token_status(server, "other", "x") == 401
    finally:
        stop(server)

    # The environment's list replaces the file's.
    server = start(bin_dir, tmp_path, ["--config", config, "--warehouse", tmp_path / "wh", "serve"],
                   clean_env(SKADE_OAUTH_CLIENT='["env-a:aaa", "env-b:bbb"]'))
    try:
        assert token_status(server, "env-a", "aaa") == 200
        assert token_status(server, "env-b", "bbb") == 200
        assert token_status(server, "writer", "w#1'secret") == 401
    finally:
        log = stop(server)
    assert "aaa" not in log and "w#1" not in log


def test_a_file_with_secrets_readable_by_others_is_warned_about(bin_dir, tmp_path):
    text = "[serve]\nport = 0\nauth = 'token'\noauth-client = ['writer:s3cr3t']\n"
    for mode, warned in ((0o644, True), (0o600, False)):
        config = write_config(tmp_path / f"skade-{mode:o}.toml", text, mode)
        server = start(bin_dir, tmp_path, ["--config", config, "--warehouse", tmp_path / "wh",
                                           "serve"], clean_env())
        log = stop(server)
        assert ("others may read it" in log) == warned, log
        assert "s3cr3t" not in log


def failure(tmp_path, text, *args, env=None):
    """Runs skade with `text` as its config file, expecting it to fail; returns the file and
    stderr. A server that starts instead is stopped and fails the test at once."""
    config = write_config(tmp_path / "bad.toml", text)
    proc = subprocess.Popen(
        [str(skade_bin_dir() / "skade"), "--config", str(config), "--warehouse",
         str(tmp_path / "wh"), *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or clean_env())
    first = proc.stdout.readline()
    if first.startswith("listening"):
        proc.terminate()
        proc.communicate()
        pytest.fail(f"skade started with {text!r} and args {args}")
    _, err = proc.communicate()
    assert proc.returncode != 0, err
    return config, err


def test_static_keys_are_not_vended_to_anyone_who_can_connect(tmp_path):
    _, err = failure(tmp_path, "", "serve", "--host", "0.0.0.0", "--vend-credentials", "static")
    assert "--vend-credentials static with --auth none" in err and "0.0.0.0" in err, err
    # On loopback the combination is allowed (it fails here only for the local warehouse).
    _, err = failure(tmp_path, "", "serve", "--vend-credentials", "static")
    assert "--vend-credentials needs an s3:// warehouse" in err, err


def test_an_unknown_key_names_the_key_and_the_file(tmp_path):
    config, err = failure(tmp_path, "[serve]\n\nprot = 8181\n", "serve")
    assert f"{config}:3: unknown key 'serve.prot'" in err
    _, err = failure(tmp_path, "port = 8181\n", "serve")
    assert "unknown key 'port'" in err and "set it under [serve]" in err
    _, err = failure(tmp_path, "[serve]\nwarehouse = '/x'\n", "serve")
    assert "unknown key 'serve.warehouse'" in err and "global option" in err
    _, err = failure(tmp_path, "[table]\nname = 'x'\n", "ns", "list")
    assert "unknown key 'table.name'" in err


def test_malformed_toml_names_the_line(tmp_path):
    cases = {
        "warehouse = '/x'\n[serve]\nport 8181\n": "line 3: expected '=' after the key 'port'",
        "[serve]\nhost = \"127.0.0.1\n": "line 2: unterminated string",
        "[serve]\nport = 1\nport = 2\n": "line 3: duplicate key 'serve.port' (first at line 2)",
        "[serve]\nauth = token\n": "line 2: the value of 'serve.auth' is not a TOML value",
        "[serve]\nport = 1 2\n": "line 2: unexpected text",
        "[serve]\nport = [1, 2]\n": ":2: 'serve.port' takes one value, not an array",
    }
    for text, expected in cases.items():
        config, err = failure(tmp_path, text, "serve")
        assert str(config) in err and expected in err, (text, err)


def test_a_malformed_secret_is_not_echoed(tmp_path):
    """Regression: an unquoted `oauth-client` value was printed in full in the parse error."""
    for text in ("[serve]\noauth-client = admin:S3cr3tValue\n",
                 "[serve]\noauth-client = ['admin:x', admin:S3cr3tValue]\n",
                 "[serve]\noauth-client = 'admin:x' S3cr3tValue\n"):
        config, err = failure(tmp_path, text, "serve")
        assert f"{config}: line 2:" in err and "'serve.oauth-client'" in err, (text, err)
        assert "S3cr3t" not in err, err
    _, err = failure(tmp_path, "[serve]\noauth-client = admin:S3cr3tValue\n", "serve")
    assert "quote strings" in err, err
    env = clean_env(SKADE_OAUTH_CLIENT="[admin:S3cr3tValue]")
    proc = subprocess.run([str(skade_bin_dir() / "skade"), "--warehouse", str(tmp_path / "wh"),
                           "serve"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode != 0 and "SKADE_OAUTH_CLIENT" in proc.stderr, proc.stderr
    assert "S3cr3t" not in proc.stderr + proc.stdout, proc.stderr


def test_a_missing_config_file_is_an_error(tmp_path):
    missing = tmp_path / "nope.toml"
    for args, env in (((["--config", missing]), clean_env()), ([], clean_env(SKADE_CONFIG=missing))):
        proc = run_skade(*args, "--warehouse", tmp_path / "wh", "serve", env=env)
        assert proc.returncode != 0 and str(missing) in proc.stderr, proc.stderr


def test_a_bad_value_names_its_source(tmp_path):
    # From the file: CLI11's conversion error, and serve's own range check.
    config, err = failure(tmp_path, "[serve]\nport = 'eighty'\n", "serve")
    assert "--port" in err and f"'serve.port' in {config}:2" in err, err
    config, err = failure(tmp_path, "[serve]\n\nport = 70000\n", "serve")
    assert "Invalid --port 70000" in err and f"'serve.port' in {config}:3" in err, err
    config, err = failure(tmp_path, "[serve]\ncommit-log-retention = 'forever'\n", "serve")
    assert "--commit-log-retention" in err and f"'serve.commit-log-retention' in {config}:2" in err
    # From the environment, over a good file value.
    _, err = failure(tmp_path, "[serve]\nport = 0\n", "serve", env=clean_env(SKADE_PORT="eighty"))
    assert "--port" in err and "environment variable SKADE_PORT" in err and "bad.toml" not in err
    _, err = failure(tmp_path, "", "serve", env=clean_env(SKADE_IO='["a=1", b]'))
    assert "SKADE_IO" in err
    _, err = failure(tmp_path, "", "serve", env=clean_env(SKADE_NO_GROUP_COMMIT="maybe"))
    assert "--no-group-commit" in err and "environment variable SKADE_NO_GROUP_COMMIT" in err, err
    # From the command line: no source note.
    _, err = failure(tmp_path, "[serve]\nport = 0\n", "serve", "--port", "70000",
                     env=clean_env(SKADE_PORT="1"))
    assert "Invalid --port 70000" in err and " is from " not in err, err


def test_the_example_file_starts_a_server(bin_dir, tmp_path):
    # Every key of the shipped example is an option; only the port and warehouse are overridden.
    server = start(bin_dir, tmp_path, ["--config", EXAMPLE, "--warehouse", tmp_path / "wh",
                                       "serve", "--port", "0"], clean_env())
    assert requests.get(f"{server.uri}/v1/config", timeout=30).status_code == 200
    stop(server)


def test_the_example_file_documents_every_serve_option(bin_dir, tmp_path):
    # Every option `skade serve --help` and `skade --help` list appears in the example, set or
    # commented out, so the example grows with the options.
    text = EXAMPLE.read_text()
    keys = set()
    for line in text.splitlines():
        line = line.lstrip("# ").strip()
        if " = " in line:
            keys.add(line.split(" = ", 1)[0])
    missing = []
    for args in (["--help"], ["serve", "--help"]):
        proc = run_skade(*args, env=clean_env())
        assert proc.returncode == 0, proc.stderr
        # Option lines: "  -w,--warehouse TEXT ...", "  --port INT ...".
        for line in proc.stdout.splitlines():
            if not line.strip().startswith("-"):
                continue
            for name in line.split()[0].split("{")[0].split(","):
                if name.startswith("--") and name[2:] not in ("help", "config") + tuple(keys):
                    missing.append(name[2:])
    assert not missing, f"options missing from {EXAMPLE.name}: {sorted(set(missing))}"

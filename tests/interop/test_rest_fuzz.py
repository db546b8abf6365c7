"""API fuzzing with schemathesis against the Iceberg REST OpenAPI document:
a bounded number of generated requests, valid and invalid, per operation.
No request may get a 5xx or crash the server, and a rejected request (4xx)
must leave the catalog and the warehouse exactly as they were."""
import pathlib

import pytest
import requests
import schemathesis
import yaml
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

SPEC = pathlib.Path(__file__).resolve().parent / "specs" / "rest-catalog-open-api.yaml"
EXAMPLES_PER_OPERATION = 12


def load_schema():
    raw = yaml.safe_load(SPEC.read_text())
    # skade serves the API without a prefix (GET /v1/config advertises none).
    raw["paths"] = {path.replace("/v1/{prefix}", "/v1"): item for path, item in raw["paths"].items()}
    for item in raw["paths"].values():
        params = item.get("parameters", [])
        item["parameters"] = [p for p in params if p.get("$ref", "").split("/")[-1] != "prefix"
                              and p.get("name") != "prefix"]
        for operation in item.values():
            if isinstance(operation, dict) and "parameters" in operation:
                operation["parameters"] = [
                    p for p in operation["parameters"]
                    if p.get("$ref", "").split("/")[-1] != "prefix" and p.get("name") != "prefix"]
    return schemathesis.openapi.from_dict(raw)


def catalog_state(uri, warehouse):
    """Namespaces, tables with their metadata locations, and the warehouse's files."""
    state = {}
    pending = [None]
    while pending:
        parent = pending.pop()
        params = {"parent": "\x1f".join(parent)} if parent else {}
        for ns in requests.get(f"{uri}/v1/namespaces", params=params, timeout=30).json()["namespaces"]:
            pending.append(ns)
            encoded = "%1F".join(requests.utils.quote(level, safe="") for level in ns)
            props = requests.get(f"{uri}/v1/namespaces/{encoded}", timeout=30).json()["properties"]
            state[("ns", tuple(ns))] = tuple(sorted(props.items()))
            tables = requests.get(f"{uri}/v1/namespaces/{encoded}/tables", timeout=30).json()
            for ident in tables["identifiers"]:
                name = requests.utils.quote(ident["name"], safe="")
                loaded = requests.get(f"{uri}/v1/namespaces/{encoded}/tables/{name}", timeout=30).json()
                state[("table", tuple(ns), ident["name"])] = loaded["metadata-location"]
    files = sorted(str(p.relative_to(warehouse)) for p in warehouse.rglob("*")
                   if ".skade" not in p.parts)
    return state, files


@pytest.fixture(scope="module")
def seeded(module_server):
    """A catalog with something in it, so generated requests hit real objects."""
    uri = module_server.uri
    requests.post(f"{uri}/v1/namespaces", json={"namespace": ["ns"], "properties": {"a": "b"}}, timeout=30)
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}
    requests.post(f"{uri}/v1/namespaces/ns/tables", json={"name": "t", "schema": schema}, timeout=30)
    return module_server


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_generated_requests_never_fail_the_server(seeded, mode):
    schema = load_schema()
    uri = seeded.uri
    warehouse = seeded.warehouse
    failures = []
    calls = {"count": 0, "rejected": 0}
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True,
                  database=None, suppress_health_check=list(HealthCheck))
        def run(case):
            before = catalog_state(uri, warehouse)
            try:
                response = case.call(base_url=uri, timeout=30)
            except requests.exceptions.RequestException as error:
                failures.append(f"{operation.label}: transport error {error!r}")
                return
            calls["count"] += 1
            if response.status_code >= 500:
                failures.append(f"{operation.label}: {response.status_code} {response.text[:300]}")
            elif response.status_code >= 400:
                calls["rejected"] += 1
                if catalog_state(uri, warehouse) != before:
                    failures.append(f"{operation.label}: rejected ({response.status_code}) but "
                                    f"changed state: {case.method} {case.formatted_path}")

        run()
        assert seeded.proc.poll() is None, f"server died during {operation.label}"
    print(f"{mode}: {calls['count']} requests, {calls['rejected']} rejected")
    assert calls["count"] > 100
    assert not failures, "\n".join(failures[:20])

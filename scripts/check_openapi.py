#!/usr/bin/env python3
"""Checks manifests/openapi.yaml against a running `trailpack serve`.

The document must be a valid OpenAPI 3.1 document; then every request below is sent to the server,
and its status must be one the document lists for that operation, its Content-Type the documented
one, and its JSON body valid against the documented schema. Prints one line per request and a
closing count; exits 1 on any disagreement.

Usage: check_openapi.py SPEC BASE_URL ADMIN_TOKEN PACKAGE_ID VERSION SITE SHA256 [PACKAGE_FILE]
(PACKAGE_FILE: the package already uploaded, sent again to check the upload answer.)
"""
import json, re, sys, urllib.error, urllib.request
import yaml
from openapi_spec_validator import validate
from jsonschema import Draft202012Validator

spec_path, base, token, pid, version, site, sha = sys.argv[1:8]
package_file = sys.argv[8] if len(sys.argv) > 8 else None
spec = yaml.safe_load(open(spec_path))
validate(spec)


def resolve(node):
    """The schema with every `#/components/...` reference replaced by what it names (no cycles here)."""
    if isinstance(node, dict):
        if "$ref" in node and node["$ref"].startswith("#/"):
            target = spec
            for part in node["$ref"][2:].split("/"):
                target = target[part]
            return resolve(target)
        return {k: resolve(v) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v) for v in node]
    return node


def schema_for(path_template, method, status, content_type):
    op = spec["paths"][path_template][method]
    response = op["responses"].get(str(status))
    if response is None:
        return None, f"status {status} is not documented for {method.upper()} {path_template}"
    if "$ref" in response:
        response = spec["components"]["responses"][response["$ref"].split("/")[-1]]
    content = response.get("content")
    if not content:
        return {}, None
    if content_type not in content:
        return None, f"content type {content_type} is not documented (documented: {list(content)})"
    return content[content_type].get("schema", {}), None


def check_body(schema, body):
    return [e.message[:200] for e in Draft202012Validator(resolve(schema)).iter_errors(body)]


requests = [
    ("GET", "/v1/sites", "/v1/sites", None, {}),
    ("GET", "/v1/sites/{site}/packages", f"/v1/sites/{site}/packages?limit=1", None, {}),
    ("GET", "/v1/sites/{site}/packages", "/v1/sites/no-such-site/packages", None, {}),
    ("GET", "/v1/sites/{site}/packages", f"/v1/sites/{site}/packages?limit=0", None, {}),
    ("GET", "/v1/packages/{id}", f"/v1/packages/{pid}", None, {}),
    ("GET", "/v1/packages/{id}", "/v1/packages/no.such.package", None, {}),
    ("GET", "/v1/packages/{id}/manifest", f"/v1/packages/{pid}/manifest", None, {}),
    ("GET", "/v1/packages/{id}/versions/{version}/manifest", f"/v1/packages/{pid}/versions/{version}/manifest", None, {}),
    ("GET", "/v1/packages/{id}/versions/{version}/manifest", f"/v1/packages/{pid}/versions/999/manifest", None, {}),
    ("POST", "/v1/packages/{id}/versions/{version}/confirm", f"/v1/packages/{pid}/versions/{version}/confirm", json.dumps({"sha256": sha}).encode(), {"Content-Type": "application/json"}),
    ("POST", "/v1/packages/{id}/versions/{version}/confirm", f"/v1/packages/{pid}/versions/{version}/confirm", b"{not json", {"Content-Type": "application/json"}),
    ("POST", "/v1/packages/{id}/versions/{version}/confirm", f"/v1/packages/{pid}/versions/{version}/confirm", json.dumps({"sha256": sha, "refused": "signatures"}).encode(), {"Content-Type": "application/json"}),
    ("POST", "/v1/packages/{id}/versions/{version}/confirm", f"/v1/packages/{pid}/versions/{version}/confirm", json.dumps({"sha256": sha, "refused": "bored"}).encode(), {"Content-Type": "application/json"}),
    ("GET", "/v1/blobs/{file}", f"/v1/blobs/{sha}.zip", None, {}),
    ("GET", "/v1/blobs/{file}", f"/v1/blobs/{sha}.zip", None, {"Range": "bytes=0-99"}),
    ("GET", "/v1/blobs/{file}", f"/v1/blobs/{sha}.zip", None, {"Range": "bytes=999999999-"}),
    ("GET", "/v1/blobs/{file}", f"/v1/blobs/{'0' * 64}.zip", None, {}),
    ("HEAD", "/v1/blobs/{file}", f"/v1/blobs/{sha}.zip", None, {}),
    ("POST", "/v1/admin/packages", "/v1/admin/packages", b"not a zip", {"Content-Type": "application/zip"}),
    ("POST", "/v1/admin/packages", "/v1/admin/packages", b"not a zip", {"Content-Type": "application/zip", "Authorization": f"Bearer {token}"}),
    ("GET", "/v1/admin/packages/{id}/versions/{version}", f"/v1/admin/packages/{pid}/versions/{version}", None, {"Authorization": f"Bearer {token}"}),
    ("POST", "/v1/admin/packages/{id}/versions/{version}/{action}", f"/v1/admin/packages/{pid}/versions/{version}/push", None, {"Authorization": f"Bearer {token}"}),
    ("POST", "/v1/admin/packages/{id}/versions/{version}/{action}", f"/v1/admin/packages/{pid}/versions/{version}/dance", None, {"Authorization": f"Bearer {token}"}),
    ("POST", "/v1/admin/packages/{id}/versions/{version}/{action}", f"/v1/admin/packages/{pid}/versions/{version}/rescan", None, {"Authorization": f"Bearer {token}"}),
    ("GET", "/v1/blobs/{file}", f"/v1/blobs/{'1' * 64}.zip", None, {"Authorization": "Bearer not-a-token"}),
    ("GET", "/v1/packages/{id}/versions/{version}/manifest", f"/v1/packages/{pid}/versions/999/manifest", None, {"Authorization": "Bearer not-a-token"}),
    ("GET", "/v1/packages/{id}/versions/{version}/signatures", f"/v1/packages/{pid}/versions/{version}/signatures", None, {}),
    ("GET", "/v1/admin/confirmations", "/v1/admin/confirmations", None, {"Authorization": f"Bearer {token}"}),
    ("GET", "/v1/admin/audit", "/v1/admin/audit", None, {"Authorization": f"Bearer {token}"}),
]
if package_file:
    requests.append(("POST", "/v1/admin/packages", "/v1/admin/packages", open(package_file, "rb").read(),
                     {"Content-Type": "application/zip", "Authorization": f"Bearer {token}"}))

failures = 0
for method, template, path, body, headers in requests:
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req) as r:
            status, ctype, payload = r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        status, ctype, payload = e.code, e.headers.get("Content-Type", ""), e.read()
    schema, problem = schema_for(template, method.lower(), status, ctype.split(";")[0])
    errors = [problem] if problem else []
    if not problem and ctype.startswith("application/json") and method != "HEAD":
        errors += check_body(schema, json.loads(payload))
    print(f"{'ok  ' if not errors else 'FAIL'} {method} {path} -> {status} {ctype}" + ("".join(f"\n     {e}" for e in errors)))
    failures += bool(errors)
print(f"{len(requests) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)

#!/usr/bin/env bash
# Runs Apache Iceberg's REST Compatibility Kit (RCK) from the published Maven Central test jars
# (classpath resolved by scripts/fetch-jars.sh from tests/rck/pom.xml) against an external REST
# catalog server, with the JUnit Platform console launcher.
#
# Usage: tests/rck/run-rck.sh URI WAREHOUSE
#   URI        the server's base URI, e.g. http://127.0.0.1:8181/ (the client appends v1/...)
#   WAREHOUSE  the warehouse the client asks for (sent as ?warehouse= to GET /v1/config)
# The tests write data/manifest files themselves at the file: locations the server hands out, so the
# server must use local file: locations this machine can open.
#
# Environment:
#   RCK_SELECT       suite (default: RESTCompatibilityKitSuite = catalog + view tests), catalog, view
#   RCK_REPORT_DIR   where the JUnit XML goes (default .deps/rck-report); the report is
#                    $RCK_REPORT_DIR/TEST-*.xml, the full console tree $RCK_REPORT_DIR/console.log,
#                    the summary $RCK_REPORT_DIR/summary.txt
#   RCK_JAVA_OPTS    JVM options (default "-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1")
#   RCK_PROPS        extra -D options, e.g. "-Drck.supports-names-with-dot=true"
#   CATALOG_*        client configuration the kit reads itself (CATALOG_IO__IMPL=..., CATALOG_TOKEN=...)
#
# Prints "RCK: N passed, N failed, N skipped" (failed = failures + errors). Exit status 0 when the
# kit ran (even with failing tests), non-zero only when it could not run or produced no report.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/jars.env

if [[ $# -ne 2 ]]; then
  echo "usage: $0 URI WAREHOUSE" >&2
  exit 2
fi
uri=$1 warehouse=$2
report_dir=${RCK_REPORT_DIR:-.deps/rck-report}
java_opts=${RCK_JAVA_OPTS:--Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1}

case ${RCK_SELECT:-suite} in
  suite) select=(--select-class org.apache.iceberg.rest.RESTCompatibilityKitSuite) ;;
  catalog) select=(--select-class org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests) ;;
  view) select=(--select-class org.apache.iceberg.rest.RESTCompatibilityKitViewCatalogTests) ;;
  *) echo "run-rck: RCK_SELECT must be suite, catalog or view" >&2; exit 2 ;;
esac

scripts/fetch-jars.sh rck || { echo "run-rck: could not fetch the RCK classpath" >&2; exit 3; }

rm -rf "$report_dir"
mkdir -p "$report_dir"

# Outside Gradle nothing translates rck.uri -> uri: the kit passes every system property to the
# RESTCatalog client as-is, so give it the stripped keys (uri, warehouse) plus the rck.* switches.
# rck.local=false: do not start the kit's own server on 8181.
# shellcheck disable=SC2086
java $java_opts \
  -Drck.local=false \
  -Duri="$uri" \
  -Dwarehouse="$warehouse" \
  -Drck.requires-namespace-create=true \
  -Drck.supports-serverside-retry=true \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.logFile=System.err \
  ${RCK_PROPS:-} \
  -cp "$RCK_JARS_DIR/*" \
  org.junit.platform.console.ConsoleLauncher execute \
  --disable-banner --disable-ansi-colors --details=tree \
  --reports-dir="$report_dir" \
  "${select[@]}" >"$report_dir/console.log" 2>&1
launcher_rc=$?

python3 - "$report_dir" "$launcher_rc" <<'PY'
import glob, os, sys
import xml.etree.ElementTree as ET

report_dir, launcher_rc = sys.argv[1], int(sys.argv[2])
files = sorted(glob.glob(os.path.join(report_dir, "TEST-*.xml")))
passed = failed = skipped = 0
failed_names, skipped_names = [], []
for path in files:
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}.{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            node = case.find("failure") if case.find("failure") is not None else case.find("error")
            msg = (node.get("message") or node.get("type") or "").strip().splitlines()
            failed_names.append(f"FAILED  {name}: {msg[0][:200] if msg else ''}")
        elif case.find("skipped") is not None:
            skipped += 1
            msg = (case.find("skipped").get("message") or "").strip().splitlines()
            skipped_names.append(f"SKIPPED {name}: {msg[0][:200] if msg else ''}")
        else:
            passed += 1
lines = failed_names + skipped_names
summary = f"RCK: {passed} passed, {failed} failed, {skipped} skipped"
with open(os.path.join(report_dir, "summary.txt"), "w") as f:
    f.write("\n".join(lines + [summary]) + "\n")
for line in lines:
    print(line)
total = passed + failed + skipped
if not files or total == 0:
    print(f"run-rck: the kit did not run (launcher exit {launcher_rc}); see {report_dir}/console.log",
          file=sys.stderr)
    sys.exit(4)
print(summary)
PY
rc=$?
if ((rc != 0)); then
  tail -n 40 "$report_dir/console.log" >&2
  exit "$rc"
fi
echo "run-rck: JUnit XML in $report_dir/ (console tree: $report_dir/console.log)"
exit 0

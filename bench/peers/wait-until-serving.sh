# Sourced by the peers' start scripts: wait_until_serving NAME PID URL TIMEOUT LOG waits until URL
# answers 2xx, and exits 1 with LOG's last lines if PID dies first or TIMEOUT seconds pass (then it
# kills PID).
wait_until_serving() {
  local name=$1 pid=$2 url=$3 timeout=$4 log=$5
  local deadline=$((SECONDS + timeout))
  until curl -fs -o /dev/null --max-time 2 "$url"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: the server exited during start-up; last lines of $log:" >&2
      tail -n 30 "$log" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "$name: no answer from $url after ${timeout}s; killing $pid" >&2
      kill "$pid" 2>/dev/null || true
      tail -n 30 "$log" >&2
      exit 1
    fi
    sleep 0.3
  done
}

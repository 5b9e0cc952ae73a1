-- Shared by the wrk scripts of bench/load.py: a JSON summary line from done().
-- wrk counts non-2xx/3xx answers in summary.errors.status; latencies are in microseconds.
function summary_json(summary, latency)
  local e = summary.errors
  return string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, "errors": {"connect": %d, "read": %d, "write": %d, '
      .. '"status": %d, "timeout": %d}, "latency_us": {"mean": %.1f, "p50": %d, "p95": %d, "p99": %d, "max": %d}}',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max)
end

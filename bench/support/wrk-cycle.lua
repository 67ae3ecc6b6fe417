-- A wrk script that sends the same request with each body of a file in turn
-- (one JSON body per line), for bench/support/wrk.ts.
--
--   WRK_AUTHORIZATION='Bearer ...' wrk -s wrk-cycle.lua URL -- METHOD PATH BODIES_FILE
--
-- The authorization header comes from the environment so no key appears in
-- a process listing. When done it prints one JSON line of counts and the
-- latency's p50 and p99 in microseconds.

local requests = {}
local next_index = 0

function init(args)
  local method, path, file = args[1], args[2], args[3]
  local headers = { ["content-type"] = "application/json" }
  local authorization = os.getenv("WRK_AUTHORIZATION")
  if authorization and authorization ~= "" then
    headers["authorization"] = authorization
  end
  for body in io.lines(file) do
    requests[#requests + 1] = wrk.format(method, path, headers, body)
  end
  assert(#requests > 0, "no bodies in " .. file)
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end

function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"status_errors":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end

-- Requests from a prepared list: `wrk ... -s list.lua -- DATA_FILE MODE [START [THINK_MIN_MS THINK_MAX_MS]]`.
-- DATA_FILE (written by bench/load.py) returns {{method, path, headers, body}, ...}.
-- MODE "random": any entry each time (GETs by random learners);
-- MODE "sequential": entry START, START+1, ... each exactly once (fresh attempt items, learners whose
-- queue is not cached yet); when the list runs out, later requests re-send old entries and the runner
-- reports it.
-- THINK_MIN_MS/THINK_MAX_MS: each connection waits a uniform random time in that range before each
-- request (a learner reading between clicks); without them, connections send back to back.
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "common.lua")

local entries, mode, next_index, formatted

function init(args)
  entries = dofile(args[1])
  mode = args[2] or "random"
  next_index = tonumber(args[3] or "1")
  formatted = {}
  for i, e in ipairs(entries) do
    formatted[i] = wrk.format(e[1], e[2], e[3], e[4])
  end
  math.randomseed(os.time() + next_index)
  local think_min, think_max = tonumber(args[4] or "0"), tonumber(args[5] or "0")
  if think_max > 0 then
    function delay()
      return math.random(think_min, think_max)
    end
  end
end

function request()
  if mode == "sequential" then
    local i = next_index
    next_index = next_index + 1
    return formatted[((i - 1) % #formatted) + 1]
  end
  return formatted[math.random(#formatted)]
end

function done(summary, latency, requests)
  io.write("BENCH_JSON " .. summary_json(summary, latency) .. "\n")
end

-- Offline review batches: `wrk ... -s offline.lua -- DATA_FILE SIZE`. Each request: a random learner's
-- token, SIZE entries for SIZE distinct random questions, each with a fresh random UUID (v4).
-- DATA_FILE returns {tokens = {...}, questions = {{id, "quiz"|"rated"}, ...}, reviewed_at = "..."}.
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "common.lua")

local data, size

local function uuid4()
  local t = {}
  for i = 1, 16 do t[i] = math.random(0, 255) end
  t[7] = (t[7] % 16) + 64    -- version 4
  t[9] = (t[9] % 64) + 128   -- RFC 4122 variant
  return string.format("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", unpack(t))
end

function init(args)
  data = dofile(args[1])
  size = tonumber(args[2] or "20")
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
end

function request()
  local token = data.tokens[math.random(#data.tokens)]
  local n = #data.questions
  local picked, parts = {}, {}
  while #parts < size do
    local q = data.questions[math.random(n)]
    if not picked[q[1]] then
      picked[q[1]] = true
      local outcome = q[2] == "quiz" and ('"correct": ' .. (math.random() < 0.8 and "true" or "false"))
        or ('"rating": ' .. math.random(1, 4))
      parts[#parts + 1] = string.format(
        '{"client_uuid": "%s", "question_id": %d, %s, "reviewed_at": "%s", "duration_ms": %d}',
        uuid4(), q[1], outcome, data.reviewed_at, math.random(2000, 40000))
    end
  end
  local body = '{"entries": [' .. table.concat(parts, ", ") .. ']}'
  return wrk.format("POST", "/api/v1/reviews/offline/",
    {["Authorization"] = "Token " .. token, ["Content-Type"] = "application/json"}, body)
end

function done(summary, latency, requests)
  io.write("BENCH_JSON " .. summary_json(summary, latency) .. "\n")
end

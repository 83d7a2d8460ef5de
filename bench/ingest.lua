-- wrk script for bench/ingest.ts: POST /api/messages with a random bot of BENCH_BOT_IDS and a
-- random chat among BENCH_CHATS, each request with its own client_message_id (no repeats).
-- Each thread stops after BENCH_MAX_PER_THREAD requests, so a run is bounded in count as well
-- as in time (wrk -d). done() prints one line "WRK {json}" the bench parses.
local counter = 0
local bots = {}
local chats, tag, max_per_thread
local next_thread = 0

function setup(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
end

function init(args)
  for id in string.gmatch(os.getenv("BENCH_BOT_IDS") or "", "[^,]+") do bots[#bots + 1] = id end
  chats = tonumber(os.getenv("BENCH_CHATS") or "100000")
  tag = os.getenv("BENCH_TAG") or "wrk"
  max_per_thread = tonumber(os.getenv("BENCH_MAX_PER_THREAD") or "1000000")
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"bot_id":"%s","chat_id":"chat-%d","text":"bench message %d from sender %d","metadata":{"client_message_id":"%s-%d-%d"}}',
    bots[math.random(#bots)], math.random(0, chats - 1), counter, tid or 0, tag, tid or 0, counter)
  return wrk.format(nil, "/api/messages", nil, body)
end

function response(status, headers, body)
  if counter >= max_per_thread then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests":%d,"duration_us":%d,"status_errors":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end

-- sliding_log_client_time: the exact rolling window of sliding_log.lua,
-- stamped with the caller's clock instead of Redis TIME: each identity
-- keeps a sorted set of the caller's times (microseconds) of the requests
-- it admitted, and a request is admitted when fewer than limit stamps
-- remain once those at or before now - window are removed. A caller whose
-- clock is ahead removes stamps a caller behind made within the window;
-- one behind counts stamps from its future. Only the caller's time
-- decides; TIME is read for the reply alone.
--
-- KEYS[1]  the identity's log (sorted set)
-- ARGV[1]  limit: requests admitted per rolling window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000, whole milliseconds)
-- ARGV[3]  keep_ms: how long after its newest stamp leaves the window, on
--          the caller's clock, the key is kept (integer >= 0)
-- ARGV[4]  now_us: the caller's clock, microseconds since the epoch
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--          retry_after_ms counts on the caller's clock; server_now_us is
--          the TIME the script ran at.
--
-- Members are the decimal microsecond stamp, with a -N suffix when two
-- admissions share a microsecond. Numbers go to Redis as %d strings.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local keep_ms = tonumber(ARGV[3])
local now_us = tonumber(ARGV[4])

local t = redis.call('TIME')
local server_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now_us - window_us))
local count = redis.call('ZCARD', key)

if count < limit then
  local score = string.format('%d', now_us)
  local member = score
  local n = 0
  while redis.call('ZADD', key, 'NX', score, member) == 0 do
    n = n + 1
    member = score .. '-' .. n
  end
  redis.call('PEXPIRE', key, math.floor(window_us / 1000) + 1 + keep_ms)
  return {1, tostring(limit - count - 1), 0, server_us}
end

local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local retry_ms = 1
if oldest[2] then
  local wait_us = tonumber(oldest[2]) + window_us - now_us
  retry_ms = math.max(1, math.ceil(wait_us / 1000))
end
return {0, '0', retry_ms, server_us}

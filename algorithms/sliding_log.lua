-- sliding_log: an exact rolling window. Each identity keeps a sorted set of
-- the server times (microseconds) of the requests it was admitted; a request
-- is admitted when fewer than limit stamps lie in (now - window, now].
--
-- KEYS[1]  the identity's log (sorted set)
-- ARGV[1]  limit: requests admitted per rolling window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000, whole milliseconds)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--
-- Members are the decimal microsecond stamp, with a -N suffix when two
-- admissions share a microsecond, so two requests never collapse into one
-- member. Numbers go to Redis as %d strings: tostring keeps only 14
-- significant digits and an epoch in microseconds has 16.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

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
  -- The newest stamp leaves the window at now_us + window_us; the key may
  -- go one millisecond after that, when it can only hold stale stamps.
  redis.call('PEXPIREAT', key, string.format('%d', math.floor((now_us + window_us) / 1000) + 1))
  return {1, tostring(limit - count - 1), 0, now_us}
end

-- Denied: a slot frees when the oldest stamp leaves the window.
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local retry_ms = 1
if oldest[2] then
  local wait_us = tonumber(oldest[2]) + window_us - now_us
  retry_ms = math.max(1, math.ceil(wait_us / 1000))
end
return {0, '0', retry_ms, now_us}

-- leaky_bucket (policing): each identity has a bucket of size capacity that
-- leaks limit requests per window; a request adds one unit and is rejected
-- (not delayed) when it would overflow the bucket.
--
-- KEYS[1]  the identity's bucket (hash: level, ts)
-- ARGV[1]  limit: units drained per window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000)
-- ARGV[3]  capacity: the bucket size in requests (integer >= 1)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--
-- The level is kept in integer units of 1/window_us request, so it drains
-- exactly `limit` units per microsecond and one request is window_us units.
-- The key expires when the bucket would be empty, the same state as a
-- missing key.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local size = capacity * window_us

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

local level = 0
local state = redis.call('HMGET', key, 'level', 'ts')
if state[1] and state[2] then
  level = tonumber(state[1])
  local elapsed = now_us - tonumber(state[2])
  if elapsed > 0 then
    local drained = elapsed * limit
    if drained >= level then
      level = 0
    else
      level = level - drained
    end
  end
end

local allowed = 0
if level + window_us <= size then
  level = level + window_us
  allowed = 1
end

redis.call('HSET', key, 'level', string.format('%d', level), 'ts', string.format('%d', now_us))
local drain_us = math.ceil(level / limit)
redis.call('PEXPIREAT', key, string.format('%d', math.ceil((now_us + drain_us) / 1000)))

local remaining = string.format('%.6f', (size - level) / window_us)
if allowed == 1 then
  return {1, remaining, 0, now_us}
end
local wait_us = math.ceil((level + window_us - size) / limit)
return {0, remaining, math.max(1, math.ceil(wait_us / 1000)), now_us}

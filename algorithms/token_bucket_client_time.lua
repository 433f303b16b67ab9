-- token_bucket_client_time: the bucket of token_bucket.lua, refilled by the
-- caller's clock instead of Redis TIME: tokens come back at limit per
-- window for the time between the last request's clock and this one's, and
-- the bucket keeps this request's time, earlier or not. A caller whose clock
-- is behind sets the time back, and the next caller ahead of it refills
-- that difference again: the bucket refills from the future. Only the
-- caller's time decides; TIME is read for the reply alone.
--
-- KEYS[1]  the identity's bucket (hash: tokens, ts)
-- ARGV[1]  limit: tokens added per window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000)
-- ARGV[3]  capacity: the most tokens the bucket holds (integer >= 1)
-- ARGV[4]  keep_ms: how long after it would be full again, on the
--          caller's clock, the key is kept (integer >= 0)
-- ARGV[5]  now_us: the caller's clock, microseconds since the epoch
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--          retry_after_ms counts on the caller's clock; server_now_us is
--          the TIME the script ran at.
--
-- Tokens are kept in integer units of 1/window_us token, as in
-- token_bucket.lua.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local keep_ms = tonumber(ARGV[4])
local now_us = tonumber(ARGV[5])
local full = capacity * window_us

local t = redis.call('TIME')
local server_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

local tokens = full
local state = redis.call('HMGET', key, 'tokens', 'ts')
if state[1] and state[2] then
  tokens = tonumber(state[1])
  local elapsed = now_us - tonumber(state[2])
  if elapsed > 0 then
    local refill = elapsed * limit
    if refill >= full - tokens then
      tokens = full
    else
      tokens = tokens + refill
    end
  end
end

local allowed = 0
if tokens >= window_us then
  tokens = tokens - window_us
  allowed = 1
end

redis.call('HSET', key, 'tokens', string.format('%d', tokens), 'ts', string.format('%d', now_us))
local refill_us = math.ceil((full - tokens) / limit)
redis.call('PEXPIRE', key, math.max(1, math.ceil(refill_us / 1000) + keep_ms))

local remaining = string.format('%.6f', tokens / window_us)
if allowed == 1 then
  return {1, remaining, 0, server_us}
end
local wait_us = math.ceil((window_us - tokens) / limit)
return {0, remaining, math.max(1, math.ceil(wait_us / 1000)), server_us}

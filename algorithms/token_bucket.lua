-- token_bucket: each identity holds up to capacity tokens, refilled
-- continuously at limit tokens per window; a request takes one token.
--
-- KEYS[1]  the identity's bucket (hash: tokens, ts)
-- ARGV[1]  limit: tokens added per window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000)
-- ARGV[3]  capacity: the most tokens the bucket holds (integer >= 1)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--
-- Tokens are kept in integer units of 1/window_us token, so refill is
-- exactly `limit` units per microsecond and one token is window_us units:
-- no fraction is ever rounded, and every value stays below 2^53 (the caller
-- checks capacity * window_us). The bucket expires when it would be full
-- again, which is the same state as a missing key.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local full = capacity * window_us

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

local tokens = full
local state = redis.call('HMGET', key, 'tokens', 'ts')
if state[1] and state[2] then
  tokens = tonumber(state[1])
  local elapsed = now_us - tonumber(state[2])
  if elapsed > 0 then
    -- Compare before adding: elapsed * limit may be far above 2^53 after a
    -- long pause, but then it is certainly more than the bucket lacks.
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
redis.call('PEXPIREAT', key, string.format('%d', math.ceil((now_us + refill_us) / 1000)))

local remaining = string.format('%.6f', tokens / window_us)
if allowed == 1 then
  return {1, remaining, 0, now_us}
end
local wait_us = math.ceil((window_us - tokens) / limit)
return {0, remaining, math.max(1, math.ceil(wait_us / 1000)), now_us}

#!lua name=rlbench_example_token_bucket
-- A token bucket as a Redis Function (FUNCTION LOAD, then FCALL
-- token_bucket_allow). Each identity holds up to capacity tokens, refilled
-- continuously at limit per window; a request takes one.
--
-- keys[1]  the identity's bucket (hash: tokens, ts)
-- args[1]  limit: tokens added per window
-- args[2]  window in microseconds
-- args[3]  capacity: the most tokens the bucket holds
-- Reply    {allowed 1|0, remaining (string), retry_after_ms, server_time_us}
--
-- Tokens are kept in integer units of 1/window_us token, so the refill of
-- limit units per microsecond is exact and no fraction is ever rounded. The
-- reply carries the TIME the decision used, so rlbench replays every
-- decision through its token bucket model.

local function allow(keys, args)
  local key = keys[1]
  local limit = tonumber(args[1])
  local window_us = tonumber(args[2])
  local full = tonumber(args[3]) * window_us

  local t = redis.call('TIME')
  local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

  local tokens = full
  local state = redis.call('HMGET', key, 'tokens', 'ts')
  if state[1] and state[2] then
    tokens = tonumber(state[1])
    local elapsed = now_us - tonumber(state[2])
    if elapsed > 0 then
      tokens = math.min(full, tokens + elapsed * limit)
    end
  end

  local allowed = 0
  if tokens >= window_us then
    tokens = tokens - window_us
    allowed = 1
  end

  redis.call('HSET', key, 'tokens', string.format('%d', tokens), 'ts', string.format('%d', now_us))
  -- The bucket expires when it would be full again: the same as no key.
  local refill_us = math.ceil((full - tokens) / limit)
  redis.call('PEXPIREAT', key, string.format('%d', math.ceil((now_us + refill_us) / 1000)))

  local remaining = string.format('%.6f', tokens / window_us)
  if allowed == 1 then
    return {1, remaining, 0, now_us}
  end
  local wait_us = math.ceil((window_us - tokens) / limit)
  return {0, remaining, math.ceil(wait_us / 1000), now_us}
end

redis.register_function('token_bucket_allow', allow)

-- sliding_counter: the sliding-window counter. Each identity keeps the
-- admitted counts of two clock-aligned windows, the current one and the one
-- before, and estimates the rolling window as the previous count weighted by
-- the share of the previous window the rolling window still covers, plus
-- the current count. A request is admitted while that estimate is below
-- limit. Two counters per identity, whatever the traffic.
--
-- KEYS[1]  the identity's counters (hash: w = current window's index,
--          cur = its admitted count, prev = the window before's)
-- ARGV[1]  limit: requests admitted per rolling window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000, whole milliseconds)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--
-- Windows are [w * window, (w + 1) * window) in server microseconds. With
-- e the microseconds elapsed in the current window, a request is admitted
-- when prev * (window - e) / window + cur < limit, compared in integers as
-- cur * window < limit * window - prev * (window - e); the caller keeps
-- limit * window below 2^53, so no product is ever rounded. Denied
-- requests are not counted and write nothing.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local w = math.floor(now_us / window_us)
local elapsed = now_us - w * window_us

local cur, prev = 0, 0
local state = redis.call('HMGET', key, 'w', 'cur', 'prev')
if state[1] then
  local stored = tonumber(state[1])
  if stored == w then
    cur, prev = tonumber(state[2]), tonumber(state[3])
  elseif stored == w - 1 then
    prev = tonumber(state[2])
  end
end

-- What the current window may still hold, times window_us.
local budget = limit * window_us - prev * (window_us - elapsed)
if cur * window_us < budget then
  cur = cur + 1
  redis.call('HSET', key, 'w', string.format('%d', w), 'cur', cur, 'prev', prev)
  -- The counts matter until the next window ends: from then on both are
  -- older than the window before.
  redis.call('PEXPIREAT', key, string.format('%d', (w + 2) * window_us / 1000))
  return {1, tostring(math.ceil(budget / window_us) - cur), 0, now_us}
end

-- Denied. The estimate falls below limit once the previous window's weight
-- has shrunk enough: prev * (window - e) < (limit - cur) * window, at the
-- first e >= window - ceil((limit - cur) * window / prev) + 1; failing that
-- in this window, the next one starts with prev = cur.
local next_us
if cur < limit and prev > 0 then
  local e = window_us - math.ceil((limit - cur) * window_us / prev) + 1
  if e < window_us then
    next_us = w * window_us + e
  end
end
if not next_us then
  local e = 0
  if cur > 0 then
    e = math.max(0, window_us - math.ceil(limit * window_us / cur) + 1)
  end
  next_us = (w + 1) * window_us + e
end
return {0, '0', math.ceil((next_us - now_us) / 1000), now_us}

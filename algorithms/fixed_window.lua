-- fixed_window: one counter per identity; the window opens at the identity's
-- first hit and lasts window_ms. INCR and the first expiry run in this one
-- script, so no counter ever lives without a TTL.
--
-- KEYS[1]  the identity's counter (string)
-- ARGV[1]  limit: requests admitted per window (integer >= 1)
-- ARGV[2]  window in milliseconds (integer >= 1)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--
-- The expiry is set with PEXPIREAT from the same TIME the decision used, so
-- the window is [first hit, first hit + window] in server milliseconds and a
-- replay of the decisions can tell exactly when it closed.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)

local count = redis.call('INCR', key)
-- Redis judges expiry by the time the script started, which can fall in
-- the millisecond before the TIME above: a key it kept alive may belong to
-- a window that has closed by the time this decision uses. Start the next
-- window then, so the decision depends on now_us alone (and a replay of
-- the decisions agrees with it exactly). PEXPIRETIME needs Redis 7.0.
local expire_ms = -1
if count > 1 then
  expire_ms = redis.call('PEXPIRETIME', key)
  if expire_ms < now_ms then
    redis.call('SET', key, 1)
    count = 1
  end
end
if count == 1 then
  expire_ms = now_ms + window_ms
  redis.call('PEXPIREAT', key, string.format('%d', expire_ms))
end

if count <= limit then
  return {1, tostring(limit - count), 0, now_us}
end
-- The key stays alive through its expiry millisecond, so the next window
-- opens at the first microsecond after it. The wait is counted from the
-- TIME this decision used, not from PTTL: PTTL reads a clock that may have
-- moved on since, and a hint a millisecond short sends a retry that is
-- denied.
local wait_us = (expire_ms + 1) * 1000 - now_us
return {0, '0', math.ceil(wait_us / 1000), now_us}

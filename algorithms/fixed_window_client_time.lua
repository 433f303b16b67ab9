-- fixed_window_client_time: the fixed window as limiters that take the time
-- from their caller write it: the window is the caller's clock divided by
-- the window's length (window w runs from w * window_us to (w + 1) *
-- window_us since the epoch), kept in one key with its count. A request
-- whose window is not the one kept starts it anew, with a count of zero:
-- application servers whose clocks disagree across a window boundary start
-- the window anew each time one follows the other. Only the caller's time
-- decides; TIME is read for the reply alone.
--
-- KEYS[1]  the identity's window (hash: w, n)
-- ARGV[1]  limit: requests admitted per window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000)
-- ARGV[3]  keep_ms: how long after the end of its window, on the caller's
--          clock, the key is kept, so that a caller whose clock is behind
--          still finds it (integer >= 0)
-- ARGV[4]  now_us: the caller's clock, microseconds since the epoch
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--          retry_after_ms counts, on the caller's clock, to the next window;
--          server_now_us is the TIME the script ran at.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local keep_ms = tonumber(ARGV[3])
local now_us = tonumber(ARGV[4])

local t = redis.call('TIME')
local server_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

local w = math.floor(now_us / window_us)
local n = 0
local state = redis.call('HMGET', key, 'w', 'n')
if state[1] and tonumber(state[1]) == w then
  n = tonumber(state[2])
end

local next_us = (w + 1) * window_us
if n < limit then
  n = n + 1
  redis.call('HSET', key, 'w', string.format('%d', w), 'n', n)
  redis.call('PEXPIRE', key, math.ceil((next_us - now_us) / 1000) + keep_ms)
  return {1, tostring(limit - n), 0, server_us}
end
return {0, '0', math.ceil((next_us - now_us) / 1000), server_us}

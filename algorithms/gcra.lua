-- gcra: the generic cell rate algorithm. Each identity keeps one
-- theoretical arrival time (TAT): when its next request would be due if it
-- sent exactly at the policy's rate. Requests are spaced by the emission
-- interval T = window / limit; a request is admitted when it comes no more
-- than (burst - 1) x T ahead of its due time, which lets an idle identity
-- send burst at once, then one every T.
--
-- KEYS[1]  the identity's TAT (string)
-- ARGV[1]  limit: requests per window (integer >= 1)
-- ARGV[2]  window in microseconds (integer >= 1000)
-- ARGV[3]  burst: requests an idle identity may send at once (integer >= 1)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--          remaining is the room left in requests, with its fraction (six
--          decimals), as the token bucket's: the whole state, so that a
--          reply tells what the identity's TAT is.
--
-- Time is integer microseconds from TIME. T is window_us / limit, which is
-- not always a whole microsecond, so the TAT is kept exactly as a + b/limit
-- microseconds (0 <= b < limit) and stored as "a", or "a+b" when b > 0. The
-- distance ahead of time is compared in units of 1/limit microsecond,
-- where T is window_us units and no value passes burst x window_us (the
-- caller keeps that below 2^53): nothing is ever rounded. The key expires
-- once the TAT has passed, when its state is the same as a missing key's.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local step = math.floor(window_us / limit)
local step_frac = window_us - step * limit

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])

-- An absent or past TAT means the identity is idle: due now.
local a, b = now_us, 0
local stored = redis.call('GET', key)
if stored then
  local sa, sb = string.match(stored, '^(%d+)%+?(%d*)$')
  sa, sb = tonumber(sa), tonumber(sb) or 0
  if sa > now_us or (sa == now_us and sb > 0) then
    a, b = sa, sb
  end
end

-- How far ahead of its due time this request comes, in 1/limit us.
local ahead = (a - now_us) * limit + b
local tolerance = (burst - 1) * window_us
if ahead <= tolerance then
  a, b = a + step, b + step_frac
  if b >= limit then
    a, b = a + 1, b - limit
  end
  ahead = ahead + window_us
  local tat = string.format('%d', a)
  if b > 0 then
    tat = tat .. '+' .. string.format('%d', b)
    a = a + 1
  end
  redis.call('SET', key, tat, 'PXAT', string.format('%d', math.ceil(a / 1000)))
  return {1, string.format('%.6f', (burst * window_us - ahead) / window_us), 0, now_us}
end

-- Denied: admitted again once it is no more than the tolerance ahead. The
-- remaining is what is left of a request, below one.
local wait_us = math.ceil((ahead - tolerance) / limit)
return {0, string.format('%.6f', (burst * window_us - ahead) / window_us), math.max(1, math.ceil(wait_us / 1000)), now_us}

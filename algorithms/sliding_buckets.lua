-- sliding_buckets: a rolling window kept as one counter per sub-window
-- ("bucket") instead of one entry per request. Buckets are bucket_us wide
-- and aligned to the clock; bucket i holds the requests admitted in
-- [i * bucket_us, (i + 1) * bucket_us). A request is admitted while the
-- current bucket and the n - 1 before it (n = window / bucket) hold fewer
-- than limit. Memory is at most n fields per identity, whatever the
-- traffic.
--
-- KEYS[1]  the identity's buckets (hash: bucket index -> admitted count)
-- ARGV[1]  limit: requests admitted per window (integer >= 1)
-- ARGV[2]  bucket width in microseconds (whole milliseconds, dividing the window)
-- ARGV[3]  n: buckets per window (integer >= 1)
-- Reply    {allowed 0|1, remaining (string), retry_after_ms, server_now_us}
--
-- A bucket's admissions leave the window together, when the bucket n later
-- begins: up to a bucket earlier than the exact sliding log would let each
-- one go. Denied requests are not counted and write nothing; buckets that
-- have left the window are deleted by the next admission.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local bucket_us = tonumber(ARGV[2])
local n = tonumber(ARGV[3])

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local cur = math.floor(now_us / bucket_us)
local oldest = cur - n + 1

local fields = redis.call('HGETALL', key)
local sum = 0
local live, stale = {}, {}
for i = 1, #fields, 2 do
  local idx = tonumber(fields[i])
  if idx < oldest then
    stale[#stale + 1] = fields[i]
  else
    local c = tonumber(fields[i + 1])
    sum = sum + c
    live[#live + 1] = {idx, c}
  end
end

if sum < limit then
  redis.call('HINCRBY', key, string.format('%d', cur), 1)
  -- At most n fields are stale; delete them a thousand at a time, well
  -- within the arguments one Lua call may pass.
  for i = 1, #stale, 1000 do
    redis.call('HDEL', key, unpack(stale, i, math.min(i + 999, #stale)))
  end
  -- The newest bucket leaves the window when bucket cur + n begins; the key
  -- may go from then on (it lives through that millisecond, when it holds
  -- only stale buckets: an expiry at the current millisecond would delete
  -- it at once).
  redis.call('PEXPIREAT', key, string.format('%d', (cur + n) * bucket_us / 1000))
  return {1, tostring(limit - sum - 1), 0, now_us}
end

-- Denied: room comes back when enough of the oldest buckets have left the
-- window, bucket i when bucket i + n begins.
table.sort(live, function(a, b) return a[1] < b[1] end)
local next_us = (cur + 1) * bucket_us
for _, b in ipairs(live) do
  sum = sum - b[2]
  if sum < limit then
    next_us = (b[1] + n) * bucket_us
    break
  end
end
return {0, '0', math.ceil((next_us - now_us) / 1000), now_us}

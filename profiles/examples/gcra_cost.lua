-- GCRA with a cost per request, as a Go service calls it:
--
--   rdb.EvalSha(ctx, sha, []string{key}, burst, rate, period.Seconds(), cost)
--
-- One theoretical arrival time (TAT) per identity, in seconds since 2017 so
-- that a float keeps the microseconds of Redis TIME. A request of `cost`
-- units moves the TAT cost emission intervals on.
--
-- KEYS[1]  the identity's TAT (string)
-- ARGV[1]  burst: the most units at once
-- ARGV[2]  rate: units per period
-- ARGV[3]  period, in seconds
-- ARGV[4]  cost: the units this request takes
-- Reply    {allowed (the cost when admitted, 0 when not), remaining,
--           retry_after (s, or -1), reset_after (s)}
redis.replicate_commands()

local key = KEYS[1]
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])

local emission_interval = period / rate
local increment = emission_interval * cost
local burst_offset = emission_interval * burst

local jan_1_2017 = 1483228800
local t = redis.call('TIME')
local now = (t[1] - jan_1_2017) + (t[2] / 1000000)

local tat = tonumber(redis.call('GET', key))
if not tat then
  tat = now
end
tat = math.max(tat, now)

local new_tat = tat + increment
local allow_at = new_tat - burst_offset
local diff = now - allow_at
local remaining = diff / emission_interval

if remaining < 0 then
  local reset_after = tat - now
  local retry_after = diff * -1
  return {0, 0, tostring(retry_after), tostring(reset_after)}
end

local reset_after = new_tat - now
if reset_after > 0 then
  redis.call('SET', key, tostring(new_tat), 'EX', math.ceil(reset_after))
end
return {cost, remaining, tostring(-1), tostring(reset_after)}

-- A fixed window that answers {limited, left, wait}: limited is 0 when the
-- request may go and 1 when it is over the limit.
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
local max_requests = tonumber(ARGV[1])
if count > max_requests then
  return {1, 0, redis.call('PTTL', KEYS[1])}
end
return {0, max_requests - count, -1}

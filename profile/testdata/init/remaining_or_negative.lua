-- A counter that counts down from the limit: ARGV limit, window in
-- seconds, cost. The caller admits a request while what is left is not
-- negative.
local ttl = redis.call('ttl', KEYS[1])
if ttl < 0 then
  redis.call('set', KEYS[1], ARGV[1] - ARGV[3], 'EX', ARGV[2])
  return {ARGV[1] - ARGV[3], ARGV[2]}
end
return {redis.call('incrby', KEYS[1], 0 - ARGV[3]), ttl}

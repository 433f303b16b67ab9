-- A token bucket on the server's clock. A request asks for n_tokens.
local capacity = tonumber(ARGV[1])
local refill_per_sec = tonumber(ARGV[2])
local n_tokens = tonumber(ARGV[3])

local t = redis.call('TIME')
local now = t[1] + t[2] / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or capacity
local ts = tonumber(b[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * refill_per_sec)

local allowed = 0
if tokens >= n_tokens then
  tokens = tokens - n_tokens
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', string.format('%.6f', now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / refill_per_sec) + 1)
return {allowed, tostring(tokens)}

-- Claim a seat of a table atomically.
-- KEYS: 1 seats hash (seat -> occupant), 2 tokens hash (sha256(token) -> seat), 3 live hash
-- ARGV: 1 seat count, 2 wanted seat (-1: first open), 3 occupant ('human:<name>'), 4 token digest
-- Returns {'ok', seat, started} or {'taken', seat} or {'full', -1}.
local seats, tokens, live = KEYS[1], KEYS[2], KEYS[3]
local n, wanted = tonumber(ARGV[1]), tonumber(ARGV[2])
local seat = -1
if wanted >= 0 then
  if redis.call('HEXISTS', seats, wanted) == 1 then return {'taken', wanted} end
  seat = wanted
else
  for s = 0, n - 1 do
    if redis.call('HEXISTS', seats, s) == 0 then seat = s; break end
  end
  if seat < 0 then return {'full', -1} end
end
redis.call('HSET', seats, seat, ARGV[3])
redis.call('HSET', tokens, ARGV[4], seat)
local started = 0
if redis.call('HLEN', seats) == n then
  redis.call('HSET', live, 'started', 1)
  started = 1
end
return {'ok', seat, started}

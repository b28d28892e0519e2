-- Join a matchmaking queue; when enough players wait, take them all out together.
-- KEYS: 1 queue list.  ARGV: 1 ticket id, 2 players needed.
-- Returns the matched tickets (oldest first), or an empty list and the number waiting.
local q = KEYS[1]
redis.call('RPUSH', q, ARGV[1])
local n = tonumber(ARGV[2])
local waiting = redis.call('LLEN', q)
if waiting >= n then
  return {redis.call('LPOP', q, n), waiting}
end
return {{}, waiting}

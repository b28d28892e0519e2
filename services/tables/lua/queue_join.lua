-- Join a matchmaking queue; when enough players wait, take them all out together. Tickets whose player went away
-- (their ticket key expired: no WaitForMatch for a minute) are dropped first, so nobody is seated with a ghost.
-- KEYS: 1 queue list.  ARGV: 1 ticket id, 2 players needed, 3 ticket key prefix.
-- Returns the matched tickets (oldest first), or an empty list; and the number of live tickets waiting.
local q, n, prefix = KEYS[1], tonumber(ARGV[2]), ARGV[3]
redis.call('RPUSH', q, ARGV[1])
local alive = {}
for _, t in ipairs(redis.call('LRANGE', q, 0, -1)) do
  if redis.call('EXISTS', prefix .. t) == 1 then table.insert(alive, t) end
end
redis.call('DEL', q)
local waiting = #alive
if waiting >= n then
  local taken = {}
  for i = 1, n do taken[i] = alive[i] end
  for i = n + 1, waiting do redis.call('RPUSH', q, alive[i]) end
  return {taken, waiting}
end
if waiting > 0 then redis.call('RPUSH', q, unpack(alive)) end
return {{}, waiting}

-- Join a matchmaking queue (ARGV[1] a ticket id), or only look for a match (ARGV[1] ''): take out the first n live
-- tickets whose ratings lie within a window that widens the longer the oldest of them has waited. Tickets whose
-- player went away (their key expired: no WaitForMatch for a minute) are dropped, so nobody plays with a ghost.
-- KEYS: 1 queue list.  ARGV: 1 ticket id or '', 2 players needed, 3 ticket key prefix, 4 rating window,
--       5 widening of the window per second waited.
-- Returns the matched tickets (or an empty list), and the number of live tickets waiting.
local q, n, prefix = KEYS[1], tonumber(ARGV[2]), ARGV[3]
local base, widen = tonumber(ARGV[4]), tonumber(ARGV[5])
if ARGV[1] ~= '' then redis.call('RPUSH', q, ARGV[1]) end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local alive = {}
for _, id in ipairs(redis.call('LRANGE', q, 0, -1)) do
  local f = redis.call('HMGET', prefix .. id, 'rating', 'joined')
  if f[2] then table.insert(alive, {id, tonumber(f[1] or '0') or 0, tonumber(f[2]) or now}) end
end
redis.call('DEL', q)
for _, a in ipairs(alive) do redis.call('RPUSH', q, a[1]) end
if #alive < n then return {{}, #alive} end
local sorted = {}
for i, a in ipairs(alive) do sorted[i] = a end
table.sort(sorted, function(a, b) return a[2] < b[2] end)
for i = 1, #sorted - n + 1 do
  local oldest = now
  for j = i, i + n - 1 do if sorted[j][3] < oldest then oldest = sorted[j][3] end end
  if sorted[i + n - 1][2] - sorted[i][2] <= base + widen * (now - oldest) then
    local taken = {}
    for j = i, i + n - 1 do
      table.insert(taken, sorted[j][1])
      redis.call('LREM', q, 1, sorted[j][1])
    end
    return {taken, #alive}
  end
end
return {{}, #alive}

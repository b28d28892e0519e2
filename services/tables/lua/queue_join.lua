-- Join a matchmaking queue (ARGV[1] a ticket id), or only look for a match (ARGV[1] ''): take out the first n live
-- tickets whose ratings lie within a window that widens the longer the oldest of them has waited, and claim them
-- for a handover (queue_handovers.lua; overdue handovers are handed back first). Tickets whose player went away
-- (their key expired: no WaitForMatch for a minute) are dropped, so nobody plays with a ghost.
-- KEYS: 1 queue list, 2 claims, 3 claimed tickets.  ARGV: 1 ticket id or '', 2 players needed, 3 ticket key prefix,
--       4 rating window, 5 widening of the window per second waited, 6 claim id, 7 the claim's lease (ms).
-- Returns the matched tickets (or an empty list), and the number of live tickets waiting. A call made again with
-- the same claim id (a retry) returns that claim's tickets.
local n, prefix = tonumber(ARGV[2]), ARGV[3]
local base, widen = tonumber(ARGV[4]), tonumber(ARGV[5])
local _, again = claim_of(ARGV[6])
if again then return {again, redis.call('LLEN', queue)} end
hand_back_overdue(prefix)
if ARGV[1] ~= '' then  -- once, if the call is made again
  redis.call('LREM', queue, 0, ARGV[1])
  redis.call('RPUSH', queue, ARGV[1])
end
local now = now_ms() / 1000
local alive = {}
for _, id in ipairs(redis.call('LRANGE', queue, 0, -1)) do
  local f = redis.call('HMGET', prefix .. id, 'rating', 'joined')
  if f[2] then table.insert(alive, {id, tonumber(f[1] or '0') or 0, tonumber(f[2]) or now}) end
end
redis.call('DEL', queue)
for _, a in ipairs(alive) do redis.call('RPUSH', queue, a[1]) end
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
      redis.call('LREM', queue, 1, sorted[j][1])
    end
    claim(ARGV[6], taken, ARGV[1], prefix, tonumber(ARGV[7]))
    return {taken, #alive}
  end
end
return {{}, #alive}

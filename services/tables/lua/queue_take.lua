-- Take a waiting ticket and up to ARGV[2] - 1 other live tickets out of a queue (to fill a table with bots), and
-- claim them for a handover (queue_handovers.lua; overdue handovers are handed back first).
-- KEYS: 1 queue list, 2 claims, 3 claimed tickets.
-- ARGV: 1 ticket id, 2 seats, 3 ticket key prefix, 4 claim id, 5 the claim's lease (ms).
-- Returns the tickets taken, or {} if the ticket is not waiting. A call made again with the same claim id (a retry)
-- returns that claim's tickets.
local prefix = ARGV[3]
local _, again = claim_of(ARGV[4])
if again then return again end
hand_back_overdue(prefix)
if redis.call('LREM', queue, 1, ARGV[1]) == 0 then return {} end
local taken = {ARGV[1]}
local want = tonumber(ARGV[2]) - 1
while want > 0 do
  local t = redis.call('LPOP', queue)
  if not t then break end
  if redis.call('EXISTS', prefix .. t) == 1 then
    table.insert(taken, t)
    want = want - 1
  end
end
claim(ARGV[4], taken, '', prefix, tonumber(ARGV[5]))
return taken

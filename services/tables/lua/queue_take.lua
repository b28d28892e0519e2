-- Take a waiting ticket and up to ARGV[2] - 1 other live tickets out of a queue (to fill a table with bots).
-- KEYS: 1 queue list.  ARGV: 1 ticket id, 2 seats, 3 ticket key prefix.
-- Returns the tickets taken, or {} if the ticket is not waiting.
local q, prefix = KEYS[1], ARGV[3]
if redis.call('LREM', q, 1, ARGV[1]) == 0 then return {} end
local taken = {ARGV[1]}
local want = tonumber(ARGV[2]) - 1
while want > 0 do
  local t = redis.call('LPOP', q)
  if not t then break end
  if redis.call('EXISTS', prefix .. t) == 1 then
    table.insert(taken, t)
    want = want - 1
  end
end
return taken

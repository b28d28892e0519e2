-- Take a waiting ticket and up to ARGV[2] - 1 others out of a queue (to fill a table with bots).
-- KEYS: 1 queue list.  ARGV: 1 ticket id, 2 seats.  Returns the tickets taken, or {} if the ticket is not waiting.
local q = KEYS[1]
if redis.call('LREM', q, 1, ARGV[1]) == 0 then return {} end
local taken = {ARGV[1]}
local others = redis.call('LPOP', q, tonumber(ARGV[2]) - 1)
if others then for _, t in ipairs(others) do table.insert(taken, t) end end
return taken

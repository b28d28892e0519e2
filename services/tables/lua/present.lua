-- A seat's player is here (a call with its token): if the seat was away, its clock runs in full again, the pending
-- decision's too: its clock or timer item is given ARGV[2] ms from now, and its deadline in the live hash with it.
-- KEYS: 1 live hash, 2 this table's armed follow-ups, 3 the outbox.  ARGV: 1 seat, 2 the clock (ms).
-- The deadlines field holds 13-byte entries as commit.lua writes them: 10, 11, 8, seat, 17, then a double.
local live, seat = KEYS[1], ARGV[1]
if tonumber(redis.call('HGET', live, 'absent:' .. seat) or '0') == 0 then return 0 end
redis.call('HSET', live, 'absent:' .. seat, 0)
local now = redis.call('TIME')
local due = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[2])
for _, item in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local kind, owner = string.match(item, '^(%a+)|.-|%d+|(%d+)$')
  if (kind == 'clock' or kind == 'timer') and owner == seat then redis.call('ZADD', KEYS[3], 'XX', due, item) end
end
local old, new = redis.call('HGET', live, 'deadlines') or '', ''
for i = 1, #old, 13 do
  local entry = string.sub(old, i, i + 12)
  if string.byte(entry, 4) == tonumber(seat) then entry = string.sub(entry, 1, 5) .. struct.pack('<d', due / 1000) end
  new = new .. entry
end
redis.call('HSET', live, 'deadlines', new)
return 1

-- Give a taken seat one more live seat token, retiring its oldest past the most a seat keeps (seats.py,
-- MAX_SEAT_TOKENS), in one step. The tokens hash maps each live token's digest to its seat (what commit.lua checks
-- on every move, so a retired token moves nowhere, on any gateway); the issued hash keeps each seat's live digests,
-- oldest first ("<seat>" -> "d1,d2,..."), and its newest retired ones ("retired:<seat>", the last ARGV[4]), so their
-- holders are told why they are refused. A digest already live becomes the newest (the Events stream's token, the
-- same on every reconnect, adds nothing). A seat's digest in the tokens hash but not in its list (stored by an
-- earlier release, which kept every token) counts as older than any listed.
-- Every token retired counts in the live hash's 'retired' field, which each commit publishes (commit.lua): a Watch
-- under a retired token ends at the next commit, on any gateway.
-- KEYS: 1 tokens hash, 2 issued hash, 3 seats hash, 4 live hash.
-- ARGV: 1 seat, 2 token digest, 3 most live, 4 retired kept.
-- Returns 1, or 0 when the seat is not taken (nothing changes).
local tokens, issued = KEYS[1], KEYS[2]
local seat, digest, most, kept = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
if redis.call('HEXISTS', KEYS[3], seat) == 0 then return 0 end

local function split(text)
  local items = {}
  for item in string.gmatch(text or '', '[^,]+') do table.insert(items, item) end
  return items
end

local live = {}
local all = redis.call('HGETALL', tokens)
for i = 1, #all, 2 do
  if all[i + 1] == seat then live[all[i]] = true end
end
local listed, known = split(redis.call('HGET', issued, seat)), {}
for _, d in ipairs(listed) do known[d] = true end
local order = {}
for d in pairs(live) do
  if not known[d] and d ~= digest then table.insert(order, d) end
end
table.sort(order)  -- unlisted: older than any listed, in no particular order
for _, d in ipairs(listed) do
  if live[d] and d ~= digest then table.insert(order, d) end
end
table.insert(order, digest)
redis.call('HSET', tokens, digest, seat)

local retired = {}
for _, d in ipairs(split(redis.call('HGET', issued, 'retired:' .. seat))) do
  if d ~= digest then table.insert(retired, d) end
end
local cut = #order - most
for i = 1, math.max(cut, 0) do
  redis.call('HDEL', tokens, order[i])
  table.insert(retired, order[i])
end
if cut > 0 then redis.call('HINCRBY', KEYS[4], 'retired', cut) end
local keep = {}
for i = math.max(cut, 0) + 1, #order do table.insert(keep, order[i]) end
local newest = {}
for i = math.max(#retired - kept, 0) + 1, #retired do table.insert(newest, retired[i]) end
redis.call('HSET', issued, seat, table.concat(keep, ','))
if #newest > 0 then redis.call('HSET', issued, 'retired:' .. seat, table.concat(newest, ',')) end
return 1

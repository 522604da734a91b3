import type { SharedStore } from '../../redis/shared-store.js';
import { MAX_CONTRIBUTIONS_PER_PROJECT, type Contribution, type SharedLedger } from './shared-ledger.js';
import type { Aggregate, SharedModel } from './shared-model.js';

/**
 * Changed association ids kept for the replicas to catch up by, and read by one catch-up at most
 * (Lua's unpack limit is ~8,000); a replica further behind reloads the whole model.
 */
const MAX_CHANGES = 4000;
/**
 * A project that has says is marked in the associations hash itself (field `#says:<its says key>`):
 * an eviction (allkeys-lru) takes the mark with the counts, or leaves both, so a says key evicted
 * alone is told from a project that never said anything, and DELETE does not answer 204 while the
 * counts it added stay. '#' is outside base64url: no association id starts with it.
 */
const SAYS_MARK = '#says:';

// Shared by the scripts: an association's counts ("pos,neg,posAt,negAt" in KEYS[1], pos + neg in the
// KEYS[2] sorted set for eviction) moved by one project's say; ids that changed are collected.
const COUNT = `
local changed = {}
local function count(id, sign, at, delta)
  local value = redis.call('HGET', KEYS[1], id)
  if not value and delta < 0 then return end
  local c = {0, 0, 0, 0}
  if value then
    local i = 1
    for part in string.gmatch(value, '[^,]+') do c[i] = tonumber(part) or 0; i = i + 1 end
  end
  local side = sign == '+' and 1 or 2
  c[side] = c[side] + delta
  c[side + 2] = c[side + 2] + delta * at
  if c[side] < 0 then c[side] = 0; c[side + 2] = 0 end
  if c[1] <= 0 and c[2] <= 0 then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  else
    redis.call('HSET', KEYS[1], id, string.format('%d,%d,%d,%d', c[1], c[2], c[3], c[4]))
    redis.call('ZADD', KEYS[2], c[1] + c[2], id)
  end
  changed[#changed + 1] = id
end
local function withdraw(member)
  local at = redis.call('ZSCORE', KEYS[3], member)
  if not at then return end
  redis.call('ZREM', KEYS[3], member)
  count(string.sub(member, 2), string.sub(member, 1, 1), tonumber(at), -1)
end
local function publish()
  if #changed == 0 then return tonumber(redis.call('GET', KEYS[5]) or '0') end
  for i = 1, #changed do redis.call('RPUSH', KEYS[4], changed[i]) end
  redis.call('LTRIM', KEYS[4], -${MAX_CHANGES}, -1)
  return redis.call('INCRBY', KEYS[5], #changed)
end
`;

// KEYS: associations, evidence, the project's says, changes, seq. ARGV: at (minutes), max says,
// max associations, then members (sign and id). A project's say replaces its earlier one (either sign).
const CONTRIBUTE_SCRIPT = `${COUNT}
local at = tonumber(ARGV[1])
for i = 4, #ARGV do
  local id = string.sub(ARGV[i], 2)
  withdraw('+' .. id)
  withdraw('-' .. id)
  redis.call('ZADD', KEYS[3], at, ARGV[i])
  count(id, string.sub(ARGV[i], 1, 1), at, 1)
end
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[2])
if extra > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, extra - 1)) do withdraw(member) end
end
redis.call('HSET', KEYS[1], '${SAYS_MARK}' .. KEYS[3], '1')
local max = tonumber(ARGV[3])
local over = redis.call('ZCARD', KEYS[2]) - max
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, over + math.floor(max / 10) - 1)) do
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    changed[#changed + 1] = id
  end
end
return publish()`;

// KEYS as above. Withdraws every say of the project; answers -1, withdrawing nothing, when the counts
// hold its mark but its says are gone (evicted under allkeys-lru): what it said cannot be found.
const WITHDRAW_SCRIPT = `${COUNT}
local mark = '${SAYS_MARK}' .. KEYS[3]
if redis.call('HEXISTS', KEYS[1], mark) == 1 and redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do withdraw(member) end
redis.call('DEL', KEYS[3])
redis.call('HDEL', KEYS[1], mark)
return publish()`;

// KEYS: associations, changes, seq. ARGV: known seq. Answers [seq, mode, ...]: mode 0 nothing new,
// 1 the ids changed since and their values, 2 every association (another history, or too far behind).
const READ_SCRIPT = `
local seq = tonumber(redis.call('GET', KEYS[3]) or '0')
local known = tonumber(ARGV[1])
if seq == known then return {tostring(seq), '0'} end
local behind = seq - known
if behind > 0 and behind <= ${MAX_CHANGES} and behind <= redis.call('LLEN', KEYS[2]) then
  local ids = redis.call('LRANGE', KEYS[2], -behind, -1)
  return {tostring(seq), '1', ids, redis.call('HMGET', KEYS[1], unpack(ids))}
end
return {tostring(seq), '2', redis.call('HGETALL', KEYS[1])}`;

/**
 * The ledger in Redis (REDIS_URL), so every replica counts the same projects and a DELETE on one
 * withdraws on all. Keys, all durable (no TTL; bounded by the counts above and the model's bound):
 * `learning-shared:#deployment:associations` (hash), `…:evidence` (sorted set), `…:changes` (list),
 * `…:seq`, and per project `learning-shared:<project>:says` (sorted set, at most
 * MAX_CONTRIBUTIONS_PER_PROJECT members). Each replica mirrors the published model and catches up
 * before a search with one script call that returns only the associations changed since.
 */
export class RedisLedger implements SharedLedger {
  #seq = 0;
  #reading: Promise<SharedModel> | undefined;

  constructor(
    private readonly published: SharedModel,
    private readonly shared: SharedStore,
    private readonly maxAssociations: number,
  ) {}

  async contribute(projectId: string, contributions: readonly Contribution[], now: number): Promise<boolean> {
    if (contributions.length === 0) return true;
    const members = contributions.map(({ id, sign }) => `${sign > 0 ? '+' : '-'}${id}`);
    const counted = await this.shared.command('learning-shared-contribute', (redis) =>
      redis.eval(
        CONTRIBUTE_SCRIPT,
        5,
        ...this.#keys(projectId),
        Math.floor(now / 60_000),
        MAX_CONTRIBUTIONS_PER_PROJECT,
        this.maxAssociations,
        ...members,
      ),
    );
    return counted !== undefined;
  }

  /** False when Redis could not be reached, or when the project's says were evicted (nothing withdrawn). */
  async withdraw(projectId: string): Promise<boolean> {
    const done = await this.shared.command('learning-shared-withdraw', (redis) =>
      redis.eval(WITHDRAW_SCRIPT, 5, ...this.#keys(projectId)),
    );
    return done !== undefined && done !== -1;
  }

  /** One read at a time: searches at once wait for the same catch-up. */
  model(): Promise<SharedModel> {
    this.#reading ??= this.#catchUp().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #catchUp(): Promise<SharedModel> {
    const [associations, , , changes, seq] = this.#keys('');
    const answer = (await this.shared.command('learning-shared-read', (redis) =>
      redis.eval(READ_SCRIPT, 3, associations, changes, seq, this.#seq),
    )) as [string, string, unknown?, unknown?] | undefined;
    // Redis away: the model as last read.
    if (!Array.isArray(answer)) return this.published;
    const [next, mode, first, second] = answer;
    if (mode === '1' && Array.isArray(first) && Array.isArray(second)) {
      first.forEach((id, i) => {
        if (typeof id === 'string') this.published.set(id, parseAggregate(second[i]));
      });
    } else if (mode === '2' && Array.isArray(first)) {
      this.published.clear();
      for (let i = 0; i + 1 < first.length; i += 2) {
        const id = first[i];
        if (typeof id === 'string' && !id.startsWith(SAYS_MARK)) this.published.set(id, parseAggregate(first[i + 1]));
      }
    }
    this.#seq = Number(next) || 0;
    return this.published;
  }

  #keys(projectId: string): [string, string, string, string, string] {
    const deployment = this.shared.keyPrefixOf('learning-shared') + '#deployment:';
    return [
      `${deployment}associations`,
      `${deployment}evidence`,
      this.shared.key('learning-shared', projectId, 'says'),
      `${deployment}changes`,
      `${deployment}seq`,
    ];
  }
}

/** A value of the associations hash, checked (Redis is shared: a value read back is not trusted blindly). */
function parseAggregate(value: unknown): Aggregate | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = value.split(',').map(Number);
  if (parts.length !== 4 || !parts.every((part) => Number.isFinite(part) && part >= 0)) return undefined;
  const [pos, neg, posAt, negAt] = parts as [number, number, number, number];
  return { pos, neg, posAt, negAt };
}

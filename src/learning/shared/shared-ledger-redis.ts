import { randomUUID } from 'node:crypto';
import { outsideRequests } from '../../redis/local-state.js';
import type { SharedStore } from '../../redis/shared-store.js';
import {
  MAX_CONTRIBUTIONS_PER_PROJECT,
  type Contribution,
  type SharedLedger,
  type WithdrawResult,
} from './shared-ledger.js';
import type { Aggregate, SharedModel } from './shared-model.js';
import { ADMISSION_KEYS, PROJECT_RECORDS, type Admission } from './shared-admission.js';

/**
 * Changed association ids kept for the replicas to catch up by, and read by one catch-up at most
 * (Lua's unpack limit is ~8,000); a replica further behind reloads the model in pages (RELOAD_PAGE).
 */
const MAX_CHANGES = 4000;
/**
 * Associations one step of a reload reads (HSCAN's COUNT). A whole reload in one call took longer than
 * a state wait from tens of thousands of associations on a busy host and was retried, whole, forever
 * (issue 48); a page of this size keeps each step far under the wait (figures: docs/operations.md#redis).
 */
const RELOAD_PAGE = 1000;
/**
 * A project that has says is marked in the associations hash itself (field `#says:<its says key>`):
 * an eviction (allkeys-lru) takes the mark with the counts, or leaves both, so a says key evicted
 * alone is told from a project that never said anything, and DELETE does not answer 204 while the
 * counts it added stay. '#' is outside base64url: no association id starts with it.
 */
const SAYS_MARK = '#says:';

// Shared by the scripts: an association's counts ("pos,neg,posAt,negAt" in KEYS[1], pos + neg in the
// KEYS[2] sorted set for eviction) moved by one project's say; ids that changed are collected. With
// the admission rules (shared-admission.ts) a value also holds its threshold and when its successes
// may be used ("…,threshold,activeAt" in ms, 0: under the threshold): an association that newly meets
// its threshold is given the later of now + the hold and the deployment's next turn (NEXT_TURN), which
// then moves on by one turn, so no more than the rate become usable per hour, the first to meet it first.
const COUNT = `
${ADMISSION_KEYS}
local changed, seen = {}, {}
-- Each id once a call: a say replaced moves its association twice (withdrawn, counted), one change.
local function changes(id)
  if seen[id] then return end
  seen[id] = true
  changed[#changed + 1] = id
end
local thresholds = {}
local admission = nil
local function schedule(id, c, before)
  local threshold = c[5] or thresholds[id]
  if not threshold then return end
  c[5] = threshold
  if c[1] < threshold then c[6] = 0; return end
  if c[6] == nil and before >= threshold then c[6] = admission.now; return end
  if (c[6] or 0) > 0 then return end
  local turn = math.max(tonumber(redis.call('GET', NEXT_TURN) or '0'), admission.now + admission.hold)
  c[6] = turn
  redis.call('SET', NEXT_TURN, string.format('%.0f', turn + admission.turn))
end
local function count(id, sign, at, delta)
  local value = redis.call('HGET', KEYS[1], id)
  if not value and delta < 0 then return end
  local c = {0, 0, 0, 0}
  if value then
    local i = 1
    for part in string.gmatch(value, '[^,]+') do c[i] = tonumber(part) or 0; i = i + 1 end
  end
  local before = c[1]
  local side = sign == '+' and 1 or 2
  c[side] = c[side] + delta
  c[side + 2] = c[side + 2] + delta * at
  if c[side] < 0 then c[side] = 0; c[side + 2] = 0 end
  if c[1] <= 0 and c[2] <= 0 then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  else
    if admission then schedule(id, c, before) elseif c[5] and c[1] < c[5] then c[6] = 0 end
    local kept = string.format('%d,%d,%d,%d', c[1], c[2], c[3], c[4])
    if c[5] then kept = kept .. string.format(',%d,%.0f', c[5], c[6] or 0) end
    redis.call('HSET', KEYS[1], id, kept)
    redis.call('ZADD', KEYS[2], c[1] + c[2], id)
  end
  changes(id)
end
-- A project saying again what it said: only the time of its say moves (the count never dips, so a
-- threshold met stays met and keeps its turn).
local function retime(says, member, at)
  local before = redis.call('ZSCORE', says, member)
  if not before then return false end
  redis.call('ZADD', says, at, member)
  local id = string.sub(member, 2)
  local value = redis.call('HGET', KEYS[1], id)
  if not value then return true end
  local c = {}
  for part in string.gmatch(value, '[^,]+') do c[#c + 1] = part end
  local side = string.sub(member, 1, 1) == '+' and 3 or 4
  c[side] = string.format('%d', tonumber(c[side]) + at - tonumber(before))
  redis.call('HSET', KEYS[1], id, table.concat(c, ','))
  changes(id)
  return true
end
local withdrawals = 0
local function withdraw(says, member)
  local at = redis.call('ZSCORE', says, member)
  if not at then return end
  withdrawals = withdrawals + 1
  redis.call('ZREM', says, member)
  count(string.sub(member, 2), string.sub(member, 1, 1), tonumber(at), -1)
end
local function publish()
  if #changed == 0 then return tonumber(redis.call('GET', KEYS[5]) or '0') end
  for i = 1, #changed do redis.call('RPUSH', KEYS[4], changed[i]) end
  redis.call('LTRIM', KEYS[4], -${MAX_CHANGES}, -1)
  return redis.call('INCRBY', KEYS[5], #changed)
end
${PROJECT_RECORDS}
`;

// KEYS: associations, evidence, the project's says, changes, seq, withdrawn (WITHDRAW_SCRIPT's),
// projects' histories, projects by standing, the next turn, says held. ARGV: at (minutes), max says,
// max associations, now (ms), the admission rules ("minDays,minAgeMs,holdMs,turnMs" or ''), the
// deployment's say budget (or ''),
// then members (sign and id, after "threshold:" with the rules). A project's say replaces its earlier
// one (either sign). Without an established history, the report only adds to it (nothing is counted).
const CONTRIBUTE_SCRIPT = `${COUNT}
-- A project forgotten for the bound with says withdraws them as its DELETE would: it leaves a token
-- too, so a replica far behind does not serve them while it reloads (its later DELETE withdraws nothing).
local function bound(budget)
  local before = withdrawals
  keepWithin(budget)
  if withdrawals > before then
    redis.call('SET', KEYS[6], 'bound:' .. (redis.call('GET', KEYS[5]) or '0') .. ':' .. ARGV[4])
  end
end
local at = tonumber(ARGV[1])
local now = tonumber(ARGV[4])
local rules = {}
for part in string.gmatch(ARGV[5], '[^,]+') do rules[#rules + 1] = tonumber(part) end
local budget = tonumber(ARGV[6])
if #rules == 4 then admission = {now = now, hold = rules[3], turn = rules[4]} end
if admission or budget then
  local established = record(KEYS[3], now, rules[1] or 1, rules[2] or 0)
  if not established then
    if budget then bound(budget) end
    return publish()
  end
end
local held = redis.call('ZCARD', KEYS[3])
for i = 7, #ARGV do
  local member = ARGV[i]
  local threshold, said = string.match(member, '^(%d+):(.+)$')
  if said then member = said end
  local id = string.sub(member, 2)
  if threshold then thresholds[id] = tonumber(threshold) end
  if not retime(KEYS[3], member, at) then
    withdraw(KEYS[3], (string.sub(member, 1, 1) == '+' and '-' or '+') .. id)
    redis.call('ZADD', KEYS[3], at, member)
    count(id, string.sub(member, 1, 1), at, 1)
  end
end
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[2])
if extra > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, extra - 1)) do withdraw(KEYS[3], member) end
end
redis.call('HSET', KEYS[1], '${SAYS_MARK}' .. KEYS[3], '1')
if admission or budget then redis.call('INCRBY', SAYS_HELD, redis.call('ZCARD', KEYS[3]) - held) end
if budget then bound(budget) end
local max = tonumber(ARGV[3])
local over = redis.call('ZCARD', KEYS[2]) - max
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, over + math.floor(max / 10) - 1)) do
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    changes(id)
  end
end
return publish()`;

// KEYS as CONTRIBUTE_SCRIPT's. ARGV: a new withdrawal token. Withdraws every say of the project and forgets its
// history and, when that changed anything, leaves the token in `withdrawn`: a replica whose model was
// read before it does not use that model until it has caught up (READ_SCRIPT). Answers -1, withdrawing
// nothing, when the counts hold its mark but its says are gone (evicted under allkeys-lru): what it
// said cannot be found.
const WITHDRAW_SCRIPT = `${COUNT}
local mark = '${SAYS_MARK}' .. KEYS[3]
if redis.call('HEXISTS', KEYS[1], mark) == 1 and redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
forget(KEYS[3])
if #changed > 0 then redis.call('SET', KEYS[6], ARGV[1]) end
return publish()`;

// KEYS: associations, changes, seq, withdrawn. ARGV: known seq. Answers [seq, withdrawn, mode, ...]: mode 0
// nothing new, 1 the ids changed since and their values, 2 too far behind or another history (the
// replica reloads: RELOAD_SCRIPT). `withdrawn` is the token the last DELETE left ('0': none, or evicted).
const READ_SCRIPT = `
local seq = tonumber(redis.call('GET', KEYS[3]) or '0')
local withdrawn = redis.call('GET', KEYS[4]) or '0'
local known = tonumber(ARGV[1])
if seq == known then return {tostring(seq), withdrawn, '0'} end
local behind = seq - known
if behind > 0 and behind <= ${MAX_CHANGES} and behind <= redis.call('LLEN', KEYS[2]) then
  local ids = redis.call('LRANGE', KEYS[2], -behind, -1)
  return {tostring(seq), withdrawn, '1', ids, redis.call('HMGET', KEYS[1], unpack(ids))}
end
return {tostring(seq), withdrawn, '2'}`;

// One step of a reload. KEYS as READ_SCRIPT's. ARGV: HSCAN cursor, page size, the seq the reloaded
// model stands at (-1 before its first page). Answers [seq, withdrawn, next cursor, page fields and
// values, ids changed since the last step, their values], all as of one moment, so a step leaves the
// model current to `seq` for every association it has read; or [seq, withdrawn, 'lost'] when more
// changed since the last step than the change list keeps (the reload starts again).
const RELOAD_SCRIPT = `
local seq = tonumber(redis.call('GET', KEYS[3]) or '0')
local withdrawn = redis.call('GET', KEYS[4]) or '0'
local staged = tonumber(ARGV[3])
local ids, values = {}, {}
if staged >= 0 and seq ~= staged then
  local behind = seq - staged
  if behind < 0 or behind > ${MAX_CHANGES} or behind > redis.call('LLEN', KEYS[2]) then
    return {tostring(seq), withdrawn, 'lost'}
  end
  ids = redis.call('LRANGE', KEYS[2], -behind, -1)
  values = redis.call('HMGET', KEYS[1], unpack(ids))
end
local page = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
return {tostring(seq), withdrawn, page[1], page[2], ids, values}`;

/** A reload under way: the model being read (served only once whole), where it stands. */
interface Reload {
  model: SharedModel;
  cursor: string;
  /** The seq the pages read so far are current to (-1: none read yet). */
  seq: number;
}

/**
 * The ledger in Redis (REDIS_URL), so every replica counts the same projects and a DELETE on one
 * withdraws on all. Keys, all durable (no TTL; bounded by the counts above and the model's bound):
 * `learning-shared:#deployment:associations` (hash), `…:evidence` (sorted set), `…:changes` (list),
 * `…:seq`, `…:withdrawn` (the last DELETE's token), with the admission rules `…:history`, `…:standing`,
 * `…:next-turn` and `…:says-held` (shared-admission.ts), and per project `learning-shared:<project>:says`
 * (sorted set, at most MAX_CONTRIBUTIONS_PER_PROJECT members).
 *
 * Each replica mirrors the published model. Before a search it catches up with one script call that
 * returns only the associations changed since; a replica further behind (a restart, a rollout, a flood)
 * reloads the model in the background, a page a step, each step also applying what changed since the
 * last, while its searches keep the model it has. A search uses that model only while no DELETE has
 * happened since it was read (the `withdrawn` token it read with is still Redis's); otherwise, or when
 * Redis does not answer, the search goes without shared learning: a DELETE answered 204 is honoured by
 * every replica's next search (docs/privacy.md#opting-out-and-forgetting).
 */
export class RedisLedger implements SharedLedger {
  #published: SharedModel;
  #seq = 0;
  /** The withdrawal token the published model is current to. */
  #withdrawn = '0';
  #reading: Promise<SharedModel | undefined> | undefined;
  #reload: Reload | undefined;
  #reloading: Promise<void> | undefined;
  #withheld = false;

  constructor(
    published: SharedModel,
    private readonly shared: SharedStore,
    private readonly maxAssociations: number,
    private readonly rules: { admission?: Admission | undefined; maxSays?: number | undefined } = {},
  ) {
    this.#published = published;
  }

  async contribute(projectId: string, contributions: readonly Contribution[], now: number): Promise<boolean> {
    if (contributions.length === 0) return true;
    const { admission } = this.rules;
    const members = contributions.map(({ id, sign }) => {
      const member = `${sign > 0 ? '+' : '-'}${id}`;
      return admission ? `${admission.threshold(id)}:${member}` : member;
    });
    const counted = await this.shared.command('learning-shared-contribute', (redis) =>
      redis.eval(
        CONTRIBUTE_SCRIPT,
        10,
        ...this.#keys(projectId),
        Math.floor(now / 60_000),
        MAX_CONTRIBUTIONS_PER_PROJECT,
        this.maxAssociations,
        Math.floor(now),
        admission
          ? [admission.minDays, admission.minAgeMs, admission.holdMs, Math.ceil(3_600_000 / admission.newPerHour)].join(
              ',',
            )
          : '',
        this.rules.maxSays === undefined ? '' : String(this.rules.maxSays),
        ...members,
      ),
    );
    return counted !== undefined;
  }

  /**
   * 'done', or why not: Redis could not be reached, or the project's says were evicted by Redis
   * (allkeys-lru) while its mark stayed, so what it said cannot be found (nothing withdrawn).
   */
  async withdraw(projectId: string): Promise<WithdrawResult> {
    const done = await this.shared.command('learning-shared-withdraw', (redis) =>
      redis.eval(WITHDRAW_SCRIPT, 10, ...this.#keys(projectId), randomUUID()),
    );
    return done === undefined ? 'unreachable' : done === -1 ? 'evicted' : 'done';
  }

  /**
   * The published model, current to Redis, or undefined when that cannot be confirmed (Redis did not
   * answer, or a DELETE happened since the model was read and the replica has not caught up yet).
   * One read at a time: searches at once wait for the same catch-up.
   */
  model(): Promise<SharedModel | undefined> {
    this.#reading ??= this.#catchUp().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  get held(): SharedModel {
    return this.#published;
  }

  /** Whether the last read left the model out: a DELETE since it was read, a reload under way. */
  get withheld(): boolean {
    return this.#withheld;
  }

  /** A reload under way, for tests and measurements: resolves once it is done (or has paused). */
  get reloading(): Promise<void> | undefined {
    return this.#reloading;
  }

  async #catchUp(): Promise<SharedModel | undefined> {
    const [associations, , , changes, seq, withdrawn] = this.#keys('');
    const answer = (await this.shared.command('learning-shared-read', (redis) =>
      redis.eval(READ_SCRIPT, 4, associations, changes, seq, withdrawn, this.#seq),
    )) as [string, string, string, unknown?, unknown?] | undefined;
    this.#withheld = false;
    // Redis away: whether anything was withdrawn since cannot be told.
    if (!Array.isArray(answer)) return undefined;
    const [next, token, mode, ids, values] = answer;
    if (mode === '1' && Array.isArray(ids) && Array.isArray(values)) {
      ids.forEach((id, i) => {
        if (typeof id === 'string') this.#published.set(id, parseAggregate(values[i]));
      });
      this.#seq = Number(next) || 0;
      this.#withdrawn = token;
      return this.#published;
    }
    // Nothing new, though a token other than ours (its key evicted, or reset): read the model again.
    if (mode !== '0' || token !== this.#withdrawn) this.#startReload();
    this.#withheld = token !== this.#withdrawn;
    return this.#withheld ? undefined : this.#published;
  }

  /** Starts the background reload unless one runs; outside the search that asked (its deadline is not the reload's). */
  #startReload(): void {
    this.#reloading ??= outsideRequests(() => this.#reloadSteps().finally(() => (this.#reloading = undefined)));
  }

  /**
   * Reads the whole model a page a step into a new one, served once whole. A step Redis does not answer
   * pauses the reload where it stands: the next search resumes it.
   */
  async #reloadSteps(): Promise<void> {
    const [associations, , , changes, seq, withdrawn] = this.#keys('');
    for (;;) {
      const reload = (this.#reload ??= { model: this.#published.emptyLike(), cursor: '0', seq: -1 });
      const answer = (await this.shared.command('learning-shared-reload', (redis) =>
        redis.eval(RELOAD_SCRIPT, 4, associations, changes, seq, withdrawn, reload.cursor, RELOAD_PAGE, reload.seq),
      )) as [string, string, string, unknown?, unknown?, unknown?] | undefined;
      if (!Array.isArray(answer)) return;
      const [next, token, cursor, page, ids, values] = answer;
      if (cursor === 'lost') {
        this.#reload = undefined;
        continue;
      }
      if (Array.isArray(page)) {
        for (let i = 0; i + 1 < page.length; i += 2) {
          const id = page[i];
          if (typeof id === 'string' && !id.startsWith(SAYS_MARK)) reload.model.set(id, parseAggregate(page[i + 1]));
        }
      }
      if (Array.isArray(ids) && Array.isArray(values)) {
        ids.forEach((id, i) => {
          if (typeof id === 'string' && !id.startsWith(SAYS_MARK)) reload.model.set(id, parseAggregate(values[i]));
        });
      }
      reload.seq = Number(next) || 0;
      reload.cursor = cursor;
      if (cursor !== '0') continue;
      this.#published = reload.model;
      this.#seq = reload.seq;
      this.#withdrawn = token;
      this.#reload = undefined;
      return;
    }
  }

  #keys(projectId: string): [string, string, string, string, string, string, string, string, string, string] {
    const deployment = this.shared.keyPrefixOf('learning-shared') + '#deployment:';
    return [
      `${deployment}associations`,
      `${deployment}evidence`,
      this.shared.key('learning-shared', projectId, 'says'),
      `${deployment}changes`,
      `${deployment}seq`,
      `${deployment}withdrawn`,
      `${deployment}history`,
      `${deployment}standing`,
      `${deployment}next-turn`,
      `${deployment}says-held`,
    ];
  }
}

/** A value of the associations hash, checked (Redis is shared: a value read back is not trusted blindly). */
function parseAggregate(value: unknown): Aggregate | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = value.split(',').map(Number);
  // Four numbers, or six with the admission rules' threshold and activeAt (shared-admission.ts).
  if (![4, 6].includes(parts.length) || !parts.every((part) => Number.isFinite(part) && part >= 0)) return undefined;
  const [pos, neg, posAt, negAt, , activeAt] = parts as [number, number, number, number, number?, number?];
  return { pos, neg, posAt, negAt, ...(activeAt === undefined ? {} : { activeAt }) };
}

import type { SharedAdmission } from '../../config/types.js';
import type { Aggregate } from './shared-model.js';

/**
 * Who and what may add to the shared model, beyond k (docs/privacy.md, "Poisoning by projects"): a
 * tenant can make projects at will, so five fresh projects flooding reports put a delete first for
 * another project's benign requests (issue 48). Here:
 * - a project's reports count only once it has a history: reports on `minDays` distinct days (UTC),
 *   its first `minAgeMs` ago; until then they teach only itself (and add to its history);
 * - an association is used only once its threshold has held `holdMs` without a break, and no more
 *   than `newPerHour` associations become usable per hour deployment-wide, those that met their
 *   threshold first going first (each is given a turn: the later of now + the hold and the next free
 *   turn, which then moves on by an hour / newPerHour).
 * The ledgers keep both (shared-ledger.ts in process, shared-ledger-redis.ts in Redis with this file's
 * Lua); the model uses an association's successes from its turn on (shared-model.ts, activeAt).
 */
export interface Admission extends SharedAdmission {
  /** The association's keyed threshold in projects (shared-model.ts): the ledger tells when it is met. */
  threshold(id: string): number;
}

/** A project's history: its first report (ms), the distinct days it reported on, the last of them. */
export interface History {
  first: number;
  days: number;
  lastDay: number;
}

const DAY_MS = 86_400_000;

/** Adds a report at `now` to a project's history (a new one when absent): one more day on a new day. */
export function recordReport(history: History | undefined, now: number): History {
  const day = Math.floor(now / DAY_MS);
  if (history === undefined) return { first: now, days: 1, lastDay: day };
  return {
    first: Math.min(history.first, now),
    days: history.days + (day > history.lastDay ? 1 : 0),
    lastDay: Math.max(history.lastDay, day),
  };
}

/** Whether a project's reports count: enough days with reports, and old enough. */
export function established(history: History, now: number, rules: Pick<SharedAdmission, 'minDays' | 'minAgeMs'>) {
  return history.days >= rules.minDays && now - history.first >= rules.minAgeMs;
}

/**
 * A project's standing, lowest first out when the deployment's says are over their bound: fewest days
 * with reports, then the least recent (a flood of new projects goes before any established one).
 */
export const standing = (history: History) => history.days * 100_000 + history.lastDay;

/** The deployment's turns for associations that newly meet their threshold, in process. */
export class Turns {
  #next = 0;

  constructor(private readonly rules: Admission) {}

  /**
   * Sets `aggregate.activeAt` after a change of its counts at `now`: 0 under its threshold; a turn
   * when it newly meets it; unchanged while it holds.
   */
  schedule(id: string, aggregate: Aggregate, now: number): void {
    if (aggregate.pos < this.rules.threshold(id)) {
      aggregate.activeAt = 0;
      return;
    }
    if ((aggregate.activeAt ?? 0) > 0) return;
    const turn = Math.max(this.#next, now + this.rules.holdMs);
    aggregate.activeAt = turn;
    this.#next = turn + Math.ceil(3_600_000 / this.rules.newPerHour);
  }
}

/**
 * The admission's Redis keys, by name, for every script of shared-ledger-redis.ts that uses them (its
 * first lines): the histories, a hash by says key of "first,days,lastDay"; the projects by standing, a
 * sorted set; the next turn; the says held deployment-wide. Their places among KEYS are the ledger's
 * #keys() order, named here once.
 */
export const ADMISSION_KEYS = `local HISTORY, STANDING, NEXT_TURN, SAYS_HELD = KEYS[7], KEYS[8], KEYS[9], KEYS[10]`;

/**
 * The same rules in Redis, for shared-ledger-redis.ts's scripts (after its COUNT functions, with
 * ADMISSION_KEYS). Each project is known by its says key, as its
 * says already are.
 * - record(says, now, minDays, minAge): adds a report to the project's history; whether it counts. A
 *   project's says count towards the budget from its first history on (says kept from before these
 *   rules too).
 * - forget(says): withdraws the project's says, and drops its history and standing.
 * - keepWithin(budget): while the says held plus two per project with a history exceed the budget
 *   (LEARNING_SHARED_MAX_SAYS), forgets the project of lowest standing.
 */
export const PROJECT_RECORDS = `
local function record(says, now, minDays, minAge)
  local first, days, last = now, 0, -1
  local value = redis.call('HGET', HISTORY, says)
  if value then
    local parts = {}
    for part in string.gmatch(value, '[^,]+') do parts[#parts + 1] = tonumber(part) end
    first, days, last = parts[1] or now, parts[2] or 0, parts[3] or -1
  else
    -- Says kept from before the project had a history (before these rules) are counted from now on.
    redis.call('INCRBY', SAYS_HELD, redis.call('ZCARD', says))
  end
  local day = math.floor(now / ${DAY_MS})
  if day > last then days = days + 1; last = day end
  if now < first then first = now end
  redis.call('HSET', HISTORY, says, string.format('%.0f,%d,%d', first, days, last))
  redis.call('ZADD', STANDING, days * 100000 + last, says)
  return days >= minDays and now - first >= minAge
end
local function forget(says)
  local members = redis.call('ZRANGE', says, 0, -1)
  for _, member in ipairs(members) do withdraw(says, member) end
  -- Its says are in the count held only once it has a history (record).
  if redis.call('HDEL', HISTORY, says) == 1 then
    redis.call('SET', SAYS_HELD, math.max(0, tonumber(redis.call('GET', SAYS_HELD) or '0') - #members))
  end
  redis.call('DEL', says)
  redis.call('HDEL', KEYS[1], '#says:' .. says)
  redis.call('ZREM', STANDING, says)
end
local function keepWithin(budget)
  for _ = 1, 1000 do
    local used = tonumber(redis.call('GET', SAYS_HELD) or '0') + 2 * redis.call('ZCARD', STANDING)
    if used <= budget then return end
    local lowest = redis.call('ZRANGE', STANDING, 0, 0)
    if #lowest == 0 then return end
    forget(lowest[1])
  end
end
`;

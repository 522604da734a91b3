import { randomUUID } from 'node:crypto';
import type { MemoryBudget, ProjectCache } from '../../memory/exports.js';
import type { SharedStore } from '../../redis/shared-store.js';
import { ProjectModel, type ReportedUse, type ProjectModelOptions } from './project-model.js';

interface ReportLogOptions {
  memory: MemoryBudget;
  /** Redis (REDIS_URL): the log is kept there, so every replica learns from every report and a restart keeps it. */
  shared?: SharedStore | undefined;
  /** Reports kept per project, newest (FEEDBACK_MAX_EVENTS); older ones are dropped. */
  maxEvents: number;
  model: ProjectModelOptions;
}

/**
 * Reports older than this many half-lives weigh under 0.4 %: they are dropped when the model is
 * rebuilt, and from the head of a project's log in Redis at its next report.
 */
const RETENTION_HALF_LIVES = 8;

/** A project's learning in this process: the model, and where it stands in the log. */
interface ProjectState {
  model: ProjectModel;
  /** The log itself without Redis (newest last); with Redis it lives there. */
  events: ReportedUse[];
  /** Events folded into the model since it was built: past 2 × maxEvents it is built again from the log (bounded). */
  folded: number;
  /** With Redis: the log's count of events ever appended and its epoch (renewed by DELETE), as last read. */
  seq: number;
  epoch: string;
  bytes: number;
}

// KEYS: log, seq, epoch. ARGV: known seq, known epoch. Answers [seq, epoch, mode, events]: mode 0 nothing
// new, 1 the events appended since (in order), 2 the whole log (another epoch, or too far behind).
const READ_SCRIPT = `
local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
local epoch = redis.call('GET', KEYS[3]) or '0'
local known = tonumber(ARGV[1])
if epoch == ARGV[2] and seq == known then return {tostring(seq), epoch, '0'} end
local length = redis.call('LLEN', KEYS[1])
if epoch == ARGV[2] and seq > known and seq - known <= length then
  return {tostring(seq), epoch, '1', redis.call('LRANGE', KEYS[1], -(seq - known), -1)}
end
return {tostring(seq), epoch, '2', redis.call('LRANGE', KEYS[1], 0, -1)}`;

// The log, its count and its epoch are durable keys (shared-store.ts): written without a TTL, so a Redis
// that evicts only keys with one (volatile-lru, as shipped) never evicts them for another project's lists.
// PERSIST takes the TTL off a log written when it had one.

// KEYS: log, seq, epoch. ARGV: max events, oldest time kept (ms), events... Drops reports older than the
// retention from the head, appends, trims to max events and counts, at once.
const APPEND_SCRIPT = `
local oldest = tonumber(ARGV[2])
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head then break end
  local ok, event = pcall(cjson.decode, head)
  if ok and type(event) == 'table' and type(event.a) == 'number' and event.a >= oldest then break end
  redis.call('LPOP', KEYS[1])
end
for i = 3, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[1]), -1)
local seq = redis.call('INCRBY', KEYS[2], #ARGV - 2)
for i = 1, 3 do redis.call('PERSIST', KEYS[i]) end
return seq`;

// KEYS: log, seq, epoch. ARGV: a new epoch. Forgets the log; the new epoch tells every replica to drop
// its model. A random token, not a count: an epoch key evicted (allkeys-lru) and counted up again could
// reach the very epoch a replica holds, and that replica would keep what was forgotten.
const FORGET_SCRIPT = `
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SET', KEYS[3], ARGV[1])
return 1`;

/** Bytes an event takes in process (UTF-16 strings and object overhead): for the budget's estimate. */
// A keyed-hash term is its array slot and a slice that keeps the whole HMAC string alive: measured
// against the heap (docs/performance.md#learnings-bytes-in-the-memory-budget).
const eventBytes = (event: ReportedUse) =>
  160 + 2 * event.toolKey.length + event.terms.reduce((sum, term) => sum + 80 + 2 * term.length, 0);

/**
 * Each project's report log and the model folded from it. Without Redis the log is kept in process,
 * inside the memory budget (an evicted project has forgotten what it taught). With Redis the log is a
 * Redis list per project (`<prefix>feedback:<project>:log`, at most maxEvents values, none older than
 * RETENTION_HALF_LIVES after the project's latest report, no TTL) and each replica keeps a model of it, brought up to date
 * before a search by one script call that returns only the events it has not seen.
 */
export class ReportLog {
  readonly #states: ProjectCache<ProjectState>;
  /** One read of Redis per project at a time: two searches at once must not fold the same events twice. */
  readonly #reading = new Map<string, Promise<ProjectState | undefined>>();
  readonly #retentionMs: number;

  constructor(private readonly options: ReportLogOptions) {
    this.#states = options.memory.cache<ProjectState>('feedback', { sizeOf: (state) => state.bytes });
    this.#retentionMs = RETENTION_HALF_LIVES * options.model.halfLifeMs;
  }

  /**
   * Adds a project's reports (already weighed, with their terms); resolves whether they are stored.
   * With Redis, stored means written to the project's log there: when Redis cannot take them (down,
   * timed out, refusing writes) nothing is learned here either and false tells the route to answer 503,
   * so the client sends them again rather than a replica keeping them where a restart would lose them.
   * A write that timed out may still land in Redis: the resent copy is then one more report of the same
   * search, which the model counts once (project-model.ts).
   */
  async append(projectId: string, events: readonly ReportedUse[]): Promise<boolean> {
    if (events.length === 0) return true;
    const { shared, maxEvents } = this.options;
    if (shared) {
      const values = events.map((event) =>
        JSON.stringify({ a: event.at, k: event.toolKey, w: event.weight, t: event.terms, s: event.search }),
      );
      const written = await shared.command('feedback-append', (redis) =>
        redis.eval(
          APPEND_SCRIPT,
          3,
          ...this.#keys(shared, projectId),
          maxEvents,
          Date.now() - Math.round(this.#retentionMs),
          ...values,
        ),
      );
      // Written: the next search reads it back from the log (on this replica too).
      return written !== undefined;
    }
    const state = this.#states.get(projectId, 'state') ?? this.#emptyState();
    for (const event of events) {
      state.model.add(event);
      state.events.push(event);
    }
    state.folded += events.length;
    if (state.events.length > maxEvents) state.events.splice(0, state.events.length - maxEvents);
    if (state.folded > 2 * maxEvents) this.#rebuild(state, state.events);
    this.#store(projectId, state);
    return true;
  }

  /** The project's model, up to date with the log; undefined when it has taught nothing. */
  async model(projectId: string): Promise<ProjectModel | undefined> {
    const state = this.options.shared ? await this.#readShared(projectId) : this.#states.get(projectId, 'state');
    return state !== undefined && state.model.size > 0 ? state.model : undefined;
  }

  /** Forgets everything the project taught, here and in Redis. */
  async forget(projectId: string): Promise<boolean> {
    this.#states.delete(projectId, 'state');
    const { shared } = this.options;
    if (!shared) return true;
    const done = await shared.command('feedback-forget', (redis) =>
      redis.eval(FORGET_SCRIPT, 3, ...this.#keys(shared, projectId), randomUUID()),
    );
    return done !== undefined;
  }

  #readShared(projectId: string): Promise<ProjectState | undefined> {
    const pending = this.#reading.get(projectId);
    if (pending) return pending;
    const reading = this.#sync(projectId).finally(() => this.#reading.delete(projectId));
    this.#reading.set(projectId, reading);
    return reading;
  }

  async #sync(projectId: string): Promise<ProjectState | undefined> {
    const shared = this.options.shared!;
    const known = this.#states.get(projectId, 'state');
    const answer = (await shared.command('feedback-read', (redis) =>
      redis.eval(READ_SCRIPT, 3, ...this.#keys(shared, projectId), known?.seq ?? 0, known?.epoch ?? '0'),
    )) as [string, string, string, string[]?] | undefined;
    // Redis away: whether the project deleted its learning since cannot be told, so none is used
    // (a DELETE answered 204 holds on every replica: docs/privacy.md#opting-out-and-forgetting).
    if (!Array.isArray(answer)) return undefined;
    const [seq, epoch, mode, values = []] = answer;
    if (mode === '0' && known) return known;
    const events = values.map(parseEvent).filter((event): event is ReportedUse => event !== undefined);
    const state = mode === '1' && known ? known : this.#emptyState();
    if (mode === '1' && known && state.folded + events.length <= 2 * this.options.maxEvents) {
      for (const event of events) state.model.add(event);
      state.folded += events.length;
    } else if (mode === '1' && known) {
      // Too much folded since the model was built: build it from the whole log (bounded) instead.
      return this.#rebuildFromShared(projectId);
    } else {
      this.#rebuild(state, events);
    }
    state.seq = Number(seq);
    state.epoch = epoch;
    if (state.model.size === 0 && state.seq === 0) {
      this.#states.delete(projectId, 'state');
      return undefined;
    }
    this.#store(projectId, state);
    return state;
  }

  async #rebuildFromShared(projectId: string): Promise<ProjectState | undefined> {
    this.#states.delete(projectId, 'state');
    return this.#sync(projectId);
  }

  #rebuild(state: ProjectState, events: readonly ReportedUse[]): void {
    const since = Date.now() - this.#retentionMs;
    state.model = new ProjectModel(this.options.model);
    for (const event of events) if (event.at >= since) state.model.add(event);
    state.folded = events.length;
    if (!this.options.shared) state.events = events.filter((event) => event.at >= since);
  }

  #emptyState(): ProjectState {
    return { model: new ProjectModel(this.options.model), events: [], folded: 0, seq: 0, epoch: '0', bytes: 0 };
  }

  #store(projectId: string, state: ProjectState): void {
    state.bytes = state.model.bytes + state.events.reduce((sum, event) => sum + eventBytes(event), 0);
    this.#states.set(projectId, 'state', state);
  }

  #keys(shared: SharedStore, projectId: string): [string, string, string] {
    return [
      shared.key('feedback', projectId, 'log'),
      shared.key('feedback', projectId, 'seq'),
      shared.key('feedback', projectId, 'epoch'),
    ];
  }
}

/** A value of the Redis log, checked (Redis is shared, and a value read back is not trusted blindly). */
function parseEvent(value: unknown): ReportedUse | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const { a, k, w, t, s } = JSON.parse(value) as { a?: unknown; k?: unknown; w?: unknown; t?: unknown; s?: unknown };
    if (typeof a !== 'number' || typeof k !== 'string' || typeof w !== 'number' || !Array.isArray(t)) return undefined;
    if (!t.every((term) => typeof term === 'string')) return undefined;
    return { at: a, toolKey: k, weight: w, terms: t as string[], ...(typeof s === 'string' ? { search: s } : {}) };
  } catch {
    return undefined;
  }
}

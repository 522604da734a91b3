import { FNV_OFFSET, fnvStep, tokenize, type RankedTool, type ToolInfo } from '@catalog-search/core';
import type { MemoryBudget } from '../../memory/exports.js';
import type { SharedStore } from '../../redis/shared-store.js';
import type { SharedAdmission } from '../../config/types.js';
import {
  LOCAL_BYTES_PER_AGGREGATE,
  LOCAL_BYTES_PER_CONTRIBUTION,
  LOCAL_BYTES_PER_HISTORY,
  LocalLedger,
  MAX_SAYS_PER_REPORT,
  MAX_LOCAL_HISTORIES,
  type Contribution,
  type SharedLedger,
  type WithdrawResult,
} from './shared-ledger.js';
import { RedisLedger } from './shared-ledger-redis.js';
import { commonStepBoosts } from './common-steps.js';
import { sharedMayNotRaise } from './shared-guards.js';
import {
  associationId,
  MIRROR_BYTES_PER_ASSOCIATION,
  SHARED_BOOST_SHARE,
  SharedModel,
  TOOL_USE_TERM,
} from './shared-model.js';
import type { TermKeys } from '../term-keys.js';
import type { LearnedBoost } from '../boost.js';
import type { RequestTerms } from '../learning-step.js';

interface SharedLearningOptions {
  minProjects: number;
  thresholdSpread: number;
  maxAssociations: number;
  halfLifeMs: number;
  maxBoost: number;
  /** The history rule, the hold and the rate (shared-admission.ts); absent: k alone. */
  admission?: SharedAdmission | undefined;
  /** Projects' says kept deployment-wide in Redis (LEARNING_SHARED_MAX_SAYS). */
  maxSays?: number | undefined;
}

/** A report's say for the shared model: the request's hashed terms, the tool's content id, the outcome's sign. */
export interface SharedReport {
  terms: readonly string[];
  toolId: string;
  weight: number;
}

/**
 * A list's tools by content id: the toolKeys of each id, and each tool with its id; and the words of
 * its tools (ListWords), made when a search first needs them.
 */
interface ListIds {
  keysOf: Map<string, string[]>;
  tools: Array<{ tool: ToolInfo; id: string }>;
  words?: ListWords;
  /** Whether shared learning may not raise this toolKey (shared-guards.ts), read once per tool. */
  barred(toolKey: string): boolean;
}

/** In process the ledger holds at most twice as many says as associations (most associations have a few). */
const SAYS_PER_ASSOCIATION = 2;

/**
 * Shared learning across projects (LEARNING_SHARED, docs/privacy.md): every project's reports also
 * count, once per project, towards (term, tool) associations keyed by hashes; an association is used
 * for anyone only once more than LEARNING_SHARED_MIN_PROJECTS distinct projects said it (at its keyed
 * threshold: shared-model.ts), and it is used for all projects' searches after their own learning,
 * more weakly. With the admission rules (shared-admission.ts) only projects with a history count,
 * and an association is used once it has held an hour, at the deployment's rate.
 */
export class SharedLearning {
  readonly #ledger: SharedLedger;
  /** Each list's tools by content id (hashed once per list: the list's array is held by the tool-set store). */
  readonly #ids = new WeakMap<readonly ToolInfo[], ListIds>();
  readonly #maxBoost: number;

  constructor(
    options: SharedLearningOptions,
    private readonly keys: TermKeys,
    deps: { memory: MemoryBudget; shared?: SharedStore | undefined },
  ) {
    // Held to a quarter of the cache budget, like the tokenizer's memos (services.ts).
    const room = deps.memory.maxBytes / 4;
    // With Redis a replica holds a second copy while it reloads the model (shared-ledger-redis.ts).
    const perAssociation = deps.shared
      ? 2 * MIRROR_BYTES_PER_ASSOCIATION
      : MIRROR_BYTES_PER_ASSOCIATION + LOCAL_BYTES_PER_AGGREGATE + SAYS_PER_ASSOCIATION * LOCAL_BYTES_PER_CONTRIBUTION;
    // In process, the admission rules' histories take at most an eighth of that room.
    const histories =
      !deps.shared && options.admission
        ? Math.max(1, Math.min(MAX_LOCAL_HISTORIES, Math.floor(room / 8 / LOCAL_BYTES_PER_HISTORY)))
        : 0;
    const roomLeft = room - histories * LOCAL_BYTES_PER_HISTORY;
    const maxAssociations = Math.max(1, Math.min(options.maxAssociations, Math.floor(roomLeft / perAssociation)));
    deps.memory.reserve('learning-shared', maxAssociations * perAssociation + histories * LOCAL_BYTES_PER_HISTORY);
    this.#maxBoost = options.maxBoost * SHARED_BOOST_SHARE;
    const model = new SharedModel({
      minProjects: options.minProjects,
      thresholdSpread: options.thresholdSpread,
      draw: (id) => keys.draw('threshold', id),
      halfLifeMs: options.halfLifeMs,
      maxBoost: this.#maxBoost,
    });
    // The ledger tells when an association meets its threshold, drawn as the model draws it.
    const admission = options.admission && { ...options.admission, threshold: (id: string) => model.threshold(id) };
    this.#ledger = deps.shared
      ? new RedisLedger(model, deps.shared, options.maxAssociations, { admission, maxSays: options.maxSays })
      : new LocalLedger(model, {
          maxAssociations,
          maxContributions: SAYS_PER_ASSOCIATION * maxAssociations,
          admission,
          maxHistories: histories,
        });
  }

  /**
   * Counts a project's reports, one say per (term, tool): the latest outcome, however often it reported.
   * Each report also says the project used the tool at all (TOOL_USE_TERM: common-steps.ts).
   *
   * Resolves the says counted, at most MAX_SAYS_PER_REPORT, the newest (each is a change every replica
   * reads, and may withdraw one older say of the project); undefined when Redis could not take them
   * (shared-ledger.ts).
   */
  async contribute(projectId: string, reports: readonly SharedReport[], now: number): Promise<number | undefined> {
    const says = new Map<string, Contribution>();
    for (const { terms, toolId, weight } of reports) {
      if (weight === 0) continue;
      for (const term of [...terms, TOOL_USE_TERM]) {
        const id = associationId(term, toolId);
        says.delete(id);
        says.set(id, { id, sign: weight > 0 ? 1 : -1 });
      }
    }
    const kept = [...says.values()].slice(-MAX_SAYS_PER_REPORT);
    if (kept.length === 0) return 0;
    return (await this.#ledger.contribute(projectId, kept, now)) ? kept.length : undefined;
  }

  /** Associations this replica holds that met their threshold and wait for the hold or the rate (metrics). */
  waiting(now: number): { associations: number; longestMs: number } {
    return this.#ledger.held.waitingAt(now);
  }

  withdraw(projectId: string): Promise<WithdrawResult> {
    return this.#ledger.withdraw(projectId);
  }

  /**
   * The published model, up to date (one Redis call with REDIS_URL); none while it holds nothing, or
   * while it cannot be confirmed current (shared-ledger-redis.ts: it may hold what a DELETE withdrew),
   * `withheld` when that is why: this replica reads the model again after a DELETE.
   */
  async model(): Promise<{ model?: SharedModel; withheld?: true }> {
    const model = await this.#ledger.model();
    if (model === undefined) return this.#ledger.withheld ? { withheld: true } : {};
    return model.size > 0 ? { model } : {};
  }

  /**
   * The shared boosts for a request's terms, by toolKey of this list (empty: nothing shared matched):
   * each tool's term associations, or its common step's boost (`ranked`'s best matches on its server)
   * where that is stronger.
   */
  boosts(
    model: SharedModel,
    request: RequestTerms,
    tools: readonly ToolInfo[],
    now: number,
    ranked: readonly RankedTool[],
  ): Map<string, LearnedBoost> {
    const byKey = new Map<string, LearnedBoost>();
    // Associations whose turn (the hold, the rate) has come are used from now on.
    model.advance(now);
    const ids = this.#idsOf(tools);
    let ofList: ReadonlySet<string> | undefined;
    const boosts = model.boosts(request.hashes, now, (term) => {
      ofList ??= listHashes(request, (ids.words ??= new ListWords(tools)));
      return ofList.has(term);
    });
    for (const [toolId, boost] of boosts) for (const toolKey of ids.keysOf.get(toolId) ?? []) byKey.set(toolKey, boost);
    if (model.knowsUse) {
      const used = ids.tools.map(({ tool, id }) => ({ tool, projects: model.usedBy(id, now) }));
      for (const [toolKey, step] of commonStepBoosts(used, ranked, this.#maxBoost)) {
        if (step.boost > (byKey.get(toolKey)?.boost ?? 0)) byKey.set(toolKey, step);
      }
    }
    // Never a tool that deletes or withdraws something, whatever k projects said (shared-guards.ts).
    for (const toolKey of byKey.keys()) if (ids.barred(toolKey)) byKey.delete(toolKey);
    return byKey;
  }

  /** The content id of a tool, as the shared model knows it. */
  toolId(tool: ToolInfo): string {
    return this.keys.tool(tool);
  }

  #idsOf(tools: readonly ToolInfo[]): ListIds {
    let ids = this.#ids.get(tools);
    if (ids) return ids;
    const byKey = new Map(tools.map((tool) => [tool.toolKey, tool]));
    const barred = new Map<string, boolean>();
    ids = {
      keysOf: new Map(),
      tools: [],
      barred: (toolKey) => {
        let bar = barred.get(toolKey);
        if (bar === undefined) barred.set(toolKey, (bar = sharedMayNotRaise(byKey.get(toolKey)!)));
        return bar;
      },
    };
    for (const tool of tools) {
      const id = this.keys.tool(tool);
      ids.tools.push({ tool, id });
      const keys = ids.keysOf.get(id);
      if (keys) keys.push(tool.toolKey);
      else ids.keysOf.set(id, [tool.toolKey]);
    }
    this.#ids.set(tools, ids);
    return ids;
  }
}

/**
 * The index terms of a list's tools (their names, titles, servers and descriptions): what tells a
 * request's word that names something the list does from a name or a value (shared-model.ts's
 * UNTAUGHT_LIST_WORD_WEIGHT). Made once per list while the tool-set store holds it, as its ids are.
 * Held as sorted 32-bit hashes, 4 bytes a distinct word, about what the shortest words take in the
 * list's own text: a Set of the words took about 50 bytes each, so a list of short unique words would
 * have held ten times its size in memory. A collision only weighs an untaught word of this project's
 * own request as a word of its list.
 */
export class ListWords {
  readonly #hashes: Uint32Array;

  constructor(tools: readonly ToolInfo[]) {
    const hashes = new Set<number>();
    for (const tool of tools) {
      const text = `${tool.toolName} ${tool.title ?? ''} ${tool.serverName} ${tool.description ?? ''}`;
      for (const word of tokenize(text)) hashes.add(hashOf(word));
    }
    this.#hashes = Uint32Array.from(hashes).sort();
  }

  get size(): number {
    return this.#hashes.length;
  }

  has(word: string): boolean {
    const hash = hashOf(word);
    let low = 0;
    let high = this.#hashes.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.#hashes[middle]!;
      if (at === hash) return true;
      if (at < hash) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }
}

function hashOf(word: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < word.length; i += 1) hash = fnvStep(hash, word.charCodeAt(i));
  return hash >>> 0;
}

/** The hashes of the request's words that are words of the list. */
export function listHashes(request: RequestTerms, words: ListWords): ReadonlySet<string> {
  const hashes = new Set<string>();
  request.words.forEach((word, i) => {
    if (words.has(word)) hashes.add(request.hashes[i]!);
  });
  return hashes;
}

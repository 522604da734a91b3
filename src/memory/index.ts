export { boundedKey, MAX_PLAIN_KEY_CHARS } from './bounded-key.js';
export {
  ENTRY_OVERHEAD_BYTES,
  MemoryBudget,
  stringBytes,
  type CacheOptions,
  type HeldKey,
  type MemoryBudgetOptions,
  type MemoryUsage,
  type ProjectCache,
} from './memory-budget.js';

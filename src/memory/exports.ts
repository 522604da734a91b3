export { boundedKey } from './bounded-key.js';
export {
  ENTRY_OVERHEAD_BYTES,
  MemoryBudget,
  stringBytes,
  type HeldKey,
  type MemoryUsage,
  type ProjectCache,
} from './memory-budget.js';

import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Warns when the Redis evicts among all keys (`allkeys-*`): then one project's lists can push out
 * another project's learning, which has no TTL precisely so that a `volatile-*` policy never evicts it
 * (shared-store.ts). A warning, not a refusal: the service works with any policy, and a managed Redis
 * may hide its settings (INFO then fails or omits the field, and nothing is said).
 */
export async function warnIfDurableStateEvictable(redis: Redis, log: FastifyBaseLogger): Promise<void> {
  let policy: string | undefined;
  try {
    policy = /^maxmemory_policy:(\S+)/m.exec(await redis.info('memory'))?.[1];
  } catch {
    return;
  }
  if (policy?.startsWith('allkeys-')) {
    log.warn(
      { maxmemoryPolicy: policy },
      "Redis evicts any key (maxmemory-policy allkeys-*): what projects taught (feedback) can be evicted by other projects' caches; use volatile-lru (docs/operations.md#redis)",
    );
  }
}

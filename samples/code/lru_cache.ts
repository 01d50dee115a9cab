/** Statistics a cache reports for monitoring. */
export interface CacheStats {
  hits: number;
  misses: number;
  evictions: number;
}

/**
 * A least-recently-used cache with an optional time to live per entry.
 * Map iteration order is insertion order, so re-inserting a key marks it as most recent.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private stats: CacheStats = { hits: 0, misses: 0, evictions: 0 };

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number = Infinity,
    private readonly now: () => number = Date.now,
  ) {
    if (maxEntries < 1) throw new RangeError("maxEntries must be at least 1");
  }

  /** Returns the value and marks it as most recently used; expired entries count as misses. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.expiresAt <= this.now()) {
      if (entry !== undefined) this.entries.delete(key);
      this.stats.misses++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.stats.hits++;
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
      this.stats.evictions++;
    }
  }

  snapshot(): CacheStats {
    return { ...this.stats };
  }
}

export function memoize<A, R>(fn: (arg: A) => R, maxEntries = 256): (arg: A) => R {
  const cache = new LruCache<A, R>(maxEntries);
  return (arg: A) => {
    const hit = cache.get(arg);
    if (hit !== undefined) return hit;
    const value = fn(arg);
    cache.set(arg, value);
    return value;
  };
}

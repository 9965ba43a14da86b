/**
 * One in-flight run per key: callers that arrive while a run for their key is pending
 * share its promise (a token refresh must not race itself: with rotating refresh
 * tokens the loser would get `invalid_grant`). The entry is gone once settled.
 */
export class SingleFlight<K, V> {
  private readonly running = new Map<K, Promise<V>>();

  run(key: K, task: () => Promise<V>): Promise<V> {
    const pending = this.running.get(key);
    if (pending) return pending;
    const promise = (async () => {
      try {
        return await task();
      } finally {
        this.running.delete(key);
      }
    })();
    this.running.set(key, promise);
    return promise;
  }

  get size(): number {
    return this.running.size;
  }
}

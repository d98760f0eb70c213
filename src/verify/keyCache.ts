// Endpoints sign with a handful of secrets, so what a scheme derives from a secret is
// worth keeping; the bound only stops a stream of distinct secrets from growing it forever.
const MAX_ENTRIES = 1000;

/** Memoizes `derive` by secret, forgetting everything once MAX_ENTRIES secrets are held. */
export function cachedBySecret<T>(derive: (secret: string) => T): (secret: string) => T {
  const cache = new Map<string, T>();
  return (secret) => {
    const cached = cache.get(secret);
    if (cached !== undefined || cache.has(secret)) return cached as T;
    if (cache.size >= MAX_ENTRIES) cache.clear();
    const derived = derive(secret);
    cache.set(secret, derived);
    return derived;
  };
}

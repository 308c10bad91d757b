/**
 * One value per Node process, however many copies of the calling module are loaded.
 *
 * `npm run dev` runs /v1 from the route files as tsx loads them and everything else through
 * Next's dev bundle, so lib/ exists twice in that process (production loads it once: the /v1
 * route modules are Next's compiled ones, lib/server/v1-route-modules.ts). State that must be shared —
 * the database pool, the token cache a revocation clears — lives here, under a global symbol,
 * instead of in a module variable. It also survives Next's dev server re-evaluating modules.
 */
export function processSingleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as Record<symbol, T | undefined>
  const key = Symbol.for(`newsroom.${name}`)
  return (store[key] ??= create())
}

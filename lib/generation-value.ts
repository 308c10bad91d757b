/**
 * A newsroom's generation as the response cache keys on it, from the value read at its Redis key
 * ('' when absent). Shared by the article and the event generations, so their keys read alike.
 */
export function generationFromRedis(value: string): string {
  return `redis:${value || '0'}`
}

import { vi } from 'vitest'

/**
 * Sets (or, with undefined, removes) environment variables for the current test file;
 * `vi.unstubAllEnvs()` in afterAll puts the originals back.
 */
export function stubEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value)
}

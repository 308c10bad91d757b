import type { Metafile } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { buildServer, forbiddenServerInputs } from '../../scripts/build-server.ts'

// `npm start` runs dist/start.mjs beside Next's build. If that bundle took in a module with
// application state (the database client, the token cache, Redis, metrics), the process would
// hold two of each again, and a revocation in the portal would not reach the /v1 token cache.

describe('the production server bundle', () => {
  it('holds only start-up code, the HTTP plumbing and pure helpers', async () => {
    const { server } = await buildServer({ write: false })
    expect(forbiddenServerInputs(server)).toEqual([])
    expect(Object.keys(server.inputs)).toContain('lib/server/v1-route-modules.ts')
  })

  it('is refused when it would load application state', () => {
    const inputs = { 'scripts/start.ts': {}, 'lib/db/client.ts': {}, 'lib/auth/authenticate-token.ts': {}, 'node_modules/next/dist/server/next.js': {} }
    expect(forbiddenServerInputs({ inputs, outputs: {} } as unknown as Metafile)).toEqual(['lib/db/client.ts', 'lib/auth/authenticate-token.ts'])
  })
})

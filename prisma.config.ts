import path from 'node:path'
import { defineConfig } from 'prisma/config'
import { embeddedDatabaseUrl } from './lib/db/embedded-config'

// The CLI would download a native schema engine; ours runs Prisma's WebAssembly build
// of the same engine instead, so every command works offline (tools/prisma-schema-engine/).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve(
  import.meta.dirname,
  'tools/prisma-schema-engine/schema-engine.mjs',
)

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: {
    path: 'prisma/migrations',
    seed: 'tsx prisma/seed.ts',
  },
  datasource: {
    // Without DATABASE_URL, commands target the embedded PGlite server (npm run db:embedded).
    url: process.env.DATABASE_URL ?? embeddedDatabaseUrl(),
    shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL,
  },
})

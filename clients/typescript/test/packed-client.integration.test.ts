import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../../../lib/api/openapi/openapi-document.ts'
import { startApiServer } from '../../../tests/support/api-server.ts'
import { createTestTenant } from '../../../tests/support/fixtures.ts'
import { setupBackstopMs } from '../../../tests/support/time-limits.ts'

// The client as an integrator gets it: `npm run client:pack` builds it to JavaScript with type
// declarations and packs it; an empty project installs the tarball (its two dependencies from
// the npm cache this repository's install filled, else the registry), type-checks an example
// with the declarations alone, and runs it with node against a live /v1.

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../../..')
const tsc = path.join(root, 'node_modules/.bin/tsc')
let project: string
let server: Awaited<ReturnType<typeof startApiServer>>
let env: NodeJS.ProcessEnv

const example = `import { createNewsroomClient, NewsroomApiError } from '@newsroom/client'

const api = createNewsroomClient({ baseUrl: process.env.NEWSROOM_URL!, token: process.env.NEWSROOM_TOKEN! })
const created = await api.articles.create({ headline: 'Packed and shipped', status: 'in-review' })
await api.articles.transition(created.article_id, { to_state: 'approved' })
const published = await api.articles.transition(created.article_id, { to_state: 'published' })
const updated = await api.articles.update(published.article_id, { tags: ['packed'] })
let listed = 0
for await (const article of api.articles.list({ status: 'published', limit: 1 })) if (article.tags.includes('packed')) listed++
const departments = await api.departments.list()
try {
  await api.articles.create({ headline: 'x'.repeat(1000) })
} catch (error) {
  if (!(error instanceof NewsroomApiError)) throw error
  console.log(error.message)
}
console.log(JSON.stringify({ status: updated.status, listed, departments: departments.map((department) => department.name) }))
`

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'packed-client-'))
  const [started, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  server = started
  env = { ...process.env, NEWSROOM_URL: server.url, NEWSROOM_TOKEN: await newsroom.token(['articles:read', 'articles:write']) }
  const { stdout } = await run(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'clients/typescript/pack.ts'), project], { cwd: root })
  const tarball = stdout.trim().split('\n').at(-1)!
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'an-integration', private: true, type: 'module' }))
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project })
  const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, outDir: 'out', types: ['node'], typeRoots: [path.join(root, 'node_modules/@types')] }
  writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['example.ts'] }))
  writeFileSync(path.join(project, 'example.ts'), example)
}, setupBackstopMs)

afterAll(async () => {
  await server?.close()
  if (project) rmSync(project, { recursive: true, force: true })
})

describe('the packed client in an empty project', () => {
  it('is the example docs/integrators.md shows', () => {
    expect(readFileSync(path.join(root, 'docs/integrators.md'), 'utf8')).toContain(example)
  })

  it("is versioned as the OpenAPI document and installs with JavaScript and type declarations", () => {
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/@newsroom/client/package.json'), 'utf8'))
    expect(installed.version).toBe(buildOpenApiDocument().info.version)
    expect(readFileSync(path.join(project, 'node_modules/@newsroom/client/dist/index.d.ts'), 'utf8')).toContain('createNewsroomClient')
  })

  it('type-checks an example with its declarations, and refuses a misspelt field', { timeout: setupBackstopMs }, async () => {
    await run(tsc, ['-p', project], { cwd: project })
    writeFileSync(path.join(project, 'wrong.ts'), "import { createNewsroomClient } from '@newsroom/client'\nawait createNewsroomClient({ baseUrl: '', token: '' }).articles.create({ headlin: 'typo' })\n")
    const options = JSON.parse(readFileSync(path.join(project, 'tsconfig.json'), 'utf8')).compilerOptions
    writeFileSync(path.join(project, 'tsconfig.wrong.json'), JSON.stringify({ compilerOptions: { ...options, noEmit: true }, files: ['wrong.ts'] }))
    const refused = await run(tsc, ['-p', path.join(project, 'tsconfig.wrong.json')], { cwd: project }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    )
    expect(refused).toMatch(/headlin/)
  })

  it('runs the example against a live server: helpers, pages that iterate themselves, errors naming their fields', { timeout: setupBackstopMs }, async () => {
    const { stdout } = await run(process.execPath, [path.join(project, 'out/example.js')], { cwd: project, env })
    const lines = stdout.trim().split('\n')
    expect(JSON.parse(lines.at(-1)!)).toEqual({ status: 'published', listed: 1, departments: ['News', 'Sport'] })
    expect(stdout).toMatch(/\(422 validation_failed\)\n {2}headline: /)
  })
})

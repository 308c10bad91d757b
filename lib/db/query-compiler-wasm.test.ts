import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

describe("Prisma's query compiler is not held as text once compiled", () => {
  // Its base64 (4.6 MB, twice: a module's source and the string it exports) was ~10% of every
  // instance's live heap for the life of the process, after serving one query.
  it('after the first query the process holds no string of a megabyte or more', () => {
    const script = `
      const { getHeapSnapshot } = await import('node:v8')
      const { db } = await import('./lib/db/client.ts')
      const tenants = await db.tenant.count()
      let json = ''
      for await (const chunk of getHeapSnapshot()) json += chunk
      const { snapshot: { meta }, nodes, strings } = JSON.parse(json)
      json = ''
      const fields = meta.node_fields.length
      const type = meta.node_fields.indexOf('type'), name = meta.node_fields.indexOf('name'), size = meta.node_fields.indexOf('self_size')
      const large = []
      for (let at = 0; at < nodes.length; at += fields) {
        if (meta.node_types[0][nodes[at + type]] === 'string' && nodes[at + size] >= 1_000_000) large.push(strings[nodes[at + name]].slice(0, 40))
      }
      console.log(JSON.stringify({ tenants, large }))
      await db.$disconnect()`
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
      env: process.env,
      maxBuffer: 16 * 1024 * 1024,
    })
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { tenants: number; large: string[] }
    expect(result.tenants).toBeGreaterThanOrEqual(0)
    expect(result.large).toEqual([])
  }, 60_000)
})

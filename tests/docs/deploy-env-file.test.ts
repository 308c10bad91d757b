import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// Found by the issue-49 tester: docs/deploy.md, "From an empty machine to a running newsroom",
// runs its steps "as the user the service runs as", and step 3 loads /etc/newsroom/env into that
// shell. The file as steps 2 and "Secrets" set it up (root-owned, the stated mode) must then be
// readable by that user; if not, step 3 fails and every later command works on the embedded
// development database instead (the trap step 3 itself warns of).

const root = path.resolve(import.meta.dirname, '../..')
const guide = readFileSync(path.join(root, 'docs/deploy.md'), 'utf8')
const asRoot = process.getuid?.() === 0
const dir = mkdtempSync(path.join(tmpdir(), 'deploy-env-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the environment file of docs/deploy.md's first steps", () => {
  it.skipIf(!asRoot)('is readable by the user the steps run as, so step 3 loads DATABASE_URL', () => {
    const step2 = guide.split('\n').find((line) => line.includes('Put the environment in `/etc/newsroom/env`'))!
    const mode = Number.parseInt(/mode (\d{3})/.exec(step2)![1]!, 8)
    const serviceUser = 'nobody'
    const file = path.join(dir, 'env')
    writeFileSync(file, 'DATABASE_URL=postgresql://newsroom@db.internal/newsroom\n')
    chmodSync(dir, 0o755)
    // Root-owned; in the service user's group when the guide says so.
    const group = /group/i.test(step2) ? Number(execFileSync('id', ['-g', serviceUser], { encoding: 'utf8' })) : 0
    chownSync(file, 0, group)
    chmodSync(file, mode)
    const loaded = execFileSync('runuser', ['-u', serviceUser, '--', 'env', '-i', 'PATH=/usr/bin:/bin', 'bash', '-c', `set -a && . ${file} && set +a; echo "DATABASE_URL=$DATABASE_URL"`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    expect(loaded.trim()).toBe('DATABASE_URL=postgresql://newsroom@db.internal/newsroom')
  })
})

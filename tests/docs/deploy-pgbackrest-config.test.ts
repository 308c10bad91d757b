import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { guideCodeBlocks } from '../../components/guides/code-block-info.ts'

// Found by the issue-49 tester: the operator copies docs/deploy.md's pgbackrest.conf to
// /etc/pgbackrest/pgbackrest.conf as it stands. pgBackRest (Debian's) reads a value to the end of
// its line: there are no trailing comments in its INI files.

const root = path.resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(path.join(tmpdir(), 'deploy-pgbackrest-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("docs/deploy.md's pgbackrest.conf", () => {
  it('means to pgBackRest what it says: every option has the value written before any comment', () => {
    const block = guideCodeBlocks(readFileSync(path.join(root, 'docs/deploy.md'), 'utf8')).find((candidate) => candidate.info.startsWith('ini') && candidate.text.includes('repo1-path'))
    expect(block, 'the pgbackrest.conf block').toBeDefined()
    const file = path.join(dir, 'pgbackrest.conf')
    // Logs and locks where this test may write; everything else as the guide has it.
    writeFileSync(file, block!.text.replace('[global]', `[global]\nlog-path=${dir}\nlock-path=${dir}`))
    let output: string
    try {
      output = execFileSync('pgbackrest', [`--config=${file}`, '--stanza=newsroom', '--log-level-console=debug', 'info'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? '')
    }
    const begin = output.split('\n').find((line) => line.includes('info command begin'))
    expect(begin, 'pgBackRest parsed the file').toBeDefined()
    const repoPath = /--repo1-path=("[^"]*"|\S+)/.exec(begin!)?.[1]?.replace(/^"|"$/g, '')
    expect(repoPath).toBe('/var/lib/pgbackrest')
  })
})

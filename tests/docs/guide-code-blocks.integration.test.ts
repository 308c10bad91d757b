import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { guideCodeBlocks, type GuideCodeBlock } from '../../components/guides/code-block-info.ts'
import { guideSlugs } from '../../components/guides/guide-files.ts'
import { seed } from '../../prisma/development-seed.ts'
import { startApiServer } from '../support/api-server.ts'
import { stubEnv } from '../support/stub-env.ts'

// Every code block of the README and every guide /docs serves is run here as a reader would run it,
// or says why it cannot be (`not-runnable="…"`), or names the test that runs it (`run-by`).
// The shell blocks of one file run in order as one terminal session would: what a block
// exports (NEWSROOM_TOKEN from the tokens CLI) is there for the next. They run against the /v1
// handlers on 127.0.0.1 over the development seed, the data `npm run dev` starts with; the
// service's address stands in for http://localhost:3000, and the receiver a block starts for
// the one the reader runs.

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')
// Every guide /docs serves (the reader guides and the topic guides beside them), not only the five.
const files = ['README.md', ...guideSlugs().map((slug) => `docs/${slug}.md`)]
const blocksOf = (file: string) => guideCodeBlocks(readFileSync(path.join(root, file), 'utf8'))
const where = (file: string, block: GuideCodeBlock) => `${file}:${block.line} (${block.info || 'no info string'})`

let server: Awaited<ReturnType<typeof startApiServer>>
let dir: string
const receivers: { process: ChildProcess; output: () => string }[] = []
const ran = new Set<string>()

/** A port nothing listens on now, for a receiver the guide's reader would run on a port of theirs. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

beforeAll(async () => {
  // A loopback receiver needs what the README tells the reader to start the server with.
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'guide-blocks-key' })
  vi.spyOn(console, 'log').mockImplementation(() => undefined) // the seed's list of sign-ins
  await seed()
  vi.mocked(console.log).mockRestore()
  server = await startApiServer()
  dir = mkdtempSync(path.join(tmpdir(), 'guide-blocks-'))
})

afterAll(async () => {
  for (const receiver of receivers) receiver.process.kill()
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
  vi.unstubAllEnvs()
})

/** Starts a JavaScript block that is a server (the guide's receiver) as the reader does: node file.mjs. */
async function startReceiver(file: string, block: GuideCodeBlock): Promise<{ url: string; output: () => string }> {
  const port = await freePort()
  const script = path.join(dir, `receiver-${block.line}.mjs`)
  writeFileSync(script, block.text)
  const child = spawn(process.execPath, [script], { env: { NODE_ENV: 'test', PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  receivers.push({ process: child, output: () => output })
  // Listening is the condition, not a pause: connect until it answers (or the process ended).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${where(file, block)} exited: ${output}`)
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket.destroy() !== undefined)).on('error', () => resolve(false))
    })
    if (listening) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  ran.add(where(file, block))
  return { url: `http://127.0.0.1:${port}/`, output: () => output }
}

/** Runs a file's shell blocks in order, in one terminal's environment; returns each block's output and the environment after. */
async function runShellBlocks(file: string, pinned: Record<string, string>): Promise<{ outputs: string[]; session: NodeJS.ProcessEnv }> {
  let session: NodeJS.ProcessEnv = { PATH: process.env.PATH!, HOME: process.env.HOME ?? dir, DATABASE_URL: process.env.DATABASE_URL!, NODE_ENV: 'test' }
  const outputs: string[] = []
  for (const block of blocksOf(file).filter((entry) => entry.run && entry.language === 'sh')) {
    const state = path.join(dir, 'state')
    // allexport: a variable a block sets (SPORT=…) is there for the next block, as in one terminal.
    const script = `set -a\n${block.text}\nenv -0 > '${state}'`
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env: { ...session, ...pinned }, maxBuffer: 16 * 1024 * 1024 }).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`${where(file, block)} failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`)
    })
    session = { NODE_ENV: 'test', ...Object.fromEntries(readFileSync(state, 'utf8').split('\0').filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])) }
    outputs.push(stdout)
    ran.add(where(file, block))
  }
  return { outputs, session }
}

describe('the code blocks of the README and the guides', () => {
  it('each runs here, names the test that runs it, or says why it cannot run', () => {
    const unexplained: string[] = []
    for (const file of files) {
      for (const block of blocksOf(file)) {
        const says = [block.run, block.runBy !== undefined, block.notRunnable !== undefined].filter(Boolean).length
        if (says !== 1 || block.notRunnable === '' || !block.language) unexplained.push(where(file, block))
        if (block.runBy !== undefined) {
          // The named test exists and checks this guide's copy of what it runs.
          const test = path.join(root, block.runBy)
          expect(existsSync(test), where(file, block)).toBe(true)
          expect(readFileSync(test, 'utf8'), where(file, block)).toContain(file)
        }
      }
    }
    expect(unexplained).toEqual([])
  })

  it("README: the first five minutes make a key, find the seeded story, write one, and a webhook reaches the reader's receiver", { timeout: 180_000 }, async () => {
    const receiverBlock = blocksOf('docs/integrators.md').find((block) => block.run && block.language === 'js')!
    const receiver = await startReceiver('docs/integrators.md', receiverBlock)
    const { outputs, session } = await runShellBlocks('README.md', { NEWSROOM_URL: server.url, RECEIVER_URL: receiver.url })
    const [key, calls, webhook] = outputs
    expect(key).toBe('')
    expect(session.NEWSROOM_TOKEN).toMatch(/^nrs_\S+$/)
    expect(calls).toContain('"headline":"Water utility celebrates riverside plan"')
    expect(calls).toMatch(/"headline":"Harbour festival returns","[^]*"status":"in-review"/)
    expect(webhook).toContain('"result":"succeeded"')
    expect(receiver.output()).toMatch(/^webhook\.test \S+ signature ok$/m)
  })

  it("the integrators' guide: a key from the CLI, the published list, the search that finds the seeded stories and a desk's stories by its id", { timeout: 180_000 }, async () => {
    const { outputs, session } = await runShellBlocks('docs/integrators.md', { NEWSROOM_URL: server.url })
    const [list, search, sport] = outputs
    expect(JSON.parse(list!).items.length).toBeGreaterThan(0)
    const found = JSON.parse(search!).items.map((article: { headline: string }) => article.headline)
    expect(found.length).toBeGreaterThan(0)
    for (const headline of found) expect(headline).toMatch(/^Hospital trust \w+ riverside plan$/)
    // The Sport desk's id, looked up by name, filters the list to its published stories.
    const sportStories = JSON.parse(sport!).items as { department_id: string; status: string }[]
    expect(sportStories.length).toBeGreaterThan(0)
    for (const story of sportStories) expect(story).toMatchObject({ department_id: session.SPORT, status: 'published' })
  })

  it("the admins' guide: the tokens CLI makes and lists a key", { timeout: 180_000 }, async () => {
    const [made] = (await runShellBlocks('docs/admins.md', {})).outputs
    expect(made).toMatch(/^nrs_\S+$/m)
    expect(made).toMatch(/"Wire importer"\s+articles:read,articles:write/)
  })

  it('ran every block marked run', () => {
    const marked = files.flatMap((file) => blocksOf(file).filter((block) => block.run).map((block) => where(file, block)))
    expect(marked.filter((block) => !ran.has(block))).toEqual([])
  })
})

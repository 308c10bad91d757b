import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, openSync } from 'node:fs'
import path from 'node:path'

const devServerUrl = 'http://127.0.0.1:8288'

function logFile(): string {
  mkdirSync('.data', { recursive: true })
  return path.resolve('.data/inngest-dev.log')
}

let explained = false

function explainOnce(message: string): void {
  if (explained) return
  explained = true
  console.log(message)
}

/** Whether a program is on PATH, without running it (running `npx` would try to download it). */
function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, program)))
}

/**
 * Starts the Inngest dev server for local development, pointed at the app's /api/inngest,
 * when it can run: inngest-cli is installed in node_modules or on PATH, or
 * INNGEST_DEV_SERVER=1 forces `npx inngest-cli dev`. Otherwise (and when Inngest Cloud or
 * an external dev server is configured) it starts nothing; without any Inngest it says
 * once that deliveries wait in the outbox. Sets INNGEST_DEV for processes started after it.
 */
export async function startInngestDevServer(appUrl: string): Promise<{ stop(): void } | undefined> {
  const wanted = process.env.INNGEST_DEV_SERVER
  const externallyConfigured = Boolean(process.env.INNGEST_EVENT_KEY || process.env.INNGEST_BASE_URL || /^https?:\/\//.test(process.env.INNGEST_DEV ?? ''))
  if (wanted === '0' || wanted === 'false' || (externallyConfigured && wanted !== '1')) {
    if (!externallyConfigured) explainOnce(notAvailableMessage(appUrl, 'INNGEST_DEV_SERVER=0'))
    return undefined
  }

  // Installed copies first; otherwise npx fetches it, which works wherever the machine can
  // download Inngest's binary and fails fast (then we explain once) where it cannot.
  const localBin = path.resolve('node_modules/.bin/inngest-cli')
  const command = existsSync(localBin) ? localBin : onPath('inngest-cli') ? 'inngest-cli' : onPath('npx') ? 'npx' : undefined
  if (!command) {
    explainOnce(notAvailableMessage(appUrl, 'inngest-cli is not installed'))
    return undefined
  }

  const args = [...(command === 'npx' ? ['--yes', 'inngest-cli'] : []), 'dev', '-u', `${appUrl.replace(/\/+$/, '')}/api/inngest`]
  let child: ChildProcess
  try {
    // Its own process group, so stopping it also stops what npx started.
    // npx's own install chatter would bury the app's output; it goes to a log file instead.
    const quiet = command === 'npx' && wanted !== '1'
    child = spawn(command, args, { stdio: quiet ? ['ignore', openSync(logFile(), 'a'), openSync(logFile(), 'a')] : ['ignore', 'inherit', 'inherit'], detached: true, env: process.env })
  } catch (error) {
    explainOnce(notAvailableMessage(appUrl, (error as Error).message))
    return undefined
  }
  let exited = false
  child.on('error', (error) => {
    exited = true
    explainOnce(notAvailableMessage(appUrl, error.message))
  })
  child.on('exit', (code) => {
    exited = true
    if (code) explainOnce(notAvailableMessage(appUrl, `inngest-cli exited with code ${code}; see ${logFile()}`))
  })
  process.env.INNGEST_DEV ??= '1'
  console.log(`Inngest dev server starting at ${devServerUrl} (functions at ${appUrl}/api/inngest).`)
  return {
    stop() {
      if (exited || child.pid === undefined) return
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {
        child.kill('SIGTERM')
      }
    },
  }
}

function notAvailableMessage(appUrl: string, why: string): string {
  return [
    `Inngest dev server not available (${why}): webhook deliveries and scheduled publications wait in the outbox.`,
    `  To run them locally: npx inngest-cli@latest dev -u ${appUrl}/api/inngest, and start the app with INNGEST_DEV=1;`,
    '  the outbox is swept at start-up and every minute once Inngest is reachable.',
  ].join('\n')
}

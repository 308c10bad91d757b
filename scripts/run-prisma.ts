import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** Runs the Prisma CLI with this process's environment; rejects if it exits non-zero. */
export function runPrisma(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const cli = require.resolve('prisma/build/index.js')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: 'inherit', env })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`prisma ${args.join(' ')} exited with ${code}`))))
  })
}

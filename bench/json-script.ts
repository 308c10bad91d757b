import { spawn } from 'node:child_process'

/**
 * Runs a bench script in its own process (through tsx; lib/ reads DATABASE_URL once, and a load
 * generator must not share the measured process's CPU) and returns the JSON of its last line.
 */
export function runJsonScript<Result>(script: string, options: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...(options.args ?? [])], { stdio: ['ignore', 'pipe', 'inherit'], env: options.env ?? process.env })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output.trim().split('\n').at(-1)!) as Result) : reject(new Error(`${script} exited with ${code}`))))
  })
}

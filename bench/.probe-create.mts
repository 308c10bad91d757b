import { spawn, execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { load, waitFor } from './load.ts'

const db = 'postgresql://postgres@127.0.0.1:5432/newsroom_bench'
const tokenOut = execFileSync('npx', ['tsx', 'scripts/tokens.ts', 'create', '--tenant', 'bench-large', '--name', 'probe', '--scopes', 'articles:read,articles:write'], { env: { ...process.env, DATABASE_URL: db }, encoding: 'utf8' })
const token = /nrs_[A-Za-z0-9_-]+/.exec(tokenOut)![0]
const env = { ...process.env, DATABASE_URL: db, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', SEED: 'false', PORT: '3460', RATE_LIMIT_STANDARD_PER_MINUTE: '100000000', RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000', LOCAL_SECRETS_FILE: '.data/bench-secrets.json', REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_KEY_PREFIX: `probe:${Date.now()}` }
const server = spawn('node', ['--cpu-prof', '--cpu-prof-dir=/tmp/prof', '--max-old-space-size=320', 'dist/start.mjs'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
await waitFor('http://127.0.0.1:3460/v1/openapi.json')
const body = JSON.stringify({ headline: 'Load test article', lede: 'Created under load.', body: '<p>Bench.</p>'.repeat(50), tags: ['bench'] })
await load({ url: 'http://127.0.0.1:3460', token, method: 'POST', path: '/v1/articles', body, duration: 5 })
const result = await load({ url: 'http://127.0.0.1:3460', token, method: 'POST', path: '/v1/articles', body, duration: 10 })
console.log(JSON.stringify(result))
server.kill('SIGTERM')
await new Promise((r) => server.on('exit', r))
console.log(readdirSync('/tmp/prof'))

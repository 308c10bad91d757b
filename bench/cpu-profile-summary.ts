/**
 * A --cpu-prof profile as a bottom-up table of self time, by source file and by function, for
 * a production build: frames in Next's (minified) server chunks are mapped back to their source
 * files through the chunks' source maps, so `lib/json-bytes.ts` shows as itself.
 *
 *   npx tsx bench/cpu-profile-summary.ts <file.cpuprofile> [requests answered] [top N] [from seconds]
 *
 * With the requests answered while the profile ran, each row also gives µs a request. Self time
 * of the main thread only (the profile's own), idle excluded from the shares.
 */
import { readFileSync } from 'node:fs'
import { where, type Frame } from './profile-frames.ts'

type Node = { id: number; callFrame: Frame; children?: number[] }
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const [file, requestsArg, topArg] = process.argv.slice(2)
if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [requests] [top]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const requests = Number(requestsArg ?? 0)
const top = Number(topArg ?? 40)

const byId = new Map(profile.nodes.map((node) => [node.id, node]))
// Only samples from `from seconds` after the profile started (bench/profile-cold-list.ts prints
// when its measured load began): start-up and warm-up are left out.
const fromUs = Number(process.argv[5] ?? 0) * 1e6
let from = 0
for (let elapsed = 0; from < profile.samples.length && elapsed < fromUs; from++) elapsed += profile.timeDeltas[from] ?? 0
const selfUs = new Map<number, number>()
for (let i = from; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i + 1] ?? 0
  selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + delta)
}
const byModule = new Map<string, number>()
const byFunction = new Map<string, number>()
let total = 0
let idle = 0
for (const [id, us] of selfUs) {
  const node = byId.get(id)!
  if (node.callFrame.functionName === '(idle)') {
    idle += us
    continue
  }
  total += us
  const { module, fn } = where(node.callFrame)
  const group = module.startsWith('node_modules/') ? module.split('/').slice(0, module.split('/')[1]!.startsWith('@') ? 3 : 2).join('/') : module
  byModule.set(group, (byModule.get(group) ?? 0) + us)
  byFunction.set(`${module} ${fn}`, (byFunction.get(`${module} ${fn}`) ?? 0) + us)
}
const row = (name: string, us: number) => `${((us / total) * 100).toFixed(1).padStart(5)} %${requests ? `  ${(us / requests).toFixed(0).padStart(6)} µs/req` : ''}  ${name}`
console.log(`non-idle ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s${requests ? `, ${requests} requests: ${(total / requests).toFixed(0)} µs a request` : ''}`)
console.log('\nby module (node_modules by package)')
for (const [name, us] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(row(name, us))
console.log('\nby function')
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(row(name, us))

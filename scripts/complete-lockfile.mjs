#!/usr/bin/env node
// The npm registry these machines reach lacks some platform-only packages (other systems'
// builds of @next/swc and the unrs resolver), so `npm install` leaves them out of
// package-lock.json and `npm ci` then refuses the lock. This adds the missing optional
// entries with their os/cpu, so npm ci skips them as foreign platforms, as it would with
// the full registry. Run after changing dependencies: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages

function platformOf(name) {
  const base = name.split('/').pop()
  const os = ['darwin', 'win32', 'android', 'freebsd', 'openharmony', 'linux', 'sunos', 'aix', 'netbsd', 'openbsd'].find((candidate) => base.includes(candidate))
  const cpu = ['arm64', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'arm', 'wasm32'].find((candidate) => new RegExp(`-${candidate}(-|$)`).test(base))
  const libc = /-gnu(eabihf)?$/.test(base) ? 'glibc' : /-musl(eabihf)?$/.test(base) ? 'musl' : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`
    if (packages[nested] || packages[`node_modules/${name}`]) continue
    const { os, cpu, libc } = platformOf(name)
    if (!os || !cpu) continue
    packages[`node_modules/${name}`] = { version, cpu: [cpu], os: [os], ...(libc && { libc: [libc] }), optional: true }
    added++
  }
}

const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))))
lock.packages = sorted
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(`package-lock.json: added ${added} missing platform-only optional entries`)

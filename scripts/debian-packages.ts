/**
 * Debian packages a test or script needs (pgbackrest, prometheus's promtool): found on the
 * machine, or installed with apt-get when run as root (a clean CI machine), as scripts/cluster.ts
 * does for its own; otherwise the error says what to install.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

function onPath(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' })
    return true
  } catch {
    return existsSync(`/usr/sbin/${binary}`) || existsSync(`/usr/bin/${binary}`)
  }
}

/** [binary, package] pairs: installs the packages of the binaries not found. */
export function ensureDebianPackages(wanted: [binary: string, pkg: string][]): void {
  const missing = [...new Set(wanted.filter(([binary]) => !onPath(binary)).map(([, pkg]) => pkg))]
  if (missing.length === 0) return
  if (process.getuid?.() !== 0) throw new Error(`Install these Debian packages first: sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update'], { stdio: 'inherit', env })
  execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env })
}

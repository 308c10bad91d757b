import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createServer } from 'node:net'
import { afterAll, beforeAll } from 'vitest'
import { startObjectStore, type ObjectStore } from '../../scripts/object-store.ts'
import { setupBackstopMs } from '../support/time-limits.ts'
import { mediaLibrarySuite } from './media-library-suite.ts'

// The media library on a real S3 implementation: Ceph's RADOS Gateway, started here by the
// project's own script (scripts/object-store.ts installs Debian's packages on a clean machine),
// on 20 consecutive ports found free here (monitor base, gateway base+1, daemons base+2…+19):
// another developer's or CI job's gateway may hold any fixed range. MEDIA_TEST_RGW_PORT pins one.
//
// The gateway starts in a hook of its own, before the suite's: it waits on conditions (monitor in
// quorum, OSD up, gateway answering), each bounded inside startObjectStore, and on a loaded
// machine that alone can take minutes. The bound here only stops a hang.
let starting: Promise<ObjectStore> | undefined

/** Whether nothing listens on the port now (the daemons bind every address, so probe them all). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, () => probe.close(() => resolve(true)))
  })
}

/** A base port whose 20 ports are all free now, tried from random bases in 20000–59980. */
async function freePortRange(size = 20): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 2_000) * size
    let free = true
    for (let port = base; port < base + size && free; port++) free = await isFree(port)
    if (free) return base
  }
  throw new Error(`No ${size} consecutive free ports found for the object store; set MEDIA_TEST_RGW_PORT.`)
}

beforeAll(async () => {
  starting = startObjectStore({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'newsroom-rgw-test-')), basePort: process.env.MEDIA_TEST_RGW_PORT ? Number(process.env.MEDIA_TEST_RGW_PORT) : await freePortRange() })
  await starting
}, 600_000)

afterAll(async () => {
  // Waits for a start still under way (its steps are bounded), so no daemon outlives the file.
  const store = await starting?.catch(() => undefined)
  await store?.stop()
}, setupBackstopMs)

mediaLibrarySuite('s3', async () => ({ ...(await starting!).env, MEDIA_S3_BUCKET: `media-test-${process.pid}`, MEDIA_DIR: '' }))

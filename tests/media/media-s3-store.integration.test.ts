import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { startObjectStore, type ObjectStore } from '../../scripts/object-store.ts'
import { mediaLibrarySuite } from './media-library-suite.ts'

// The media library on a real S3 implementation: Ceph's RADOS Gateway, started here by the
// project's own script (scripts/object-store.ts installs Debian's packages on a clean machine),
// on this file's ports: monitor 6540, gateway 6541, daemons 6542-6559.
//
// The gateway starts in a hook of its own, before the suite's: it waits on conditions (monitor in
// quorum, OSD up, gateway answering), each bounded inside startObjectStore, and on a loaded
// machine that alone can take minutes. The bound here only stops a hang.
let starting: Promise<ObjectStore> | undefined

beforeAll(async () => {
  starting = startObjectStore({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'newsroom-rgw-test-')), basePort: Number(process.env.MEDIA_TEST_RGW_PORT ?? 6540) })
  await starting
}, 600_000)

afterAll(async () => {
  // Waits for a start still under way (its steps are bounded), so no daemon outlives the file.
  const store = await starting?.catch(() => undefined)
  await store?.stop()
}, 120_000)

mediaLibrarySuite('s3', async () => ({ ...(await starting!).env, MEDIA_S3_BUCKET: `media-test-${process.pid}`, MEDIA_DIR: '' }))

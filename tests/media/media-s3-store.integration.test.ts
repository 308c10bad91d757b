import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll } from 'vitest'
import { startObjectStore, type ObjectStore } from '../../scripts/object-store.ts'
import { mediaLibrarySuite } from './media-library-suite.ts'

// The media library on a real S3 implementation: Ceph's RADOS Gateway, started here by the
// project's own script (scripts/object-store.ts installs Debian's packages on a clean machine),
// on this file's ports: monitor 6540, gateway 6541, daemons 6542-6559.
let store: ObjectStore | undefined

afterAll(async () => {
  await store?.stop()
}, 60_000)

mediaLibrarySuite('s3', async () => {
  store = await startObjectStore({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'newsroom-rgw-test-')), basePort: Number(process.env.MEDIA_TEST_RGW_PORT ?? 6540) })
  return { ...store.env, MEDIA_S3_BUCKET: `media-test-${process.pid}`, MEDIA_DIR: '' }
})

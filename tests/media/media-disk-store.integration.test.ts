import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { mediaLibrarySuite } from './media-library-suite.ts'

// The media library on the disk store: files under a data directory, as `npm run dev` keeps them.
mediaLibrarySuite('disk', async () => ({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-test-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' }))

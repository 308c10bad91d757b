import path from 'node:path'
import { diskMediaStore } from './disk-media-store.ts'
import type { MediaStore } from './media-store.ts'
import { s3MediaStore } from './s3-media-store.ts'

let store: MediaStore | null = null

/**
 * The media store this process uses, from its settings: S3 when MEDIA_S3_ENDPOINT and
 * MEDIA_S3_BUCKET are set (credentials from MEDIA_S3_ACCESS_KEY_ID / MEDIA_S3_SECRET_ACCESS_KEY,
 * else AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), otherwise files under MEDIA_DIR (default
 * `.data/media`, beside the embedded database).
 */
export function mediaStore(): MediaStore {
  return (store ??= storeFromEnv(process.env))
}

/** Tests and tools that switch stores (disk, then the S3 gateway) in one process. */
export function resetMediaStore(): void {
  store = null
}

export function storeFromEnv(env: Readonly<Record<string, string | undefined>>): MediaStore {
  const endpoint = env.MEDIA_S3_ENDPOINT
  const bucket = env.MEDIA_S3_BUCKET
  if (endpoint && bucket) {
    // Empty is unset here too: an env file's `MEDIA_S3_REGION=` or `MEDIA_S3_ACCESS_KEY_ID=` means the default.
    const accessKeyId = env.MEDIA_S3_ACCESS_KEY_ID || env.AWS_ACCESS_KEY_ID
    const secretAccessKey = env.MEDIA_S3_SECRET_ACCESS_KEY || env.AWS_SECRET_ACCESS_KEY
    if (!accessKeyId || !secretAccessKey) throw new Error('MEDIA_S3_ENDPOINT is set but no credentials: set MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY.')
    const timeoutMs = Number(env.MEDIA_S3_TIMEOUT_MS)
    return s3MediaStore({ endpoint, bucket, region: env.MEDIA_S3_REGION || 'us-east-1', accessKeyId, secretAccessKey, ...(Number.isFinite(timeoutMs) && timeoutMs > 0 && { timeoutMs }) })
  }
  // Empty is unset (as for MEDIA_S3_ENDPOINT): path.resolve('') is the working directory, the
  // deployed app itself, which the next deploy replaces with every original in it.
  return diskMediaStore(path.resolve(env.MEDIA_DIR || '.data/media'))
}

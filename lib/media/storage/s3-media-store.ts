import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { CreateBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import { ServiceUnavailableError } from '../../errors.ts'
import { assertStorageKey, type MediaStore } from './media-store.ts'

export type S3Settings = { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; timeoutMs?: number }

const unreachableCodes: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * The store not answering (refused, reset, silent past the timeout, or its own 5xx): the
 * service's trouble, worth a retry, and named as the store's, never left to pass for a database
 * failure (lib/api/database-errors.ts reads ECONNREFUSED as one) or an unexpected 500.
 */
function storeUnavailable(error: unknown): unknown {
  const candidate = error as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: number } } | null
  const unreachable =
    candidate !== null &&
    typeof candidate === 'object' &&
    (candidate.name === 'TimeoutError' || (typeof candidate.code === 'string' && unreachableCodes.has(candidate.code)) || (candidate.$metadata?.httpStatusCode ?? 0) >= 500)
  return unreachable ? new ServiceUnavailableError('The media store (object storage) is not answering right now; retry in a moment.', 5, { cause: error }) : error
}

async function answered<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw storeUnavailable(error)
  }
}

/**
 * Any S3-compatible store (Ceph's RADOS Gateway in tests and `npm run cluster`, a cloud bucket in
 * production). Uploads stream from the finished temp file with a known Content-Length, so a
 * 50 MB original never sits whole in the heap.
 */
export function s3MediaStore(settings: S3Settings): MediaStore {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Path-style addressing: gateways on an address (not a wildcard DNS name) need it.
    forcePathStyle: true,
    // Since 3.729 the SDK streams uploads with a checksum trailer that Ceph 16 refuses (411
    // MissingContentLength); checksums only where an operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that stops answering (a stuck gateway, a partition) must not hold an upload and
    // its large-body slot forever: the SDK sets no timeouts of its own. The socket may be idle
    // this long (MEDIA_S3_TIMEOUT_MS, default 20 s); one retry, so a person waits at most ~2×.
    requestHandler: { connectionTimeout: Math.min(settings.timeoutMs ?? 20_000, 5_000), socketTimeout: settings.timeoutMs ?? 20_000 },
    maxAttempts: 2,
  })
  const bucket = settings.bucket
  let bucketReady: Promise<void> | null = null
  // The bucket is made on first use, so a fresh store (the test gateway, a new deployment) works.
  const ensureBucket = () =>
    (bucketReady ??= (async () => {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }))
      } catch {
        await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: unknown) => {
          if (error instanceof S3ServiceException && (error.name === 'BucketAlreadyOwnedByYou' || error.name === 'BucketAlreadyExists')) return
          throw error
        })
      }
    })().catch((error: unknown) => {
      bucketReady = null
      throw error
    }))

  return {
    kind: 's3',
    putFile: (key, sourcePath, contentType) =>
      answered(async () => {
        assertStorageKey(key)
        await ensureBucket()
        const { size } = await stat(sourcePath)
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(sourcePath), ContentLength: size, ContentType: contentType }))
      }),
    putBuffer: (key, bytes, contentType) =>
      answered(async () => {
        assertStorageKey(key)
        await ensureBucket()
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentLength: bytes.length, ContentType: contentType }))
      }),
    get: (key) =>
      answered(async () => {
        assertStorageKey(key)
        await ensureBucket()
        try {
          const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
          return { body: answer.Body as Readable, bytes: Number(answer.ContentLength ?? 0) }
        } catch (error) {
          if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return null
          throw error
        }
      }),
    delete: (key) =>
      answered(async () => {
        assertStorageKey(key)
        await ensureBucket()
        // S3 answers a missing key's deletion with success, as the port asks.
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
      }),
    deletePrefix: (prefix) =>
      answered(async () => {
        assertStorageKey(prefix.replace(/\/$/, ''))
        await ensureBucket()
        let token: string | undefined
        do {
          const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }))
          const keys = (page.Contents ?? []).flatMap((entry) => (entry.Key ? [{ Key: entry.Key }] : []))
          if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }))
          token = page.IsTruncated ? page.NextContinuationToken : undefined
        } while (token)
      }),
    async *list(prefix) {
      assertStorageKey(prefix.replace(/\/$/, ''))
      let token: string | undefined
      do {
        const page = await answered(async () => {
          await ensureBucket()
          return client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }))
        })
        yield (page.Contents ?? []).flatMap((entry) => (entry.Key ? [{ key: entry.Key, writtenAt: entry.LastModified ?? new Date(0) }] : []))
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token)
    },
  }
}

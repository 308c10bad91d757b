import { deflateSync } from 'node:zlib'
import { Readable } from 'node:stream'
import sharp from 'sharp'
import { createMedia, type UploadFields } from '../../lib/media/media-library.ts'
import { receiveToTempFile } from '../../lib/media/receive-upload.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'

/**
 * A real JPEG as a camera writes one: caption, credit, copyright and date taken in EXIF, and
 * what must never reach the public: the GPS position and the camera's serial number. `seed`
 * changes the pixels, so each call can make distinct bytes.
 */
export async function cameraJpeg(options: { width?: number; height?: number; seed?: number } = {}): Promise<Buffer> {
  const width = options.width ?? 2000
  const height = options.height ?? 1200
  const seed = options.seed ?? 0
  return sharp({ create: { width, height, channels: 3, background: { r: (seed * 37) % 256, g: (seed * 91) % 256, b: 120 } } })
    .composite([{ input: { create: { width: Math.floor(width / 4), height: Math.floor(height / 4), channels: 3, background: { r: 250, g: 250, b: (seed * 13) % 256 } } }, left: 10, top: 10 }])
    .jpeg({ quality: 85 })
    .withExif({
      IFD0: { ImageDescription: 'Boats return to the harbour', Artist: 'Jane Doe', Copyright: 'Harbour Press', Make: 'TestCam', Model: 'TC-1' },
      IFD2: { DateTimeOriginal: '2026:11:28 17:41:09', BodySerialNumber: 'SN-0042-SECRET' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 3230/100', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 4366/100' },
    })
    .toBuffer()
}

/** A picture whose left half is black and right half white: a crop shows which side it kept. */
export async function halfBlackHalfWhite(width = 1200, height = 600): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([{ input: { create: { width: width / 2, height, channels: 3, background: { r: 255, g: 255, b: 255 } } }, left: width / 2, top: 0 }])
    .png()
    .toBuffer()
}

/** The mean brightness (0–255) of an encoded image. */
export async function meanBrightness(image: Buffer): Promise<number> {
  const stats = await sharp(image).stats()
  return stats.channels.slice(0, 3).reduce((sum, channel) => sum + channel.mean, 0) / 3
}

function crc32(bytes: Buffer): number {
  let crc = ~0
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return ~crc >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A decompression bomb: a valid PNG of 60,000 × 60,000 pixels (3.6 gigapixels) whose rows are all
 * zero, so it compresses to a few kilobytes.
 */
export function pngBomb(): Buffer {
  const width = 60_000
  const height = 60_000
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 1 // bit depth
  header[9] = 0 // greyscale
  // Only the first rows: the header is what gives it away, before any pixel is decoded.
  const rows = Buffer.alloc((width / 8 + 1) * 64)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))])
}

export const svgWithScript = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10"/></svg>')

/** Uploads through the domain (for tests that need an image, not the upload path itself). */
export async function uploadThroughDomain(actor: Actor, bytes: Buffer, fields: UploadFields = {}) {
  const file = await receiveToTempFile(Readable.from([bytes]), 50 * 1024 * 1024)
  return createMedia(actor, file, { filename: 'domain.jpg', ...fields })
}

/** multipart/form-data with a `file` part, as a browser's FormData sends it. */
export function uploadForm(bytes: Buffer, filename: string, fields: Record<string, string> = {}, type = 'image/jpeg'): FormData {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  form.set('file', new Blob([new Uint8Array(bytes)], { type }), filename)
  return form
}

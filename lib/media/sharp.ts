import type Sharp from 'sharp'
import { processSingleton } from '../process-singleton.ts'

/**
 * sharp as the media library uses it: every module that decodes images loads it from here,
 * so the settings below hold wherever an image is read.
 *
 * Loaded on the first image, not at start: libvips and its libraries are ~19 MB of an
 * instance's resident memory (file pages and its own heap, measured with `node -r sharp`
 * against bare node), and an instance that serves only the API and the portal's lists never
 * decodes an image. That memory is part of the 400 MB an instance is budgeted (the bench's soak).
 *
 * No libvips operation cache (sharp's default keeps up to 20 files, 100 operations, 50 MB).
 * Nothing here is decoded twice from the same input: an upload is read from its temporary file
 * once (then the file is removed), and a rendition is rendered once and kept in the media store.
 * The cache only kept those inputs alive: libvips maps an input file into memory, and a cached
 * operation holds the mapping, so each upload's temporary file stayed resident (and on disk,
 * deleted but mapped) until 20 later files pushed it out. Measured on the built server with 16
 * concurrent 19 MB uploads: 7 such mappings, 133 MB of the 443 MB peak.
 */
export function loadSharp(): Promise<typeof Sharp> {
  return processSingleton('sharp, loaded with its settings', () =>
    import('sharp').then(({ default: sharp }) => {
      sharp.cache(false)
      return sharp
    }),
  )
}

export type { Metadata } from 'sharp'

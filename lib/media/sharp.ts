import sharp from 'sharp'

/**
 * sharp as the media library uses it: every module that decodes images imports it from here,
 * so the settings below hold wherever an image is read.
 *
 * No libvips operation cache (sharp's default keeps up to 20 files, 100 operations, 50 MB).
 * Nothing here is decoded twice from the same input: an upload is read from its temporary file
 * once (then the file is removed), and a rendition is rendered once and kept in the media store.
 * The cache only kept those inputs alive: libvips maps an input file into memory, and a cached
 * operation holds the mapping, so each upload's temporary file stayed resident (and on disk,
 * deleted but mapped) until 20 later files pushed it out. Measured on the built server with 16
 * concurrent 19 MB uploads: 7 such mappings, 133 MB of the 443 MB peak.
 */
sharp.cache(false)

export default sharp
export type { Metadata } from 'sharp'

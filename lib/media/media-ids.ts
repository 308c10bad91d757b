// What createId('med') makes: lower-case base 36 after the prefix. The body's sanitiser keeps a
// figure's data-media-id only of this shape, and the public rendition route answers any other id
// with a 404 before asking the database (a NUL byte is a database error, U+202E no header value).
const mediaIdPattern = /^med_[0-9a-z]{16,40}$/

/** Whether `id` has the shape of an id the media library makes. */
export const isLibraryMediaId = (id: string): boolean => mediaIdPattern.test(id)

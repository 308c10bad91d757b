/** A /v1 body larger than this is refused with 413 before it is read whole, unless its operation allows more. */
export const defaultMaxBodyBytes = 1024 * 1024

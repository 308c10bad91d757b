import { zodResolver as apiWordedResolver } from '@hookform/resolvers/zod'
import type { FieldErrors, FieldValues, ResolverResult } from 'react-hook-form'
import { portalFieldMessage } from '@/lib/text/field-wording'

type Errors = Record<string, unknown>

/** Every message in react-hook-form's error tree, in the portal's words (portalFieldMessage). */
function worded(errors: Errors, path: string[] = []): Errors {
  const out: Errors = Array.isArray(errors) ? ([] as unknown as Errors) : {}
  for (const [key, value] of Object.entries(errors)) {
    if (value && typeof value === 'object' && 'message' in value && typeof (value as { message: unknown }).message === 'string') {
      const error = value as { message: string }
      out[key] = { ...error, message: portalFieldMessage([...path, key].join('.'), error.message) }
    } else if (value && typeof value === 'object') {
      out[key] = worded(value as Errors, [...path, key])
    } else {
      out[key] = value
    }
  }
  return out
}

/**
 * The forms' resolver: the API's own zod schema decides what is valid (so the portal and /v1
 * refuse the same values), and its messages reach the person in the portal's words.
 */
export const zodResolver = ((...args: Parameters<typeof apiWordedResolver>) => {
  const resolve = (apiWordedResolver as (...a: unknown[]) => (...r: unknown[]) => Promise<ResolverResult<FieldValues>>)(...args)
  return async (...resolverArgs: unknown[]) => {
    const result = await resolve(...resolverArgs)
    return { ...result, errors: worded(result.errors as Errors) as FieldErrors<FieldValues> }
  }
}) as typeof apiWordedResolver

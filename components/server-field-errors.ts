import type { FieldValues, Path, UseFormReturn } from 'react-hook-form'
import { fieldErrorsOf } from './portal-error'

type FieldOf<Values extends FieldValues> = readonly Path<Values>[] | ((serverField: string) => Path<Values> | null)

/**
 * The one way a form shows what the server refused: each per-field error the server sent
 * (`data.fieldErrors`, e.g. `tags.3`) goes on the form field it belongs to — named in `fields`,
 * or found by a mapping for nested names — and the first such field takes the focus. Returns
 * false when none belonged to a field, so the form shows the refusal as a whole instead
 * (refusalMessage / describePortalError).
 */
export function applyServerFieldErrors<Values extends FieldValues>(
  form: Pick<UseFormReturn<Values>, 'setError'>,
  error: unknown,
  fields: FieldOf<Values>,
): boolean {
  const fieldOf = typeof fields === 'function' ? fields : (serverField: string) => fields.find((name) => name === serverField) ?? null
  const matched = fieldErrorsOf(error).flatMap((item) => {
    const name = fieldOf(item.field)
    return name ? [{ name, message: item.message }] : []
  })
  matched.forEach(({ name, message }, index) => form.setError(name, { type: 'server', message }, { shouldFocus: index === 0 }))
  return matched.length > 0
}

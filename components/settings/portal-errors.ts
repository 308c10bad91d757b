import { TRPCClientError } from '@trpc/client'

export type FieldError = { field: string; message: string }

type PortalErrorData = { code?: string; domainCode?: string | null; fieldErrors?: FieldError[] | null }

function dataOf(error: unknown): PortalErrorData | undefined {
  return error instanceof TRPCClientError ? (error.data as PortalErrorData | undefined) : undefined
}

/** A sentence for a refused or failed call: the service's own message when it gave one. */
export function refusalMessage(error: unknown): string {
  const data = dataOf(error)
  if (data?.code === 'UNAUTHORIZED') return 'Your session has ended. Sign in again to continue.'
  if (data?.code === 'INTERNAL_SERVER_ERROR') return 'Something went wrong on our side. Try again in a moment.'
  if (error instanceof TRPCClientError && data) return error.message
  return 'The service could not be reached. Check your connection and try again.'
}

export function fieldErrorsOf(error: unknown): FieldError[] {
  return dataOf(error)?.fieldErrors ?? []
}

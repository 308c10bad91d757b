/**
 * What the operator's commands (tokens, newsroom, content-keys) share: a refusal of the command
 * line, and how any refusal is printed and sets the exit code (2 for a usage error, 1 otherwise),
 * so they all say what to fix the same way.
 */
import { DomainError, ValidationError } from '../lib/errors.ts'

export class CliError extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
  ) {
    super(message)
  }
}

/** Runs a command; a refusal is printed to stderr (field by field for invalid input) and sets the exit code. */
export async function runCli(main: () => Promise<void>): Promise<void> {
  await main().catch((error) => {
    if (error instanceof ValidationError) console.error(error.fieldErrors.map((fieldError) => `${fieldError.field}: ${fieldError.message}`).join('\n'))
    else console.error(error instanceof CliError || error instanceof DomainError || error instanceof TypeError ? error.message : error)
    process.exitCode = error instanceof CliError ? error.exitCode : 1
  })
}

/**
 * A wait as a person reads it, never shorter than it is: "40 seconds", "1 minute", "14 minutes".
 * Shared by the server's refusals and the sign-in form, which receives the seconds.
 */
export function describeWait(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds))
  if (whole < 60) return `${whole} second${whole === 1 ? '' : 's'}`
  const minutes = Math.ceil(whole / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

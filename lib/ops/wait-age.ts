/** How long something has waited, as people say it: "45 s", "12 min", "3 h", "2 days". */
export function waitAge(seconds: number): string {
  if (seconds < 90) return `${seconds} s`
  if (seconds < 5_400) return `${Math.round(seconds / 60)} min`
  if (seconds < 172_800) return `${Math.round(seconds / 3_600)} h`
  return `${Math.round(seconds / 86_400)} days`
}

/**
 * Where a page's next change of its address starts from. A page that keeps its state in the
 * query string (the media library's filters, page and open image) changes it with router.push
 * or replace, and learns the new address only when it renders again. Two changes made before
 * that render, each built from the address last rendered, undo each other: an upload finishing
 * (opening its image) just after a search was sent put the old search back, and a search sent
 * just after an upload finished closed the image (e2e/media-portal-breaks.spec.ts, on a phone).
 * So each change is built from the latest address asked for, until the page renders one.
 */
export class AddressTrail {
  // Addresses asked for and not yet rendered, oldest first.
  private asked: string[] = []

  constructor(private rendered: string) {}

  /** The page rendered with `address`: one of ours arriving, or one from elsewhere (Back, a link), which supersedes what was asked. */
  render(address: string): void {
    if (address === this.rendered) return
    const arrived = this.asked.indexOf(address)
    this.asked = arrived >= 0 ? this.asked.slice(arrived + 1) : []
    this.rendered = address
  }

  /** The query string after `changes` (a null or empty value removes the parameter), from the latest address asked for; remembered as asked. */
  next(changes: Record<string, string | null>): string {
    const next = new URLSearchParams(this.asked.at(-1) ?? this.rendered)
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value)
      else next.delete(name)
    }
    const address = next.toString()
    this.asked.push(address)
    return address
  }
}

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
  // Addresses asked for and not yet rendered, oldest first, each with whether it was a push.
  private asked: { address: string; push: boolean }[] = []

  constructor(private rendered: string) {}

  /** The page rendered with `address`: one of ours arriving, or one from elsewhere (Back, a link), which supersedes what was asked. */
  render(address: string): void {
    if (address === this.rendered) return
    const arrived = this.asked.findIndex((asked) => asked.address === address)
    this.asked = arrived >= 0 ? this.asked.slice(arrived + 1) : []
    this.rendered = address
  }

  /**
   * How a change asked for as `how` is to be made. A replace asked while a push is still on its
   * way is a push: the router drops the navigation still on its way for the newer one, so the
   * replace would take the place of the entry before the push (an image opened, or an upload
   * finishing, just after a search was sent: Back skipped the search before).
   */
  how(how: 'push' | 'replace'): 'push' | 'replace' {
    return how === 'replace' && this.asked.some((asked) => asked.push) ? 'push' : how
  }

  /** The query string after `changes` (a null or empty value removes the parameter), from the latest address asked for; remembered as asked. */
  next(changes: Record<string, string | null>, how: 'push' | 'replace' = 'replace'): string {
    const next = new URLSearchParams(this.asked.at(-1)?.address ?? this.rendered)
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value)
      else next.delete(name)
    }
    const address = next.toString()
    // Asking for the address shown supersedes whatever was asked before it (the router drops
    // those navigations); it will not render again, so nothing would ever take them off the
    // trail, and a later change would be built on a search the page never showed.
    if (address === this.rendered) this.asked = []
    else this.asked.push({ address, push: how === 'push' })
    return address
  }
}

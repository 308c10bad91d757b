/**
 * The desk and the article list ask again every 10 seconds while the tab is visible (react-query
 * pauses in a hidden tab), so a story a colleague submits, publishes or takes down appears
 * without a reload. One article's page is live through its held watch poll; a list has no single
 * tag to hold on, and a 10 s re-read of the list's own query (desk.get: 29 ms at p50 in
 * bench/results/2026-11-26-07-42.md) is cheap next to a second change feed per open list.
 */
export const liveListIntervalMs = 10_000

/** What the page says of it, so nobody reloads to be sure. */
export const liveListNote = 'This page updates by itself every 10 seconds.'

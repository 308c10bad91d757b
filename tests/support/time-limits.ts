/**
 * A limit for setup that waits on conditions (a server's "listening" line, a process's exit, a
 * migration's end): those end the wait, and on a loaded machine they take as long as they
 * take. This is only the backstop against a hang, far above what any of them needs, so a busy
 * CI machine (the suite went red at a 120 s clock while two checkouts migrated) does not fail
 * a setup that was merely slow.
 */
export const setupBackstopMs = 15 * 60_000

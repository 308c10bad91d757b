/**
 * pgBackRest for the service's PostgreSQL (Debian's `pgbackrest`): the settings a primary needs
 * to archive its WAL, the repository's configuration, and the commands of a backup and of a
 * point-in-time restore, as one module that `npm run cluster` (scripts/cluster.ts), the restore
 * test (tests/backup/point-in-time-restore.test.ts) and docs/deploy.md ("Backups and restoring
 * them") share: the runbook's commands are these.
 *
 * One stanza names one PostgreSQL cluster. Full backups weekly and incrementals daily (the
 * operator's timer, docs/deploy.md), retention by full backups (`repo1-retention-full`); WAL is
 * archived continuously by `archive_command`, so a restore can stop at any moment between the
 * oldest kept backup and the last archived WAL segment.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, writeFileSync, chownSync } from 'node:fs'
import path from 'node:path'
import { ensureDebianPackages } from './debian-packages.ts'

export type BackupLayout = {
  /** The stanza: one per PostgreSQL cluster (the service's: "newsroom"). */
  stanza: string
  /** Where pgbackrest.conf, the repository, its logs and lock files live. */
  dir: string
  /** The PostgreSQL cluster backed up: its data directory and port (pgBackRest connects over the socket directory). */
  pgData: string
  pgPort: number
  pgSocketDir: string
  /** Full backups kept (older ones expire with the WAL only they needed). */
  retentionFull?: number
  /**
   * The other nodes of the same PostgreSQL cluster (Patroni's replicas, any of which may lead
   * after a failover), as pg2, pg3…: a backup finds whichever node is the primary now.
   */
  otherNodes?: { pgData: string; pgPort: number }[]
}

export const configFile = (layout: BackupLayout) => path.join(layout.dir, 'pgbackrest.conf')
export const repoPath = (layout: BackupLayout) => path.join(layout.dir, 'repo')

/** pgbackrest.conf: one local repository (a real deployment puts repo1 on another host or in S3: docs/deploy.md). */
export function pgbackrestConfig(layout: BackupLayout): string {
  return [
    '[global]',
    `repo1-path=${repoPath(layout)}`,
    `repo1-retention-full=${layout.retentionFull ?? 2}`,
    'start-fast=y',
    'compress-type=lz4',
    'process-max=2',
    `log-path=${path.join(layout.dir, 'log')}`,
    `lock-path=${path.join(layout.dir, 'lock')}`,
    `spool-path=${path.join(layout.dir, 'spool')}`,
    'log-level-console=warn',
    'log-level-file=info',
    '',
    `[${layout.stanza}]`,
    `pg1-path=${layout.pgData}`,
    `pg1-port=${layout.pgPort}`,
    `pg1-socket-path=${layout.pgSocketDir}`,
    ...(layout.otherNodes ?? []).flatMap((node, index) => [`pg${index + 2}-path=${node.pgData}`, `pg${index + 2}-port=${node.pgPort}`, `pg${index + 2}-socket-path=${layout.pgSocketDir}`]),
    '',
  ].join('\n')
}

/**
 * The lines the primary's postgresql.conf needs: every finished WAL segment is pushed to the
 * repository, and a segment is closed at least every minute, so a quiet primary loses at most a
 * minute of writes to a disaster (the recovery point objective).
 */
export function archiveSettings(layout: BackupLayout): string[] {
  return Object.entries(archiveParameters(layout)).map(([name, value]) => `${name} = ${/^\d+$|^(on|off|replica)$/.test(value) ? value : `'${value}'`}`)
}

/**
 * The same settings as parameters, for a manager that writes postgresql.conf itself (Patroni's
 * `postgresql.parameters`), for the node whose data directory is `pgData`. The command names
 * that directory: PostgreSQL passes %p relative to it, and pgBackRest would otherwise read the
 * segment from pg1-path, which is another node's once a failover has moved the primary.
 */
export function archiveParameters(layout: BackupLayout, pgData = layout.pgData): Record<string, string> {
  return {
    wal_level: 'replica',
    archive_mode: 'on',
    archive_command: `pgbackrest --config=${configFile(layout)} --stanza=${layout.stanza} --pg1-path=${pgData} archive-push %p`,
    archive_timeout: '60',
    max_wal_senders: '5',
  }
}

/** pgBackRest's restore_command, for a replica or a standby that must catch up from the repository. */
export function restoreCommand(layout: BackupLayout): string {
  return `pgbackrest --config=${configFile(layout)} --stanza=${layout.stanza} archive-get %f "%p"`
}

/**
 * `npm run cluster`'s backups: one stanza for its Patroni cluster, every node listed (the
 * primary is whichever leads), the repository under the cluster's state directory, the nodes'
 * sockets in that directory too.
 */
export function clusterBackupLayout(clusterDir: string, nodes: { pgData: string; pgPort: number }[]): BackupLayout {
  const [first, ...others] = nodes
  return { stanza: 'newsroom', dir: path.join(clusterDir, 'pgbackrest'), pgData: first!.pgData, pgPort: first!.pgPort, pgSocketDir: clusterDir, otherNodes: others }
}

/** The postgres user's ids, when this process is root (PostgreSQL and pgBackRest then run as postgres). */
export function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  return { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) }
}

/** For a new primary: writes pgbackrest.conf and returns the postgresql.conf lines that archive its WAL there. */
export function prepareBackups(layout: BackupLayout): string[] {
  writeBackupConfig(layout, postgresOwner())
  return archiveSettings(layout)
}

/** Once the primary runs: the stanza (idempotent), and a first full backup when the repository has none. */
export function ensureFirstBackup(layout: BackupLayout): void {
  createStanza(layout)
  const info = backupInfo(layout) as { backup?: unknown[] }[]
  if (!info[0]?.backup?.length) takeBackup(layout, 'full')
}

/** Writes pgbackrest.conf and the directories it names, owned by `owner` (the postgres user) when given. */
export function writeBackupConfig(layout: BackupLayout, owner?: { uid: number; gid: number }): void {
  ensureDebianPackages([['pgbackrest', 'pgbackrest']])
  for (const dir of [layout.dir, repoPath(layout), path.join(layout.dir, 'log'), path.join(layout.dir, 'lock'), path.join(layout.dir, 'spool')]) {
    mkdirSync(dir, { recursive: true })
    if (owner) chownSync(dir, owner.uid, owner.gid)
  }
  writeFileSync(configFile(layout), pgbackrestConfig(layout))
  if (owner) chownSync(configFile(layout), owner.uid, owner.gid)
}

/** Runs pgbackrest (as the postgres user when this process is root, as PostgreSQL's archive_command does). */
export function pgbackrest(layout: BackupLayout, args: string[]): string {
  const argv = [`--config=${configFile(layout)}`, `--stanza=${layout.stanza}`, ...args]
  const [command, commandArgs] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', 'pgbackrest', ...argv]] : ['pgbackrest', argv]
  return execFileSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Once, after PostgreSQL runs with archiveSettings: creates the stanza and checks that WAL reaches the repository. */
export function createStanza(layout: BackupLayout): void {
  pgbackrest(layout, ['stanza-create'])
  pgbackrest(layout, ['check'])
}

/** A backup: `full` (weekly), `incr` (daily: what changed since the last backup of any type) or `diff`. */
export function takeBackup(layout: BackupLayout, type: 'full' | 'incr' | 'diff'): void {
  pgbackrest(layout, ['backup', `--type=${type}`])
}

/** Closes the current WAL segment and waits until it is archived: everything committed so far can be restored. */
export function archiveNow(layout: BackupLayout): void {
  pgbackrest(layout, ['check'])
}

/** `pgbackrest info`, as JSON: the backups kept, their times and sizes, and the WAL range archived. */
export function backupInfo(layout: BackupLayout): unknown {
  return JSON.parse(pgbackrest(layout, ['info', '--output=json']))
}

/**
 * Restores into `targetData` (a fresh, empty directory) the state as of `target` (a timestamp
 * with time zone, e.g. '2026-11-29 01:02:03.456+00'): the newest backup before it, then WAL up to
 * it; the restored cluster promotes itself at the target, with archiving off (it must not push
 * into the repository of the cluster it was restored from; turn it on once it is the primary).
 */
export function restoreToTime(layout: BackupLayout, targetData: string, target: string): void {
  pgbackrest(layout, ['restore', `--pg1-path=${targetData}`, '--type=time', `--target=${target}`, '--target-action=promote', '--archive-mode=off'])
  appendFileSync(path.join(targetData, 'postgresql.conf'), standaloneSettings)
}

/**
 * What a restored copy needs to run alone. A Patroni leader's postgresql.conf (which the backup
 * carries) names its synchronous standby; the copy has none, so every commit on it would wait
 * forever for one (the runbook serves from the copy, or exports a newsroom from it, which writes
 * an audit entry). The runbook's step 4 appends the same line.
 */
export const standaloneSettings = "synchronous_standby_names = ''\n"


import { databaseLeader, killDatabaseLeader, startDatabaseNode, waitDatabaseHealthy, databaseMembers, replicaServer } from './scripts/cluster.ts'
import { execFileSync } from 'node:child_process'
const psql = (port: number, sql: string) => { try { return execFileSync('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-Atc', sql, 'newsroom'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() } catch (e) { return 'ERR ' + (e as Error).message.split('\n')[1] } }
psql(7003, 'CREATE TABLE IF NOT EXISTS t (id int)')
const t0 = Date.now()
const killed = await killDatabaseLeader()
console.log('killed', killed)
let leader
while (!(leader = await databaseLeader()) || leader === killed) { await new Promise(r => setTimeout(r, 250)) }
console.log('new leader', leader, (Date.now() - t0) / 1000)
for (let i = 0; i < 40; i++) { const r = psql(7003, 'INSERT INTO t VALUES (1) RETURNING 1'); if (r === '1') { console.log('write ok at', (Date.now() - t0) / 1000); break } ; await new Promise(r => setTimeout(r, 250)) }
startDatabaseNode(['pg1', 'pg2'].indexOf(killed))
await waitDatabaseHealthy(120000)
console.log('healthy again', (Date.now() - t0) / 1000, JSON.stringify(await databaseMembers()))
await replicaServer('stop')
console.log('replica stopped; write:', psql(7003, 'INSERT INTO t VALUES (2) RETURNING 2'), 'in', (Date.now() - t0) / 1000)
await replicaServer('start')
console.log('replica started', JSON.stringify(await databaseMembers()))

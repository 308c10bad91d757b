/** Runs only the embedded database, so Prisma commands can be pointed at it by hand. */
import { startEmbeddedDatabase } from '../lib/db/embedded-server.ts'

const embedded = await startEmbeddedDatabase()
console.log(`Embedded database listening at ${embedded.url}`)
console.log('Prisma commands without DATABASE_URL use it. Stop with Ctrl+C.')
const stop = () => void embedded.stop().then(() => process.exit(0))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)

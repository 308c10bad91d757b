// Imported first by the server entries: the Date constructor as the runtime made it, before
// Next's server wraps the global one (lib/native-date.ts says why).
import { recordNativeDate } from '../lib/native-date.ts'

recordNativeDate()

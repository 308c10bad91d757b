import { router } from '../init.ts'

export const apiKeysRouter = router({})

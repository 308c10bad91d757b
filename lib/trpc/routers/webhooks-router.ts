import { router } from '../init.ts'

export const webhooksRouter = router({})

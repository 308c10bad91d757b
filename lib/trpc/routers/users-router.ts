import { router } from '../init.ts'

export const usersRouter = router({})

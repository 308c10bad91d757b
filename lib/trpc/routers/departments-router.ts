import { router } from '../init.ts'

export const departmentsRouter = router({})

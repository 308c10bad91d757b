import { listDepartmentsOperation, toDepartmentRecord } from '@/lib/api/operations/department-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { departmentDirectory } from '@/lib/departments/manage-departments'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listDepartmentsOperation, async ({ actor }) => jsonResponse({ items: (await departmentDirectory(actor)).map(toDepartmentRecord) })),
})

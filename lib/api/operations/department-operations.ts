import type { oas31 } from 'zod-openapi'
import { departmentListSchema, listDepartmentsQuerySchema, type DepartmentRecord } from '../../departments/department-schemas.ts'
import type { DepartmentSummary } from '../../departments/manage-departments.ts'
import { declareOperation, operationPaths } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'

export const departmentTags: oas31.TagObject[] = [
  {
    name: 'Departments',
    description: "The newsroom's desks (Politics, Sport…): the ids that articles' `department_id`, the articles list's `department_id` filter and webhook subscriptions' `department_ids` take. Admins manage them in the portal under Settings → Departments.",
  },
]

export function toDepartmentRecord(department: DepartmentSummary): DepartmentRecord {
  return { department_id: department.id, name: department.name, article_count: department.articleCount, created_at: department.createdAt.toISOString() }
}

const sport: DepartmentRecord = { department_id: 'dep_0mhx2k1s9q3v8w4t6y1z2a3b4c', name: 'Sport', article_count: 42, created_at: '2026-11-01T08:00:00.000Z' }
const politics: DepartmentRecord = { department_id: 'dep_0mhx2k1s9q3v8w4t6y1z2a3b4d', name: 'Politics', article_count: 118, created_at: '2026-11-01T08:00:00.000Z' }

export const listDepartmentsOperation = declareOperation({
  method: 'GET',
  path: '/v1/departments',
  query: listDepartmentsQuerySchema,
  operationId: 'listDepartments',
  summary: 'List departments',
  tags: ['Departments'],
  scope: 'articles:read',
  alsoScopes: ['webhooks:manage'],
  description: [
    "Every department of the token's newsroom, by name, all on one page: look up the id to filter articles by (`GET /v1/articles?department_id=…`), to file an article under (`department_id`), or to narrow a webhook subscription to (`department_ids`).",
    '',
    'Any key that reads articles may read them (an article already shows its `department_id`), and so may a key that manages webhooks (its subscriptions filter by `department_ids`).',
  ].join('\n'),
  success: {
    status: 200,
    description: 'The departments, by name.',
    schema: departmentListSchema,
    examples: { departments: { summary: 'Two desks', value: { items: [politics, sport] } } },
  },
  problems: [
    {
      code: 'validation_failed',
      when: 'A query parameter is sent: the list takes none.',
      detail: 'The request query parameters have invalid fields; see errors.',
      errors: validationErrors(listDepartmentsQuerySchema, { limit: '10' }),
    },
  ],
})

export const departmentPaths = operationPaths([listDepartmentsOperation])

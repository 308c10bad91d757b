import type { oas31 } from 'zod-openapi'
import { resolve, type Document } from './openapi-view-model'
import { FieldDescription } from './schema-fields'
import { schemaConstraints, SchemaType } from './schema-type'
import styles from './api-reference.module.css'

export function OperationParameters({ document, parameters }: { document: Document; parameters: (oas31.ParameterObject | oas31.ReferenceObject)[] | undefined }) {
  if (!parameters?.length) return null
  const resolved = parameters.map((parameter) => resolve<oas31.ParameterObject>(document, parameter))
  return (
    <>
      <h4>Parameters</h4>
      <table className={styles.fields}>
        <thead>
          <tr>
            <th>Name</th>
            <th>In</th>
            <th>Type</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {resolved.map((parameter) => (
            <tr key={`${parameter.in}-${parameter.name}`}>
              <td>
                <code>{parameter.name}</code>
                {parameter.required && <span className={styles.required}> required</span>}
              </td>
              <td>{parameter.in}</td>
              <td>
                <SchemaType schema={parameter.schema} />
              </td>
              <td>
                <FieldDescription description={parameter.description} constraints={schemaConstraints(parameter.schema)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

import { expect, type Page } from '@playwright/test'

/** The article id in the page's address (/articles/art_…); throws where the page is not an article's. */
export function articleIdOf(page: Page): string {
  const match = /\/articles\/(art_[a-z0-9]+)/.exec(page.url())
  if (!match?.[1]) throw new Error(`Not on an article page: ${page.url()}`)
  return match[1]
}

export type DraftFields = {
  headline: string
  lede?: string
  /** Typed into the editor as a person types: a string as it is, a list as paragraphs (Enter between them). */
  body?: string | string[]
  department?: string
  tags?: string
}

/** Creates a draft through New article, as an editor does, and returns its id once its page shows it. */
export async function createDraft(page: Page, fields: DraftFields): Promise<string> {
  await page.goto('/articles/new')
  await page.getByLabel('Headline').fill(fields.headline)
  if (fields.lede) await page.getByLabel('Lede').fill(fields.lede)
  if (fields.body !== undefined && fields.body.length > 0) {
    await page.getByRole('textbox', { name: 'Body' }).click()
    for (const [index, paragraph] of (typeof fields.body === 'string' ? [fields.body] : fields.body).entries()) {
      if (index > 0) await page.keyboard.press('Enter')
      await page.keyboard.type(paragraph)
    }
  }
  if (fields.department) await page.getByLabel('Department').selectOption({ label: fields.department })
  if (fields.tags) await page.getByLabel('Tags').fill(fields.tags)
  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: fields.headline })).toBeVisible()
  return articleIdOf(page)
}

/** Presses a workflow button on the article page and waits for the status line to say the move was made. */
export async function move(page: Page, button: string, expected: RegExp | string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click()
  await expect(page.getByTestId('workflow-status')).toContainText(expected)
}

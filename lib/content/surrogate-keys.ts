/**
 * The names a shared cache files public content under (Surrogate-Key / Cache-Tag), and a purge
 * names: the newsroom (everything it serves), its article list pages, and one article (its
 * page under its id and under every slug it was asked by).
 */
export const newsroomSurrogateKey = (tenantId: string) => `newsroom-${tenantId}`
export const listSurrogateKey = (tenantId: string) => `list-${tenantId}`
export const articleSurrogateKey = (articleId: string) => `article-${articleId}`

export declare function securityHeaders(options: { production: boolean; publicUrl: string | undefined }): Record<string, string>

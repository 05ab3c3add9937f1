// Where answers use the error envelope (concepts.md section 7): `{detail}` everywhere, the
// envelope (and RFC 9457 on request) under the path prefixes modules declare
// (ModuleInstance.envelopePrefixes). Answers there always carry X-Request-Id.

export interface ErrorSurface {
  /** True when errors at this path (a declared path or a request URL) use the envelope. */
  envelope(path: string): boolean;
}

export function createErrorSurface(prefixes: readonly string[]): ErrorSurface {
  const bare = prefixes.map((p) => p.replace(/\/+$/, ''));
  return {
    envelope(path) {
      const p = path.split('?')[0];
      return bare.some((b) => p === b || p.startsWith(`${b}/`));
    },
  };
}

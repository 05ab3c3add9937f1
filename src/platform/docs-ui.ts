// The interactive reference at /docs: Swagger UI (a maintained renderer) with its assets served
// by this service. @fastify/swagger runs in static mode over our generated document, so the UI,
// /docs/json and /openapi.json all show the same one. No CDN.
import type { FastifyInstance } from 'fastify';
import swagger, { type StaticDocumentSpec } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerDocs(app: FastifyInstance, document: object, errorPageHtml: string): Promise<void> {
  // The document is the OpenAPI 3 one the service builds (platform/openapi.ts).
  await app.register(swagger, { mode: 'static', specification: { document: document as StaticDocumentSpec['document'] } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'none' },
    staticCSP: true,
    // The stock policy asks browsers to upgrade every request to HTTPS, which blanks the page when
    // the service is reached over plain HTTP under a host name (a private network, a load balancer
    // terminating TLS elsewhere). The rest of the policy stays.
    transformStaticCSP: (header: string) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
  // Where every error `type` URI points: /docs/errors#<code>.
  app.get('/docs/errors', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(errorPageHtml),
  );
}

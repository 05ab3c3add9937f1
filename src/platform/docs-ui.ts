// The interactive reference at /docs: Swagger UI (a maintained renderer) with its assets served
// by this service. @fastify/swagger runs in static mode over our generated document, so the UI,
// /docs/json and /openapi.json all show the same one. No CDN.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerDocs(app: FastifyInstance, document: object): Promise<void> {
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'none' },
    staticCSP: true,
  });
}

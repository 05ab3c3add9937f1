// Request validators and response serializers compiled on first use instead of when a route is
// registered. Compiling every operation's schemas (ajv for inputs, fast-json-stringify for
// answers) took about 0.6 s of CPU per start at 185 operations and grows with each one; a test
// service touches a handful of routes, so it pays for those only. `warm()` compiles whatever is
// still pending: the process entry calls it once it listens, so a deployment's first requests do
// not pay, and a foundation test calls it so a schema that cannot compile still fails CI.
import fastJsonStringify from 'fast-json-stringify';
import type { ValidateFunction } from 'ajv';
import { compileValidator } from './validation.ts';

type ValidatorRequest = Parameters<typeof compileValidator>[0] & { method?: string; url?: string };
type Serializer = (data: unknown) => string;

export interface LazySchemaCompilers {
  validatorCompiler(req: ValidatorRequest): ValidateFunction;
  serializerCompiler(req: { schema: object }): Serializer;
  /** Compiles every schema not compiled yet; returns how many it compiled. */
  warm(): number;
}

export function createLazySchemaCompilers(): LazySchemaCompilers {
  const pending = new Set<() => void>();

  return {
    validatorCompiler(req) {
      let compiled: ValidateFunction | undefined;
      const compile = () => {
        if (!compiled) {
          compiled = compileValidator(req);
          pending.delete(compile);
        }
        return compiled;
      };
      pending.add(compile);
      // Fastify calls the validator with ajv's data context when it has a `schemaEnv` (so coercion
      // may replace a root value) and reads `errors` after a failure: both follow the compiled one.
      const validate = ((data: unknown, ctx?: Parameters<ValidateFunction>[1]) => {
        const v = compile();
        const ok = v(data, ctx);
        validate.errors = v.errors;
        return ok;
      }) as ValidateFunction;
      Object.defineProperty(validate, 'schemaEnv', { get: () => compile().schemaEnv });
      return validate;
    },

    serializerCompiler({ schema }) {
      let compiled: Serializer | undefined;
      const compile = () => {
        if (!compiled) {
          // What Fastify's default serializer compiler does, with no shared schemas added.
          compiled = fastJsonStringify(schema, { schema: {} }) as Serializer;
          pending.delete(compile);
        }
        return compiled;
      };
      pending.add(compile);
      return (data) => compile()(data);
    },

    warm() {
      let n = 0;
      for (const compile of [...pending]) {
        compile();
        n++;
      }
      return n;
    },
  };
}

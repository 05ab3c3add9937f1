// How modules meet: a module provides a service under a typed key it exports from its index.ts; a
// module that needs it asks the registry for that key. The platform holds the registry and knows
// no service by name.

/** A typed name for a service. The type parameter carries what `get` returns. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: keeps T in the key's type. */
  readonly __service?: T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

export interface ServiceRegistry {
  get<T>(key: ServiceKey<T>): T;
  provide<T>(key: ServiceKey<T>, service: T): void;
}

export function createServiceRegistry(): ServiceRegistry {
  const services = new Map<string, unknown>();
  return {
    get<T>(key: ServiceKey<T>): T {
      if (!services.has(key.name)) {
        throw new Error(`service ${key.name} is not provided: list the module that provides it in dependsOn and in the module list`);
      }
      return services.get(key.name) as T;
    },
    provide<T>(key: ServiceKey<T>, service: T) {
      if (services.has(key.name)) throw new Error(`service ${key.name} is provided twice`);
      services.set(key.name, service);
    },
  };
}

// How modules meet: a module provides a service under a typed key it exports from its index.ts; a
// module that needs it asks the registry for that key. The platform holds the registry and knows
// no service by name.
//
// Each module sees the registry through `forModule` (its name and dependsOn): what it provides is
// recorded as its own, and asking for a service another module provides, when that module is not
// in its dependsOn, stops the start with both names (decision 0330). dependsOn orders the
// migrations and the providers, so an unlisted use would work only by the module list's order.

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
  /**
   * The registry as the module `name` sees it: it may get only its own services and those of the
   * modules in `dependsOn`.
   */
  forModule(name: string, dependsOn: readonly string[]): ServiceRegistry;
}

export function createServiceRegistry(): ServiceRegistry {
  const services = new Map<string, { service: unknown; owner?: string }>();
  const view = (module?: { name: string; dependsOn: readonly string[] }): ServiceRegistry => ({
    get<T>(key: ServiceKey<T>): T {
      const entry = services.get(key.name);
      if (!entry) {
        throw new Error(`service ${key.name} is not provided: list the module that provides it in dependsOn and in the module list`);
      }
      if (module && entry.owner !== undefined && entry.owner !== module.name && !module.dependsOn.includes(entry.owner)) {
        throw new Error(`module ${module.name} uses service ${key.name} of module ${entry.owner} but does not list ${entry.owner} in its dependsOn`);
      }
      return entry.service as T;
    },
    provide<T>(key: ServiceKey<T>, service: T) {
      if (services.has(key.name)) throw new Error(`service ${key.name} is provided twice`);
      services.set(key.name, { service, owner: module?.name });
    },
    forModule: (name, dependsOn) => view({ name, dependsOn }),
  });
  return view();
}

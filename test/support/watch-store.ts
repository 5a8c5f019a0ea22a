/**
 * `store` as it is, but for `methods`, which hand each call's arguments to `onCall` before
 * running as usual: how a test sees which reads or writes the code under test made.
 */
export function watchStore<T extends object>(
  store: T,
  methods: (keyof T & string) | (keyof T & string)[],
  onCall: (args: unknown[]) => void,
): T {
  const watched = new Set<string | symbol>(Array.isArray(methods) ? methods : [methods]);
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (!watched.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        onCall(args);
        return value.apply(target, args);
      };
    },
  });
}
